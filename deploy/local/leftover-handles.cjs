/**
 * What a test file leaves running that would keep its jest worker process alive: the ref'd
 * handles (servers, sockets, child processes, timers) active after the file's teardown that were
 * not active before it began. Jest only says "A worker process has failed to exit gracefully" at
 * the end of the run, without naming the file; this names it. With TEST_HANDLE_LOG=<file>, one
 * JSON line per file that left something.
 */
const { appendFileSync } = require('node:fs');
const { relative } = require('node:path');

function counts() {
  const byType = {};
  for (const type of process.getActiveResourcesInfo()) byType[type] = (byType[type] ?? 0) + 1;
  return byType;
}

function grownSince(before) {
  const grown = {};
  for (const [type, n] of Object.entries(counts()))
    if (n > (before[type] ?? 0)) grown[type] = n - (before[type] ?? 0);
  return grown;
}

/**
 * With TEST_HANDLE_STACKS set: where each timer the file's code set was set, until it fires or is
 * cleared (setTimeout and setInterval of the file's global, which its modules use).
 */
function traceTimers(global) {
  const live = new Map();
  for (const [set, clear, once] of [
    ['setTimeout', 'clearTimeout', true],
    ['setInterval', 'clearInterval', false],
  ]) {
    const original = global[set];
    const originalClear = global[clear];
    global[set] = function (callback, ...rest) {
      const where = new Error().stack.split('\n').slice(2, 9).join('\n');
      const fired = function (...args) {
        live.delete(timer);
        return callback.apply(this, args);
      };
      const timer = original.call(this, once && typeof callback === 'function' ? fired : callback, ...rest);
      live.set(timer, where);
      return timer;
    };
    global[clear] = function (timer) {
      live.delete(timer);
      return originalClear.call(this, timer);
    };
  }
  return live;
}

/** The environment class with the handle count around each file. */
function withLeftoverHandles(Base) {
  return class extends Base {
    constructor(config, context) {
      super(config, context);
      this.testPath = context.testPath;
      this.rootDir = config.globalConfig?.rootDir ?? config.projectConfig?.rootDir ?? process.cwd();
    }

    async setup() {
      await super.setup();
      this.handlesBefore = counts();
      if (process.env.TEST_HANDLE_STACKS) this.liveTimers = traceTimers(this.global);
    }

    async teardown() {
      await super.teardown();
      const log = process.env.TEST_HANDLE_LOG;
      if (!log) return;
      // Closing sockets and exiting children finish on the next turns of the loop: a second look,
      // only for a file that seems to have left something (most files leave nothing).
      if (Object.keys(grownSince(this.handlesBefore)).length === 0) return;
      await new Promise((resolve) => setTimeout(resolve, 200));
      const grown = grownSince(this.handlesBefore);
      if (Object.keys(grown).length === 0) return;
      const timers =
        this.liveTimers && [...this.liveTimers].filter(([t]) => t.hasRef?.()).map(([, where]) => where);
      const row = { file: relative(this.rootDir, this.testPath), pid: process.pid, grown, timers };
      appendFileSync(log, `${JSON.stringify(row)}\n`);
    }
  };
}

module.exports = { withLeftoverHandles };
