import { grantCredits } from '../clients';
import type { TestApp } from '../test-app';
import { answeredTruthfully, summarize, type DrillReport, type DrillTarget } from './fault-drill';

/** A test app as a drill's target. */
export function drillTarget(t: TestApp): DrillTarget {
  return {
    url: t.url,
    mongoUri: t.config.MONGODB_URI,
    grant: async (username, amount) => void (await grantCredits(t, username, amount)),
  };
}

/** The settings a drill's app runs with: answers at once (no wait for the job), no per-minute job cap. */
export const DRILL_APP_SETTINGS = { JOB_WAIT_MS: '0', JOB_RATE_LIMIT_PER_MINUTE: '1000' };

/**
 * A bound that only ends a drill that would never finish (warm-up, fault, recovery and draining
 * each have runDrill's own bounds): a busy machine is slow, and slow is not wrong.
 */
export const DRILL_TEST_TIMEOUT_MS = 420_000;

/**
 * What every fault must leave (issue 53): each answer while the part was down a success or a 503
 * with Retry-After, a job that succeeds after the return, every accepted job ended once with one
 * reservation and one capture or refund, nothing charged that was not accepted, and every balance
 * equal to its ledger sum and to what it started at less what the succeeded jobs cost.
 */
export function expectSurvived(report: DrillReport, readiness: 'not_ready' | 'ready'): void {
  console.log(summarize(report));
  expect(report.during.length).toBeGreaterThan(0);
  expect(report.during.filter((a) => !answeredTruthfully(a))).toEqual([]);
  if (readiness === 'not_ready') expect(report.readiness).toContain(503);
  else expect(report.readiness.filter((status) => status !== 200)).toEqual([]);
  expect(report.firstJobAfterReturnMs).toBeDefined();
  expect(report.unfinished).toEqual([]);
  expect(report.settlement).toEqual([]);
  expect(report.chargedWithoutAcceptance).toEqual([]);
  for (const books of report.books) {
    expect({ ...books, ledgerSum: books.balance, charged: books.startBalance - books.balance }).toEqual(
      books,
    );
  }
}
