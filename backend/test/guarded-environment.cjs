/**
 * The node test environment, plus the end-of-file check of connection-guard.ts: once the file's
 * last afterAll has run, connections it left open and commands sent on closed ones fail the
 * file (as errors outside any test), each naming where it came from. Handles the file left
 * running are counted too (leftover-handles.cjs).
 */
const { TestEnvironment } = require('jest-environment-node');
const { withLeftoverHandles } = require('../../deploy/local/leftover-handles.cjs');

class GuardedEnvironment extends withLeftoverHandles(TestEnvironment) {
  async handleTestEvent(event, state) {
    if (event.name !== 'run_finish') return;
    const guard = this.global.__connectionGuard;
    if (!guard) return;
    for (const error of await guard.atFileEnd()) state.unhandledErrors.push(error);
  }
}

module.exports = GuardedEnvironment;
