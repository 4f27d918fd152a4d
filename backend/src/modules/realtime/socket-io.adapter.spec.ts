import { isAllowedOrigin } from '../../common/request-origin';

const handshake = (origin: string | undefined, host = 'studio.example.com') => ({
  headers: { host, ...(origin === undefined ? {} : { origin }) },
});
const none = { FRONTEND_ORIGIN: undefined, PUBLIC_URL: undefined };

describe('isAllowedOrigin (socket handshake)', () => {
  it("accepts the app's own host, and requests with no Origin (same-origin polling, non-browsers)", () => {
    expect(isAllowedOrigin(handshake('https://studio.example.com'), none)).toBe(true);
    expect(isAllowedOrigin(handshake('http://localhost:5173', 'localhost:5173'), none)).toBe(true);
    expect(isAllowedOrigin(handshake(undefined), none)).toBe(true);
  });

  it('accepts FRONTEND_ORIGIN and PUBLIC_URL by exact origin', () => {
    const config = {
      FRONTEND_ORIGIN: 'https://app.example.com',
      PUBLIC_URL: 'https://www.example.com/studio',
    };
    expect(isAllowedOrigin(handshake('https://app.example.com', 'api.internal:3000'), config)).toBe(true);
    expect(isAllowedOrigin(handshake('https://www.example.com', 'api.internal:3000'), config)).toBe(true);
    expect(isAllowedOrigin(handshake('http://app.example.com', 'api.internal:3000'), config)).toBe(false);
  });

  it("refuses other sites, look-alike hosts and Origins that aren't URLs", () => {
    expect(isAllowedOrigin(handshake('https://evil.example'), none)).toBe(false);
    expect(isAllowedOrigin(handshake('https://studio.example.com.evil.example'), none)).toBe(false);
    expect(isAllowedOrigin(handshake('https://studio.example.com:8443'), none)).toBe(false);
    expect(isAllowedOrigin(handshake('null'), none)).toBe(false);
  });
});
