import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

/** The compose file is validated by the compose client itself (no engine needed for `config`). */
describe('docker-compose.yml', () => {
  const file = join(__dirname, '../../docker-compose.yml');
  const run = (env: Record<string, string>) =>
    execFileSync('docker-compose', ['-f', file, 'config'], {
      env: { PATH: process.env.PATH ?? '', ...env },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });

  it('is valid and runs mongo, redis, the API and a worker', () => {
    const out = run({ SESSION_SECRET: 's'.repeat(40), ADMIN_PASSWORD: 'admin-password' });
    for (const service of ['mongo:', 'redis:', 'api:', 'worker:']) expect(out).toContain(`  ${service}`);
    expect(out).toContain('MONGODB_URI: mongodb://mongo:27017/studio');
    expect(out).toMatch(/WORKER_INLINE: ['"]false['"]/);
  });

  it('refuses to run without the production secrets', () => {
    expect(() => run({})).toThrow(/SESSION_SECRET/);
  });
});
