import type { AppConfig } from './config/app-config';

/**
 * The bound on a stopping API or worker process (their main.ts). Nest's shutdown closes every
 * module in turn, and a close can wait for a part that does not answer: a Redis that is down or
 * frozen, a database that is gone. Past the deadline the process exits by itself, saying so,
 * instead of waiting for them; what it leaves is what a crash leaves, and is recovered the same way.
 * npm start (SHUTDOWN_GRACE_MS 2 s there) stops everything within 10 s of Ctrl-C; the orchestrators'
 * grace periods (compose, Kubernetes) are set above SHUTDOWN_GRACE_MS.
 */

/** What closing the connections may take, after the running jobs' SHUTDOWN_GRACE_MS. */
export const SHUTDOWN_CLOSE_MS = 3_000;

/** The deadline of a process: closing, and first the running jobs' grace where it runs jobs. */
export function shutdownDeadlineMs(config: Pick<AppConfig, 'SHUTDOWN_GRACE_MS'>, runsJobs: boolean): number {
  return (runsJobs ? config.SHUTDOWN_GRACE_MS : 0) + SHUTDOWN_CLOSE_MS;
}

/** Exit status of a process that did not finish its shutdown in time (EX_SOFTWARE). */
export const SHUTDOWN_OVERDUE_STATUS = 70;

const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * From the first SIGTERM, SIGINT or SIGHUP on, the process has `ms` to end; then `log` is called
 * and it exits with SHUTDOWN_OVERDUE_STATUS. A signal that arrives while nobody else listens for
 * it (before Nest's enableShutdownHooks) gets its default action, the process ending at once, as it
 * would without this. The timer never keeps the process alive.
 */
export function exitAfterShutdownDeadline(ms: number, log: (message: string) => void): void {
  const onSignal = (signal: NodeJS.Signals) => {
    for (const name of SHUTDOWN_SIGNALS) process.removeListener(name, onSignal);
    if (process.listenerCount(signal) === 0) {
      process.kill(process.pid, signal);
      return;
    }
    setTimeout(() => {
      log(`shutdown did not finish within ${ms / 1000} s of ${signal}; exiting without waiting for the rest`);
      process.exit(SHUTDOWN_OVERDUE_STATUS);
    }, ms).unref();
  };
  for (const name of SHUTDOWN_SIGNALS) process.on(name, onSignal);
}
