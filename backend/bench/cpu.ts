import { readdirSync, readFileSync } from 'node:fs';

/** CPU time in ms, by process: this one (the app and the bench's own clients), FerretDB, Redis. */
export interface CpuSample {
  node: number;
  database: number;
  redis: number;
}

const TICKS_PER_MS = 100 / 1000; // USER_HZ is 100 on Linux

/** user + system CPU of a process in ms, from /proc (0 when it is gone). */
function processCpuMs(pid: number): number {
  try {
    // Fields after the command's closing parenthesis: state is 3rd, utime 14th, stime 15th.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_MS;
  } catch {
    return 0;
  }
}

/** Local processes whose command line (arguments joined by spaces) passes `test`. */
function pidsWhere(test: (cmdline: string) => boolean): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (test(readFileSync(`/proc/${entry}/cmdline`, 'utf8').replace(/\0/g, ' '))) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

const portOf = (uri: string | undefined) => (uri ? new URL(uri).port : '');

/**
 * Reads the CPU used so far by this process and by the FerretDB and Redis serving MONGODB_URI
 * and REDIS_URL on this machine (found by their port on the command line; 0 for a remote one).
 */
export function cpuMeter(): () => CpuSample {
  const mongoPort = portOf(process.env.MONGODB_URI);
  const redisPort = portOf(process.env.REDIS_URL);
  // lib.sh starts them as `studio-ferretdb --listen-addr 127.0.0.1:PORT` and `redis-server --port
  // PORT` (which Redis shows as `redis-server 127.0.0.1:PORT`).
  const database = mongoPort
    ? pidsWhere((cmd) => cmd.includes(`studio-ferretdb --listen-addr 127.0.0.1:${mongoPort} `))
    : [];
  const redis = redisPort
    ? pidsWhere((cmd) => cmd.startsWith('redis-server') && new RegExp(`[: ]${redisPort}( |$)`).test(cmd))
    : [];
  const sum = (pids: number[]) => pids.reduce((total, pid) => total + processCpuMs(pid), 0);
  return () => {
    const own = process.cpuUsage();
    return { node: (own.user + own.system) / 1000, database: sum(database), redis: sum(redis) };
  };
}

/** CPU ms per job of each process between two samples. */
export function cpuPerJob(before: CpuSample, after: CpuSample, jobs: number): CpuSample {
  return {
    node: (after.node - before.node) / jobs,
    database: (after.database - before.database) / jobs,
    redis: (after.redis - before.redis) / jobs,
  };
}
