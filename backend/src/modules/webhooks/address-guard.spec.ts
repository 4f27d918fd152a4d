import { loadConfig } from '../../config/app-config';
import { WebhookMessages } from '@studio/contracts';
import {
  addressAllowed,
  addressRange,
  hostOf,
  parseWebhookUrl,
  resolveChecked,
  UnsafeWebhookUrl,
} from './address-guard';
import { addressPolicyOf } from './webhook-deliveries';

const production = { allowLoopback: false };
const local = { allowLoopback: true };

describe('the webhook address guard (server-side request forgery)', () => {
  // [address, the range ipaddr.js names (or ours), refused with the production setting]
  const refused: [string, string][] = [
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['10.0.0.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['0.0.0.0', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'reserved'],
    ['198.18.0.1', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.88.99.1', 'reserved'],
    ['192.175.48.1', 'as112'],
    ['224.0.0.1', 'multicast'],
    ['255.255.255.255', 'broadcast'],
    ['::', 'unspecified'],
    ['::1', 'loopback'],
    ['fc00::1', 'uniqueLocal'],
    ['fd12:3456::1', 'uniqueLocal'],
    ['fe80::1', 'linkLocal'],
    ['fe80::1%eth0', 'linkLocal'],
    ['fec0::1', 'deprecatedSiteLocal'],
    ['ff02::1', 'multicast'],
    ['100::1', 'discard'],
    ['2001:db8::1', 'reserved'],
    ['3fff::1', 'reserved'],
    ['2001:2::1', 'benchmarking'],
    ['5f00::1', 'segmentRouting'],
    // IPv4 inside IPv6: refused outright, whatever the IPv4 address
    ['::ffff:127.0.0.1', 'ipv4Mapped'],
    ['::ffff:7f00:1', 'ipv4Mapped'],
    ['0:0:0:0:0:ffff:7f00:1', 'ipv4Mapped'],
    ['::ffff:10.0.0.1', 'ipv4Mapped'],
    ['::ffff:a9fe:a9fe', 'ipv4Mapped'],
    ['::ffff:1.1.1.1', 'ipv4Mapped'],
    ['::ffff:0:7f00:1', 'rfc6145'],
    ['::ffff:0:127.0.0.1', 'rfc6145'],
    ['::ffff:0:101:101', 'rfc6145'],
    ['64:ff9b::7f00:1', 'rfc6052'],
    ['64:ff9b::a00:1', 'rfc6052'],
    ['64:ff9b:1::7f00:1', 'rfc6052'],
    ['2002:7f00:1::', '6to4'],
    ['2002:a00:1::', '6to4'],
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'teredo'],
    ['2001::1', 'teredo'],
    // ::/8 and the unassigned IPv6 space, which ipaddr.js calls unicast
    ['::127.0.0.1', 'ipv4Mapped'], // ipaddr.js reads the dotted IPv4-compatible form as mapped
    ['::7f00:1', 'reserved'],
    ['::1.1.1.1', 'ipv4Mapped'],
    ['1234::1', 'reserved'],
    ['4000::1', 'reserved'],
  ];
  const allowed = [
    '93.184.216.34',
    '1.1.1.1',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700:4700::1111',
    '2a00:1450:4001::200e',
  ];

  it.each(refused)('refuses %s (%s)', (address, range) => {
    expect(addressRange(address)).toBe(range);
    expect(addressAllowed(address, production)).toBe(false);
    if (range !== 'loopback') expect(addressAllowed(address, local)).toBe(false);
  });

  it.each(allowed)('lets the public address %s through', (address) => {
    expect(addressRange(address)).toBe('unicast');
    expect(addressAllowed(address, production)).toBe(true);
  });

  it('refuses what is not an address, and IPv4 spellings outside the usual four decimals', () => {
    for (const address of [
      'not an address',
      '',
      '0x7f.1',
      '2130706433',
      '0177.0.0.1',
      '127.1',
      'localhost',
    ]) {
      expect({ address, allowed: addressAllowed(address, production) }).toEqual({ address, allowed: false });
    }
  });

  it('with the local setting lets this machine through (127/8 and ::1 only), and still no private network', () => {
    expect(addressAllowed('127.0.0.1', local)).toBe(true);
    expect(addressAllowed('127.0.0.2', local)).toBe(true);
    expect(addressAllowed('::1', local)).toBe(true);
    for (const address of [
      '::ffff:127.0.0.1',
      '::ffff:0:7f00:1',
      '64:ff9b::7f00:1',
      '10.0.0.1',
      '192.168.0.1',
      '169.254.169.254',
      '0.0.0.0',
      'fe80::1',
    ]) {
      expect({ address, allowed: addressAllowed(address, local) }).toEqual({ address, allowed: false });
    }
  });

  // Every spelling of a URL's host as the URL parser reads it, then checked as a delivery would be.
  it.each([
    ['https://2130706433/', '127.0.0.1'],
    ['https://0x7f000001/', '127.0.0.1'],
    ['https://0177.0.0.1/', '127.0.0.1'],
    ['https://017700000001/', '127.0.0.1'],
    ['https://127.1/', '127.0.0.1'],
    ['https://0x7f.1/', '127.0.0.1'],
    ['https://%31%32%37.0.0.1/', '127.0.0.1'],
    ['https://0/', '0.0.0.0'],
    ['https://0.0.0.0/', '0.0.0.0'],
    ['https://100.64.0.1/', '100.64.0.1'],
    ['https://169.254.169.254/', '169.254.169.254'],
    ['https://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['https://[0:0:0:0:0:ffff:7f00:1]/', '::ffff:7f00:1'],
    ['https://[::ffff:0:7f00:1]/', '::ffff:0:7f00:1'],
    ['https://[::ffff:0:127.0.0.1]/', '::ffff:0:7f00:1'],
    ['https://[64:ff9b::7f00:1]/', '64:ff9b::7f00:1'],
    ['https://[64:ff9b::127.0.0.1]/', '64:ff9b::7f00:1'],
    ['https://[2002:7f00:1::]/', '2002:7f00:1::'],
    ['https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/', '2001:0:4136:e378:8000:63bf:80ff:fffe'],
    ['https://[fe80::1]/', 'fe80::1'],
    ['https://[fc00::1]/', 'fc00::1'],
    ['https://[::1]/', '::1'],
    ['https://[::]/', '::'],
  ])('refuses %s (read as %s) at registration and delivery', async (url, address) => {
    const host = hostOf(parseWebhookUrl(url, production));
    expect(host).toBe(address);
    await expect(resolveChecked(host, production)).rejects.toThrow(WebhookMessages.notPublic(address));
  });

  it('resolves a host written with a trailing dot and checks what it resolves to', async () => {
    const host = hostOf(parseWebhookUrl('https://169.254.169.254./', production));
    await expect(resolveChecked(host, production)).rejects.toThrow(/169\.254\.169\.254/);
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
