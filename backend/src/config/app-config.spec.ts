import { ConfigError, loadConfig } from './app-config';

const base = { MONGODB_URI: 'mongodb://127.0.0.1:27017/studio', REDIS_URL: 'redis://127.0.0.1:6379' };

describe('loadConfig', () => {
  it('applies defaults for everything optional', () => {
    const cfg = loadConfig(base);
    expect(cfg.PORT).toBe(3000);
    expect(cfg.WORKER_INLINE).toBe(true);
    expect(cfg.PASSWORD_SCRYPT_LOG_N).toBe(16);
  });

  it('names a missing variable', () => {
    expect(() => loadConfig({ REDIS_URL: base.REDIS_URL })).toThrow(/MONGODB_URI is required/);
  });

  it('names a malformed variable', () => {
    expect(() => loadConfig({ ...base, PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ ...base, REDIS_URL: 'localhost:6379' })).toThrow(
      /REDIS_URL must start with redis/,
    );
  });

  it('names the settings a comfyui or replicate engine needs', () => {
    expect(() => loadConfig({ ...base, ENGINE_INPAINT: 'comfyui' })).toThrow(/COMFYUI_URL is required/);
    const replicate = { ...base, ENGINE_GENERATE: 'replicate', REPLICATE_API_TOKEN: 'r8_x' };
    expect(() => loadConfig({ ...base, ENGINE_GENERATE: 'replicate' })).toThrow(
      /REPLICATE_API_TOKEN is required/,
    );
    expect(() => loadConfig(replicate)).toThrow(/REPLICATE_MODEL_GENERATE is required/);
    const cfg = loadConfig({ ...replicate, REPLICATE_MODEL_GENERATE: 'stability-ai/sdxl:abc' });
    expect([cfg.ENGINE_GENERATE, cfg.REPLICATE_API_URL]).toEqual(['replicate', 'https://api.replicate.com']);
  });

  const signing = {
    PROVENANCE_CERT_CHAIN: '/run/chain.pem',
    PROVENANCE_PRIVATE_KEY: '/run/signer.key',
    SMTP_URL: 'smtp://mail.example.com:587',
  };

  it('refuses the built-in session secret in production', () => {
    expect(() => loadConfig({ ...base, ...signing, NODE_ENV: 'production' })).toThrow(/SESSION_SECRET/);
    const production = { ...base, ...signing, NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40) };
    expect(loadConfig(production).NODE_ENV).toBe('production');
  });

  it('refuses production without a signing certificate: outputs would go unmarked', () => {
    const production = {
      ...base,
      NODE_ENV: 'production',
      SESSION_SECRET: 'x'.repeat(40),
      SMTP_URL: signing.SMTP_URL,
    };
    expect(() => loadConfig(production)).toThrow(
      /PROVENANCE_CERT_CHAIN is required in production[^]*PROVENANCE_PRIVATE_KEY is required in production/,
    );
    expect(() => loadConfig({ ...production, PROVENANCE_CERT_CHAIN: signing.PROVENANCE_CERT_CHAIN })).toThrow(
      /PROVENANCE_PRIVATE_KEY is required/,
    );
    // elsewhere (npm start without a certificate, tests) outputs may go unmarked, with a warning
    expect(loadConfig(base).PROVENANCE_CERT_CHAIN).toBeUndefined();
    // but never half a certificate
    expect(() => loadConfig({ ...base, PROVENANCE_PRIVATE_KEY: '/run/signer.key' })).toThrow(
      /PROVENANCE_CERT_CHAIN is required with the other/,
    );
  });

  it('refuses production without a mail server: verification and reset mails would be lost', () => {
    const production = { ...base, ...signing, NODE_ENV: 'production', SESSION_SECRET: 'x'.repeat(40) };
    expect(() => loadConfig({ ...production, SMTP_URL: undefined })).toThrow(
      /SMTP_URL is required in production/,
    );
    expect(() => loadConfig({ ...production, SMTP_URL: '' })).toThrow(/SMTP_URL is required in production/);
    expect(loadConfig({ ...base, SMTP_URL: '' }).SMTP_URL).toBeUndefined(); // elsewhere: mails to the log
  });

  it("refuses production with a test install's switches: no age check, the test card page", () => {
    const production = {
      ...base,
      ...signing,
      NODE_ENV: 'production',
      SESSION_SECRET: 'x'.repeat(40),
      SMTP_URL: 'smtp://mail:25',
    };
    expect(loadConfig(production).AGE_ASSURANCE).toBe('required');
    expect(() => loadConfig({ ...production, AGE_ASSURANCE: 'off' })).toThrow(
      /AGE_ASSURANCE cannot be off in production/,
    );
    const testCheckout = {
      STRIPE_TEST_CHECKOUT: 'true',
      STRIPE_SECRET_KEY: 'sk_test_localstudio',
      STRIPE_WEBHOOK_SECRET: 'whsec_x',
      STRIPE_API_URL: 'http://127.0.0.1:12111',
    };
    expect(() => loadConfig({ ...production, ...testCheckout })).toThrow(
      /STRIPE_TEST_CHECKOUT cannot be on in production/,
    );
    // a test install may run with both
    expect(loadConfig({ ...base, ...testCheckout, AGE_ASSURANCE: 'off' }).STRIPE_TEST_CHECKOUT).toBe(true);
  });

  it('reads TRUST_PROXY as Express trust-proxy values, refusing what proxy-addr would not accept', () => {
    expect(loadConfig(base).TRUST_PROXY).toBe(false);
    expect(loadConfig({ ...base, TRUST_PROXY: '2' }).TRUST_PROXY).toBe(2);
    expect(loadConfig({ ...base, TRUST_PROXY: 'loopback, 10.0.0.0/8' }).TRUST_PROXY).toEqual([
      'loopback',
      '10.0.0.0/8',
    ]);
    expect(() => loadConfig({ ...base, TRUST_PROXY: 'nginx' })).toThrow(/TRUST_PROXY must be false/);
    expect(() => loadConfig({ ...base, TRUST_PROXY: '10.0.0.0/99' })).toThrow(/TRUST_PROXY/);
  });
});
