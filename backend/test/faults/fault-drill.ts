import { createConnection, Types } from 'mongoose';
import sharp from 'sharp';

/**
 * A fault drill (issue 53): users submit jobs, a part of the stack fails for a while and returns,
 * and then what users were answered and what the books say are read back. The fault suite
 * (backend/test/faults/*.int-spec.ts) asserts on the report; `npm run bench -- faults` prints it.
 * It speaks to the API over HTTP and reads the database through a connection of its own, so it
 * also runs against an older build of the backend (the "before" column of the bench).
 */

/** What a drill needs of the running studio. */
export interface DrillTarget {
  /** The API's base URL (http://127.0.0.1:port). */
  url: string;
  /** The database the API uses (read after the fault for the money check). */
  mongoUri: string;
  /** Gives a user credits through the ledger, as support would. */
  grant(username: string, amount: number): Promise<void>;
}

/** A part failing: done by inject(), undone by restore() (which resolves once the part is back). */
export interface Fault {
  name: string;
  inject(): Promise<void>;
  restore(): Promise<void>;
}

export interface DrillOptions {
  /** The tool users submit (clone: a cheap local job; superResolution: the remote GPU engine's tool). */
  tool?: 'clone' | 'superResolution';
  users?: number;
  /** How long the part stays failed. */
  faultMs?: number;
  /** A request not answered within this long counts as a hang (and is given up). */
  answerTimeoutMs?: number;
  /** How long the studio may take to run a job after the return (a bound for a busy machine). */
  recoveryTimeoutMs?: number;
  /** Pause between one user's submissions (load pacing, not a wait for an event). */
  paceMs?: number;
  /** Called between the fault and the return (while the part is down), e.g. to start another worker. */
  whileDown?: () => Promise<void>;
}

export interface Answer {
  status: number; // 0: no answer (network error or timeout)
  ms: number;
  retryAfter?: string;
  message?: string;
  jobId?: string;
}

export interface UserBooks {
  username: string;
  /** Balance before the first job. */
  startBalance: number;
  balance: number;
  /**
   * The sum of the user's ledger entries that reached the balance: the applied ones, and the
   * pending ones whose key the account took (ledgerRecent) — applied, their announcement left to
   * the ledger's recovery pass while Redis was away (LedgerService.finalize).
   */
  ledgerSum: number;
  /** What the user's succeeded jobs cost (cost less any refund). */
  charged: number;
  /** Ledger entries still pending: taken by the account and not yet announced, or intents not taken. */
  pending: number;
}

export interface DrillReport {
  fault: string;
  /** Answers to submissions sent while the part was down. */
  during: Answer[];
  /** Answers to submissions sent before the fault and after the return. */
  around: Answer[];
  /** /api/health/ready statuses seen while the part was down (0: no answer within 2 s). */
  readiness: number[];
  /** From the return until a job submitted after it succeeded (undefined: none within the bound). */
  firstJobAfterReturnMs?: number;
  /** Jobs answered 200 (accepted). */
  accepted: number;
  /** How the users' jobs ended, e.g. { succeeded: 40, failed: 3 }. */
  endStates: Record<string, number>;
  /** Accepted jobs still queued or running once the drill gave up waiting. */
  unfinished: string[];
  /** Jobs whose ledger does not show one reservation and one capture or refund, or not settled. */
  settlement: string[];
  /** Jobs the database holds that no answer accepted, and that charged something. */
  chargedWithoutAcceptance: string[];
  books: UserBooks[];
}

const OPEN = new Set(['queued', 'running']);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A drill's verdicts, as the fault suite asserts them and the bench prints them. */
export function moneyHolds(report: DrillReport): boolean {
  return report.books.every((b) => b.balance === b.ledgerSum && b.balance === b.startBalance - b.charged);
}

/** An answer while a part is down is right when it is a success or a 503 that says when to retry. */
export function answeredTruthfully(answer: Answer): boolean {
  return answer.status === 200 || (answer.status === 503 && !!answer.retryAfter);
}

