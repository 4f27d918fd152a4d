import { loadConfig } from '../../config/app-config';
import { addressAllowed, parseWebhookUrl, resolveChecked, UnsafeWebhookUrl } from './address-guard';
import { addressPolicyOf } from './webhook-deliveries';

const production = { allowLoopback: false };
const local = { allowLoopback: true };

describe('the webhook address guard (server-side request forgery)', () => {
  it('refuses loopback, private, link-local, unspecified and other non-public addresses', () => {
    for (const address of [
      '127.0.0.1',
      '127.8.9.10',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.1.1',
      '169.254.169.254',
      '0.0.0.0',
      '100.64.0.1',
      '198.18.0.1',
      '224.0.0.1',
      '255.255.255.255',
      '::',
      '::1',
      'fc00::1',
      'fd12:3456::1',
      'fe80::1',
      '::ffff:127.0.0.1',
      '::ffff:7f00:1',
      '0:0:0:0:0:ffff:7f00:1',
      '::127.0.0.1',
      '::ffff:10.0.0.1',
      '::ffff:a9fe:a9fe',
      '64:ff9b::a00:1',
      '2002:a00:1::',
      'not an address',
      '',
    ]) {
      expect({ address, allowed: addressAllowed(address, production) }).toEqual({ address, allowed: false });
    }
  });

  it('lets public addresses through', () => {
    for (const address of [
      '93.184.216.34',
      '1.1.1.1',
      '172.32.0.1',
      '2606:4700:4700::1111',
      '::ffff:1.1.1.1',
    ]) {
      expect({ address, allowed: addressAllowed(address, production) }).toEqual({ address, allowed: true });
    }
  });

  it('with the local setting lets this machine through, and still no private network', () => {
    expect(addressAllowed('127.0.0.1', local)).toBe(true);
    expect(addressAllowed('::1', local)).toBe(true);
    expect(addressAllowed('::ffff:127.0.0.1', local)).toBe(true);
    for (const address of ['10.0.0.1', '192.168.0.1', '169.254.169.254', '0.0.0.0', 'fe80::1']) {
      expect(addressAllowed(address, local)).toBe(false);
    }
  });

  it('asks for https (http only with the local setting) and refuses credentials in the address', () => {
    expect(() => parseWebhookUrl('http://93.184.216.34/hook', production)).toThrow(UnsafeWebhookUrl);
    expect(parseWebhookUrl('https://93.184.216.34/hook', production).hostname).toBe('93.184.216.34');
    expect(parseWebhookUrl('http://127.0.0.1:9/hook', local).port).toBe('9');
    expect(() => parseWebhookUrl('ftp://example.com/', local)).toThrow(UnsafeWebhookUrl);
    expect(() => parseWebhookUrl('https://user:pw@example.com/', production)).toThrow(UnsafeWebhookUrl);
    expect(() => parseWebhookUrl('not a url', production)).toThrow(UnsafeWebhookUrl);
  });

  it('checks every address a name resolves to (localhost is this machine)', async () => {
    await expect(resolveChecked('localhost', production)).rejects.toThrow(/private network/);
    await expect(resolveChecked('10.0.0.1', production)).rejects.toThrow(/10\.0\.0\.1/);
    await expect(resolveChecked('no-such-host.invalid', production)).rejects.toThrow(/could not be found/);
    expect(await resolveChecked('127.0.0.1', local)).toEqual([{ address: '127.0.0.1', family: 4 }]);
  });

  it('never allows loopback in production, whatever the setting', () => {
    const base = { SESSION_SECRET: 'x'.repeat(40), MONGODB_URI: 'mongodb://h/db', REDIS_URL: 'redis://h' };
    expect(() => loadConfig({ ...base, NODE_ENV: 'production', WEBHOOK_ALLOW_LOOPBACK: 'true' })).toThrow(
      /WEBHOOK_ALLOW_LOOPBACK cannot be on in production/,
    );
    expect(addressPolicyOf(loadConfig({ ...base, NODE_ENV: 'test' }))).toEqual(production);
    expect(
      addressPolicyOf(loadConfig({ ...base, NODE_ENV: 'test', WEBHOOK_ALLOW_LOOPBACK: 'true' })),
    ).toEqual(local);
  });
});
