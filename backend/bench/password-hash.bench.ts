/**
 * npm run bench -- password: CPU time of one password hash (what a login costs the server, and an
 * attacker per guess) at the configured default PASSWORD_SCRYPT_LOG_N, beside the former default
 * 2^17 and raw crypto.scryptSync at the same parameters, measured in the same run. No services.
 */
import { scryptSync, randomBytes } from 'node:crypto';
import { loadConfig } from '../src/config/app-config';
import { PasswordHasher } from '../src/modules/accounts/password-hasher';

const RUNS = 5;
const BLOCK_SIZE = 8;

/** Median CPU milliseconds (user + system) of one call. */
async function cpuMs(op: () => unknown): Promise<number> {
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i += 1) {
    const start = process.cpuUsage();
    await op();
    const used = process.cpuUsage(start);
    samples.push((used.user + used.system) / 1000);
  }
  return samples.sort((a, b) => a - b)[Math.floor(RUNS / 2)];
}

async function main() {
  const { PASSWORD_SCRYPT_LOG_N: configured } = loadConfig({
    MONGODB_URI: 'mongodb://unused',
    REDIS_URL: 'redis://unused',
    ...process.env,
  });
  console.log(`password hash (scrypt, r=${BLOCK_SIZE}, p=1), median CPU of ${RUNS} on this machine:`);
  for (const logN of [configured, 17]) {
    const N = 2 ** logN;
    const memoryMiB = (128 * BLOCK_SIZE * N) / 2 ** 20;
    const hasher = new PasswordHasher(logN);
    const hashed = await cpuMs(() => hasher.hash('correct-horse-9'));
    const salt = randomBytes(16);
    const raw = await cpuMs(() =>
      scryptSync('correct-horse-9', salt, 32, { N, r: BLOCK_SIZE, p: 1, maxmem: 256 * N * BLOCK_SIZE }),
    );
    const label = logN === configured ? 'default' : 'former default';
    console.log(
      `  2^${logN} (${label}): PasswordHasher.hash ${hashed.toFixed(0)} ms CPU, raw scryptSync ${raw.toFixed(0)} ms; ` +
        `${memoryMiB} MiB per guess, ${((memoryMiB * hashed) / 1000).toFixed(1)} MiB·s per guess`,
    );
  }
}

void main();