/** p-th percentile (0..100) of numbers, nearest rank. */
export function percentile(values: number[], p: number): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))];
}

/** Counts of each value, e.g. { '200': 12, '503': 30 } ('0' for no answer). */
export function tally(values: (number | string)[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[String(v)] = (counts[String(v)] ?? 0) + 1;
  return counts;
}

/** One line of what a drill saw, for a test's log and the bench. */
export function summarize(report: DrillReport): string {
  const ms = report.during.map((a) => a.ms);
  const statuses = tally(
    report.during.map((a) => (a.status === 503 && !a.retryAfter ? '503-no-retry-after' : a.status)),
  );
  return [
    `${report.fault}:`,
    `during: p50 ${percentile(ms, 50)} ms, max ${percentile(ms, 100)} ms, statuses ${JSON.stringify(statuses)};`,
    `ready: ${JSON.stringify(tally(report.readiness))};`,
    `first job after return: ${report.firstJobAfterReturnMs ?? 'none'} ms;`,
    `accepted ${report.accepted} (${JSON.stringify(report.endStates)}), unfinished ${report.unfinished.length}, settlement problems ${report.settlement.length},`,
    `charged unaccepted ${report.chargedWithoutAcceptance.length}; money ${moneyHolds(report) ? 'holds' : `DOES NOT HOLD ${JSON.stringify(report.books)}`}`,
  ].join(' ');
}

interface User {
  username: string;
  cookie: string;
}

export async function runDrill(
  target: DrillTarget,
  fault: Fault,
  options: DrillOptions = {},
): Promise<DrillReport> {
  const tool = options.tool ?? 'clone';
  const faultMs = options.faultMs ?? 10_000;
  const answerTimeoutMs = options.answerTimeoutMs ?? 6_000;
  const recoveryTimeoutMs = options.recoveryTimeoutMs ?? 120_000;
  const paceMs = options.paceMs ?? 400;
  const image = await sharp({ create: { width: 48, height: 48, channels: 3, background: '#4a7' } })
    .png()
    .toBuffer();

  const users: User[] = [];
  for (let i = 0; i < (options.users ?? 3); i++) {
    const user = await register(target.url, `drill${Date.now().toString(36)}${i}`);
    await target.grant(user.username, 500);
    users.push(user);
  }
  const startBalances = await Promise.all(users.map((u) => profileBalance(target.url, u)));

  const submit = async (user: User): Promise<Answer> => {
    const form = new FormData();
    form.set('author', user.username);
    if (tool === 'clone') form.set('amount', '1');
    form.set('original', new Blob([new Uint8Array(image)], { type: 'image/png' }), 'drill.png');
    const path = tool === 'clone' ? '/api/generateNoise' : '/api/superResolution';
    const started = Date.now();
    try {
      const res = await fetch(`${target.url}${path}`, {
        method: 'POST',
        headers: { cookie: user.cookie },
        body: form,
        signal: AbortSignal.timeout(answerTimeoutMs),
      });
      const body = (await res.json().catch(() => ({}))) as {
        message?: string;
        content?: { job?: { _id: string } };
      };
      return {
        status: res.status,
        ms: Date.now() - started,
        retryAfter: res.headers.get('retry-after') ?? undefined,
        message: typeof body.message === 'string' ? body.message : undefined,
        jobId: res.status === 200 ? body.content?.job?._id : undefined,
      };
    } catch (err) {
      return { status: 0, ms: Date.now() - started, message: (err as Error).name };
    }
  };

  // Every user submits one job and sees it succeed first: the studio is warm and working.
  const around: Answer[] = [];
  await Promise.all(
    users.map(async (user) => {
      const answer = await submit(user);
      around.push(answer);
      if (!answer.jobId)
        throw new Error(`warm-up submission answered ${answer.status} ${answer.message ?? ''}`);
      const state = await finalState(target.url, user, answer.jobId, recoveryTimeoutMs);
      if (state !== 'succeeded') throw new Error(`warm-up job ended ${state}`);
    }),
  );

  // Submissions go on through the fault. An answer counts as one "while down" when its request was
  // open at any time during the fault: one sent before and left hanging through it counts too.
  let phase: 'running' | 'during' | 'stop' = 'running';
  const sent: (Answer & { sentAt: number; answeredAt: number })[] = [];
  const loops = users.map(async (user) => {
    while (phase !== 'stop') {
      const sentAt = Date.now();
      const answer = await submit(user);
      sent.push({ ...answer, sentAt, answeredAt: Date.now() });
      await sleep(paceMs);
    }
  });
  const readiness: number[] = [];
  const probeReadiness = async () => {
    while (phase === 'during') {
      const status = await fetch(`${target.url}/api/health/ready`, {
        signal: AbortSignal.timeout(2_000),
      }).then(
        (res) => res.status,
        () => 0,
      );
      if (phase === 'during') readiness.push(status);
      await sleep(250);
    }
  };

  await sleep(paceMs * 2);
  const faultStart = Date.now();
  await fault.inject();
  phase = 'during';
  const probing = probeReadiness();
  await sleep(faultMs / 2);
  await options.whileDown?.();
  await sleep(faultMs / 2);
  phase = 'running';
  await probing;
  const faultEnd = Date.now();
  await fault.restore();
  const returned = Date.now();

  // The load stops at the return (what queued meanwhile stays queued, as it would). One more
  // submission shows the API takes jobs again; the first job to succeed after the return, whichever
  // it is (a worker drains its backlog first), times the recovery.
  phase = 'stop';
  await Promise.all(loops);
  const deadline = returned + recoveryTimeoutMs;
  for (;;) {
    const answer = await submit(users[0]);
    around.push(answer);
    if (answer.jobId || Date.now() > deadline) break;
    await sleep(250);
  }
  const during: Answer[] = [];
  for (const { sentAt, answeredAt, ...answer } of sent) {
    (sentAt <= faultEnd && answeredAt >= faultStart ? during : around).push(answer);
  }

  const acceptedIds = new Set([...during, ...around].flatMap((a) => (a.jobId ? [a.jobId] : [])));
  const conn = await createConnection(target.mongoUri).asPromise();
  try {
    const db = conn.db!;
    const accounts = await db
      .collection('accounts')
      .find({ username: { $in: users.map((u) => u.username) } })
      .toArray();
    const ids = accounts.map((a) => a._id as Types.ObjectId);
    let firstJobAfterReturnMs: number | undefined;
    while (firstJobAfterReturnMs === undefined && Date.now() < deadline) {
      const first = await db
        .collection('jobs')
        .find({ owner: { $in: ids }, state: 'succeeded', finishedAt: { $gte: new Date(returned) } })
        .sort({ finishedAt: 1 })
        .limit(1)
        .next();
      if (first) firstJobAfterReturnMs = (first.finishedAt as Date).getTime() - returned;
      else await sleep(100);
    }
    // Every accepted job ends (the workers may still be draining what queued during the fault).
    const jobsOf = () =>
      db
        .collection('jobs')
        .find({ owner: { $in: ids } })
        .toArray();
    let jobs = await jobsOf();
    const settleDeadline = Date.now() + recoveryTimeoutMs;
    while (jobs.some((j) => OPEN.has(j.state as string) || !j.settled) && Date.now() < settleDeadline) {
      await sleep(500);
      jobs = await jobsOf();
    }
    // The books are read once every job has settled: accounts read before the wait would miss a
    // refund that landed during it (the balance one short of the ledger that holds the refund).
    const settledAccounts = await db
      .collection('accounts')
      .find({ _id: { $in: ids } })
      .toArray();
    const ledger = await db
      .collection('ledger')
      .find({ userId: { $in: ids } })
      .toArray();

    const settlement: string[] = [];
    const chargedWithoutAcceptance: string[] = [];
    const chargedOf = (job: (typeof jobs)[number]) =>
      job.state === 'succeeded' ? (job.cost as number) - ((job.refunded as number | undefined) ?? 0) : 0;
    for (const job of jobs) {
      const id = String(job._id);
      if (OPEN.has(job.state as string)) continue; // listed as unfinished below
      const entries = ledger.filter((e) => e.jobId === id && e.state === 'applied');
      const reservations = entries.filter((e) => e.kind === 'reservation').length;
      const settles = entries.filter((e) => e.kind === 'capture' || e.kind === 'refund').length;
      if (reservations !== 1 || settles !== 1 || !job.settled) {
        settlement.push(
          `${id} ${job.state as string}: ${reservations} reservation(s), ${settles} settlement(s)`,
        );
      }
      if (!acceptedIds.has(id) && chargedOf(job) > 0) chargedWithoutAcceptance.push(id);
    }
    const books = users.map((user, i): UserBooks => {
      const account = settledAccounts.find((a) => a.username === user.username)!;
      const own = ledger.filter((e) => String(e.userId) === String(account._id));
      const taken = new Set((account.ledgerRecent as string[] | undefined) ?? []);
      return {
        username: user.username,
        startBalance: startBalances[i],
        balance: account.balance as number,
        ledgerSum: own
          .filter((e) => e.state === 'applied' || (e.state === 'pending' && taken.has(String(e._id))))
          .reduce((sum, e) => sum + (e.amount as number), 0),
        charged: jobs
          .filter((j) => String(j.owner) === String(account._id))
          .reduce((s, j) => s + chargedOf(j), 0),
        pending: own.filter((e) => e.state === 'pending').length,
      };
    });
    return {
      fault: fault.name,
      during,
      around,
      readiness,
      firstJobAfterReturnMs,
      accepted: acceptedIds.size,
      endStates: tally(jobs.map((j) => j.state as string)),
      unfinished: jobs
        .filter((j) => acceptedIds.has(String(j._id)) && OPEN.has(j.state as string))
        .map((j) => String(j._id)),
      settlement,
      chargedWithoutAcceptance,
      books,
    };
  } finally {
    await conn.close();
  }
}

async function register(url: string, username: string): Promise<User> {
  const password = 'correct-horse-9';
  const json = { 'content-type': 'application/json' };
  const reg = await fetch(`${url}/api/register`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ email: `${username}@example.com`, username, password, adult: true }),
  });
  if (reg.status !== 200) throw new Error(`register ${username}: ${reg.status} ${await reg.text()}`);
  const login = await fetch(`${url}/api/login`, {
    method: 'POST',
    headers: json,
    body: JSON.stringify({ username, password }),
  });
  if (login.status !== 200) throw new Error(`login ${username}: ${login.status} ${await login.text()}`);
  const cookie = login.headers
    .getSetCookie()
    .map((c) => c.split(';')[0])
    .join('; ');
  return { username, cookie };
}

async function profileBalance(url: string, user: User): Promise<number> {
  const res = await fetch(`${url}/api/getProfile/${user.username}`, { headers: { cookie: user.cookie } });
  return ((await res.json()) as { content: { balance: number } }).content.balance;
}

/** The job's state once it has ended (or 'open' when it has not by the deadline). */
async function finalState(url: string, user: User, jobId: string, timeoutMs: number): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const res = await fetch(`${url}/api/jobs/${jobId}`, {
      headers: { cookie: user.cookie },
      signal: AbortSignal.timeout(5_000),
    }).catch(() => undefined);
    if (res?.status === 200) {
      const job = ((await res.json()) as { content: { state: string; error?: string } }).content;
      if (!OPEN.has(job.state))
        return job.state === 'succeeded' ? job.state : `${job.state} (${job.error ?? ''})`;
    }
    await sleep(200);
  }
  return 'open';
}
