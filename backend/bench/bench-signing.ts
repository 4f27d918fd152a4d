import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..');
/** The provenance tools' Python (deploy/local/lib.sh ensure_provenance_tools). */
export const PROVENANCE_PYTHON = path.join(ROOT, '.tools', 'provenance', 'bin', 'python');
export const FACES_DIR =
  process.env.BENCH_FACES_DIR ?? path.resolve(ROOT, '..', 'shared', 'testdata', 'faces');

/** The test faces (JPEG, PNG) a bench needs at least `min` of. */
export function testFaceFiles(min: number): string[] {
  const files = (existsSync(FACES_DIR) ? readdirSync(FACES_DIR) : [])
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .map((f) => path.join(FACES_DIR, f));
  if (files.length < min) throw new Error(`need the test faces in ${FACES_DIR} (BENCH_FACES_DIR)`);
  return files;
}

/** A development signing certificate made in `dir/ca` (make-signing-cert.sh), as a marker's settings. */
export async function benchSigning(
  dir: string,
): Promise<{ python: string; certChain: string; privateKey: string }> {
  await promisify(execFile)('bash', [
    path.join(ROOT, 'deploy', 'local', 'make-signing-cert.sh'),
    path.join(dir, 'ca'),
    'Bench',
  ]);
  return {
    python: PROVENANCE_PYTHON,
    certChain: path.join(dir, 'ca', 'chain.pem'),
    privateKey: path.join(dir, 'ca', 'signer.key'),
  };
}
