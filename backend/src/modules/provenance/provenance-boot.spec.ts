import { execFile, spawn } from 'node:child_process';
import { copyFile, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { loadConfig } from '../../config/app-config';
import { provenanceProblem } from './provenance.service';

/**
 * Production refuses to start when outputs could not be marked (boot.ts bootConfig): the real
 * provenance tool (.tools/provenance, lib.sh ensure_provenance_tools) against real certificates.
 */
const ROOT = path.join(__dirname, '../../../..');
const PYTHON = process.env.PROVENANCE_PYTHON ?? path.join(ROOT, '.tools', 'provenance', 'bin', 'python');
const run = promisify(execFile);

const production = (extra: Record<string, string>) =>
  loadConfig({
    MONGODB_URI: 'mongodb://127.0.0.1:1/none',
    REDIS_URL: 'redis://127.0.0.1:1',
    NODE_ENV: 'production',
    SESSION_SECRET: 's'.repeat(40),
    SMTP_URL: 'smtp://127.0.0.1:1',
    PROVENANCE_PYTHON: PYTHON,
    ...extra,
  });

describe('provenanceProblem (why production could not mark outputs)', () => {
  let dir: string;
  let good: Record<string, string>;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'provenance-boot-'));
    for (const name of ['a', 'b']) {
      await run('bash', [path.join(ROOT, 'deploy/local/make-signing-cert.sh'), path.join(dir, name), name]);
    }
    good = {
      PROVENANCE_CERT_CHAIN: path.join(dir, 'a/chain.pem'),
      PROVENANCE_PRIVATE_KEY: path.join(dir, 'a/signer.key'),
    };
  }, 60_000);

  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('is none when the tool signs with the configured certificate', async () => {
    expect(await provenanceProblem(production(good))).toBeUndefined();
  });

  it('names a certificate that is not there (not mounted)', async () => {
    const missing = { ...good, PROVENANCE_CERT_CHAIN: path.join(dir, 'nowhere/chain.pem') };
    expect(await provenanceProblem(production(missing))).toMatch(
      /PROVENANCE_CERT_CHAIN .*nowhere\/chain.pem cannot be read \(is the signing certificate mounted\?\)/,
    );
  });

  it('names a missing provenance tool', async () => {
    const config = production({ ...good, PROVENANCE_PYTHON: path.join(dir, 'no-venv/bin/python') });
    expect(await provenanceProblem(config)).toMatch(
      /the provenance tool is not installed: PROVENANCE_PYTHON .*no-venv\/bin\/python is missing/,
    );
  });

  it('reports a key that does not sign with the chain', async () => {
    const key = path.join(dir, 'other.key');
    await copyFile(path.join(dir, 'b/signer.key'), key);
    expect(await provenanceProblem(production({ ...good, PROVENANCE_PRIVATE_KEY: key }))).toMatch(
      /the provenance tool could not sign with the certificate: provenance process ended/,
    );
  });

  it('stops the real worker entry point with the reason, before it connects anywhere', async () => {
    const child = spawn(
      process.execPath,
      ['-r', 'ts-node/register', path.join(ROOT, 'backend/worker/src/main.ts')],
      {
        env: {
          ...process.env,
          TS_NODE_TRANSPILE_ONLY: 'true',
          TS_NODE_PROJECT: path.join(ROOT, 'tsconfig.json'),
          MONGODB_URI: 'mongodb://127.0.0.1:1/none',
          REDIS_URL: 'redis://127.0.0.1:1',
          NODE_ENV: 'production',
          SESSION_SECRET: 's'.repeat(40),
          SMTP_URL: 'smtp://127.0.0.1:1',
          PROVENANCE_PYTHON: PYTHON,
          PROVENANCE_CERT_CHAIN: path.join(dir, 'unmounted/chain.pem'),
          PROVENANCE_PRIVATE_KEY: path.join(dir, 'unmounted/signer.key'),
        },
        stdio: ['ignore', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(stderr).toMatch(
      /Refusing to start in production: outputs could not be marked: PROVENANCE_CERT_CHAIN .*unmounted\/chain.pem cannot be read/,
    );
    expect(code).toBe(78);
  }, 60_000);
});
