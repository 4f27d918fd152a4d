import { performance } from 'node:perf_hooks';

/** The value at fraction `p` (0..1) of an ascending list. */
export const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))];

/**
 * Runs `op` `runs` times in a row: p50 and p99 latency in ms, and what the last run returned
 * (response bytes, where the op measures them).
 */
export async function time(runs: number, op: () => Promise<number | unknown>) {
  const latencies: number[] = [];
  let last: unknown;
  for (let i = 0; i < runs; i += 1) {
    const t0 = performance.now();
    last = await op();
    latencies.push(performance.now() - t0);
  }
  latencies.sort((a, b) => a - b);
  return {
    p50: percentile(latencies, 0.5),
    p99: percentile(latencies, 0.99),
    bytes: typeof last === 'number' ? last : 0,
  };
}
