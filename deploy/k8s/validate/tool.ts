import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where the validator's sources are, and where it is built (the repository's .tools/bin). */
export const repoRoot = join(__dirname, '../../..');
const sources = __dirname;
export const validatorPath = join(repoRoot, '.tools/bin/k8s-validate');

/** The Go build may download modules and compile k8s.io/api once (about a minute on a cold cache). */
export const BUILD_TIMEOUT_MS = 300_000;

/**
 * Builds deploy/k8s/validate into .tools/bin/k8s-validate when it is missing or older than its
 * sources. Built under a temporary name and renamed, so parallel test files never run half a file.
 */
export function ensureValidator(): string {
  const newestSource = Math.max(
    ...readdirSync(sources)
      .filter((name) => /\.go$|^go\.(mod|sum)$/.test(name))
      .map((name) => statSync(join(sources, name)).mtimeMs),
  );
  if (existsSync(validatorPath) && statSync(validatorPath).mtimeMs >= newestSource) return validatorPath;
  mkdirSync(join(repoRoot, '.tools/bin'), { recursive: true });
  const temporary = `${validatorPath}.${process.pid}.tmp`;
  execFileSync('go', ['build', '-o', temporary, '.'], {
    cwd: sources,
    env: { ...process.env, GOFLAGS: '-mod=mod -buildvcs=false' },
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: BUILD_TIMEOUT_MS,
  });
  renameSync(temporary, validatorPath);
  return validatorPath;
}

export interface RunResult {
  status: number;
  stdout: string;
  stderr: string;
}

/** Runs the validator; a non-zero exit is returned, not thrown. */
export function runValidator(args: string[], input?: string): RunResult {
  try {
    const stdout = execFileSync(validatorPath, args, {
      input,
      encoding: 'utf8',
      stdio: ['pipe', 'pipe', 'pipe'],
      maxBuffer: 64 * 1024 * 1024,
    });
    return { status: 0, stdout, stderr: '' };
  } catch (error) {
    const failure = error as { status?: number; stdout?: string; stderr?: string };
    return { status: failure.status ?? 1, stdout: failure.stdout ?? '', stderr: failure.stderr ?? '' };
  }
}

/** Any YAML document as a plain value, through the same Go YAML library Kubernetes uses. */
export function yamlToJson<T = unknown>(yaml: string): T {
  const result = runValidator(['-yaml2json'], yaml);
  if (result.status !== 0) throw new Error(`not YAML: ${result.stderr}`);
  return JSON.parse(result.stdout) as T;
}
