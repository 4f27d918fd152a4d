/**
 * The node test environment, plus the end-of-file check of connection-guard.ts: once the file's
 * last afterAll has run, connections it left open and commands sent on closed ones fail the
 * file (as errors outside any test), each naming where it came from.
 */
const { TestEnvironment } = require('jest-environment-node');

class GuardedEnvironment extends TestEnvironment {
  async handleTestEvent(event, state) {
    if (event.name !== 'run_finish') return;
    const guard = this.global.__connectionGuard;
    if (!guard) return;
    for (const error of await guard.atFileEnd()) state.unhandledErrors.push(error);
  }
}

module.exports = GuardedEnvironment;
