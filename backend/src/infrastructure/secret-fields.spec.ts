import { REDACTED, withoutSecretFields, withoutSecretHeaders, withoutSecretParams } from './secret-fields';

describe('secret fields (what the log masks)', () => {
  it('masks secret query parameters in a URL, however the name is written, and keeps the rest', () => {
    expect(withoutSecretParams('/verify-email?token=abc')).toBe(`/verify-email?token=${REDACTED}`);
    expect(withoutSecretParams('/a?x=1&Token=abc&y=2#top')).toBe(`/a?x=1&Token=${REDACTED}&y=2#top`);
    expect(withoutSecretParams('/a?%74oken=abc&token[]=d&api_key=e&access_token=f')).toBe(
      `/a?%74oken=${REDACTED}&token[]=${REDACTED}&api_key=${REDACTED}&access_token=${REDACTED}`,
    );
    expect(withoutSecretParams('/a?tokens=1&page=2')).toBe('/a?tokens=1&page=2');
    expect(withoutSecretParams('/api/jobs')).toBe('/api/jobs');
    expect(withoutSecretParams('/a?%E0%A4%A=1&password')).toBe('/a?%E0%A4%A=1&password');
  });

  it('masks secret headers and fields in copies, without regard to case, leaving the originals alone', () => {
    const headers = { Authorization: 'Bearer sk_studio_x', 'stripe-signature': 't=1,v1=ab', accept: '*/*' };
    expect(withoutSecretHeaders(headers)).toEqual({
      Authorization: REDACTED,
      'stripe-signature': REDACTED,
      accept: '*/*',
    });
    expect(headers.Authorization).toBe('Bearer sk_studio_x');
    expect(withoutSecretFields({ currentPassword: 'a', password: 'b', secret: 'c', name: 'd' })).toEqual({
      currentPassword: REDACTED,
      password: REDACTED,
      secret: REDACTED,
      name: 'd',
    });
  });
});
