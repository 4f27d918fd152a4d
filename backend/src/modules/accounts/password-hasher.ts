import { randomBytes, scrypt as scryptCallback, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scrypt = promisify(scryptCallback) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;

const KEY_LENGTH = 32;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;

/**
 * scrypt from Node's crypto (no native add-on to build). The parameters are stored with each hash
 * as `scrypt$logN$r$p$salt$hash`, so the cost can change later without breaking old hashes:
 * `needsRehash` says when a stored hash was made with other parameters than the configured ones,
 * and the login then stores a fresh hash of the password it just verified.
 */
export class PasswordHasher {
  constructor(private readonly logN: number) {}

  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, this.logN, BLOCK_SIZE, PARALLELISM);
    return [
      'scrypt',
      this.logN,
      BLOCK_SIZE,
      PARALLELISM,
      salt.toString('base64'),
      key.toString('base64'),
    ].join('$');
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const [scheme, logN, r, p, salt, key] = stored.split('$');
    if (scheme !== 'scrypt' || !salt || !key) return false;
    const expected = Buffer.from(key, 'base64');
    const actual = await derive(password, Buffer.from(salt, 'base64'), Number(logN), Number(r), Number(p));
    return actual.length === expected.length && timingSafeEqual(actual, expected);
  }

  /** True when `stored` was not made with this hasher's scheme and parameters (cheaper or dearer). */
  needsRehash(stored: string): boolean {
    const [scheme, logN, r, p] = stored.split('$');
    return (
      scheme !== 'scrypt' ||
      Number(logN) !== this.logN ||
      Number(r) !== BLOCK_SIZE ||
      Number(p) !== PARALLELISM
    );
  }
}

function derive(password: string, salt: Buffer, logN: number, r: number, p: number): Promise<Buffer> {
  const N = 2 ** logN;
  return scrypt(password.normalize('NFKC'), salt, KEY_LENGTH, { N, r, p, maxmem: 256 * N * r });
}
