import { readFileSync } from 'node:fs';
import { childrenByParent } from '../test/process-tree';

/** Resident memory of one process (VmRSS), 0 when it is gone. */
export function rssOf(pid: number): number {
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) * 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident memory of a process and all its descendants (the provenance child, ffmpeg …). */
export function treeRss(pid: number): number {
  return sumTree(pid, () => true);
}

/** Resident memory of the descendants of `pid` (itself included) whose command line matches. */
export function treeRssOf(pid: number, command: RegExp): number {
  return sumTree(pid, (p) => {
    try {
      return command.test(readFileSync(`/proc/${p}/cmdline`, 'utf8'));
    } catch {
      return false;
    }
  });
}

function sumTree(pid: number, counts: (pid: number) => boolean): number {
  const children = childrenByParent();
  const walk = (p: number): number =>
    (counts(p) ? rssOf(p) : 0) + (children.get(p) ?? []).reduce((n, c) => n + walk(c), 0);
  return walk(pid);
}

/** Peak of `measure(pid)` while `load` runs, sampled every 5 ms. */
export async function peakDuring(
  pid: number,
  load: () => Promise<unknown>,
  measure: (pid: number) => number = rssOf,
): Promise<number> {
  let peak = measure(pid);
  const timer = setInterval(() => (peak = Math.max(peak, measure(pid))), 5);
  try {
    await load();
  } finally {
    clearInterval(timer);
  }
  return Math.max(peak, measure(pid));
}
