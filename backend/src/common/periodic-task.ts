/**
 * Work an app repeats on a timer (recoveries, sweeps, relays): one run at a time, and stop()
 * resolves only once the run in flight has ended, so nothing it started reaches the database or
 * Redis after the app has closed them. `run` reports its own failures.
 */
export class PeriodicTask {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private stopped = false;

  constructor(private readonly run: () => Promise<void>) {}

  /** Runs every `everyMs` (and once at once with `now`); the timer never keeps a process alive. */
  start(everyMs: number, { now = false } = {}): void {
    // a task stopped and started again (a module shut down and bootstrapped again) runs again
    this.stopped = false;
    clearInterval(this.timer);
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
    if (now) void this.tick();
  }

  /** Runs now, or joins the run in flight. */
  tick(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    this.running ??= this.run()
      .catch(() => undefined)
      .finally(() => (this.running = undefined));
    return this.running;
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }
}
