/**
 * Where a jest run's time goes: one JSON line per test file as it ends (project, path, seconds,
 * tests, status) in test-results/timings.jsonl (TEST_TIMINGS_FILE), and at the end each project's
 * total and the ten slowest files, beside the load average while it ran.
 */
const { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } = require('node:fs');
const { dirname, join, relative } = require('node:path');
const { loadavg } = require('node:os');

class TimingReporter {
  constructor(globalConfig) {
    this.root = globalConfig.rootDir;
    this.file = process.env.TEST_TIMINGS_FILE ?? join(this.root, 'test-results/timings.jsonl');
    this.rows = [];
    this.loads = [];
  }

  onRunStart() {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, '');
    if (process.env.TEST_HANDLE_LOG) writeFileSync(process.env.TEST_HANDLE_LOG, '');
    this.started = Date.now();
    this.sampler = setInterval(() => this.loads.push(loadavg()[0]), 15_000).unref();
  }

  onTestResult(test, result) {
    const row = {
      project: test.context.config.displayName?.name ?? '',
      file: relative(this.root, result.testFilePath),
      seconds: (result.perfStats.end - result.perfStats.start) / 1000,
      tests: result.numPassingTests + result.numFailingTests,
      failed: result.numFailingTests + (result.testExecError ? 1 : 0),
      load: Number(loadavg()[0].toFixed(2)),
    };
    this.rows.push(row);
    appendFileSync(this.file, `${JSON.stringify(row)}\n`);
  }

  onRunComplete() {
    clearInterval(this.sampler);
    if (!this.rows.length) return;
    const wall = (Date.now() - this.started) / 1000;
    const loads = this.loads.length ? this.loads : [loadavg()[0]];
    const mean = loads.reduce((a, b) => a + b, 0) / loads.length;
    const byProject = new Map();
    for (const r of this.rows) {
      const p = byProject.get(r.project) ?? { files: 0, seconds: 0 };
      byProject.set(r.project, { files: p.files + 1, seconds: p.seconds + r.seconds });
    }
    const lines = [
      `\ntest time: ${wall.toFixed(0)} s wall, load average ${mean.toFixed(1)} mean (${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)})`,
      ...[...byProject].map(
        ([p, v]) =>
          `  ${p.padEnd(12)} ${String(v.files).padStart(4)} files ${v.seconds.toFixed(0).padStart(6)} s`,
      ),
      'slowest files:',
      ...[...this.rows]
        .sort((a, b) => b.seconds - a.seconds)
        .slice(0, 10)
        .map((r) => `  ${r.seconds.toFixed(1).padStart(7)} s  ${r.project.padEnd(12)} ${r.file}`),
      ...this.leftoverHandles(),
    ];
    process.stderr.write(`${lines.join('\n')}\n`);
  }

  /** The files that left handles running (deploy/local/leftover-handles.cjs), which keep a worker from exiting. */
  leftoverHandles() {
    const log = process.env.TEST_HANDLE_LOG;
    if (!log || !existsSync(log)) return [];
    const rows = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line));
    if (!rows.length) return ['no file left a handle running'];
    return [
      `${rows.length} file(s) left handles running (${log}):`,
      ...rows.map(
        (r) =>
          `  ${r.file}: ${Object.entries(r.grown)
            .map(([t, n]) => `${t} x${n}`)
            .join(', ')}`,
      ),
    ];
  }
}

module.exports = TimingReporter;
