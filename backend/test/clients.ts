import request from 'supertest';
import { io, type Socket } from 'socket.io-client';
import { isOpenJobState, SocketEvents, type JobView } from '@studio/contracts';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository';
import { LedgerService } from '../src/modules/billing/ledger.service';
import type { TestApp } from './test-app';

export const PASSWORD = 'correct-horse-9';

let counter = 0;
/** A fresh, valid user name for this test run. */
export function uniqueName(prefix = 'user'): string {
  counter += 1;
  return `${prefix}${Date.now().toString(36)}${counter}`;
}

export async function register(t: TestApp, username: string, password = PASSWORD) {
  return request(t.url)
    .post('/api/register')
    .send({ email: `${username}@example.com`, username, password, adult: true });
}

/**
 * Marks the user's email as verified, as opening the mailed link does (card payments need it);
 * the link itself is tested in accounts/account.int-spec.ts and frontend/e2e/account.e2e-spec.ts.
 */
export async function markEmailVerified(t: TestApp, username: string): Promise<void> {
  const accounts = t.app.get(AccountsRepository);
  const account = await accounts.findByUsername(username);
  if (!account) throw new Error(`no account ${username}`);
  await accounts.setEmailVerified(account.id);
}

/** Registers (when needed) and logs in; returns an agent that keeps the session cookie. */
export async function signIn(t: TestApp, username = uniqueName(), password = PASSWORD) {
  const agent = request.agent(t.url);
  const reg = await register(t, username, password);
  if (reg.status !== 200 && reg.status !== 409)
    throw new Error(`register failed: ${reg.status} ${JSON.stringify(reg.body)}`);
  const login = await agent.post('/api/login').send({ username, password });
  if (login.status !== 200) throw new Error(`login failed: ${login.status} ${JSON.stringify(login.body)}`);
  const cookie = (login.headers['set-cookie'] as unknown as string[]).map((c) => c.split(';')[0]).join('; ');
  return { agent, cookie, username };
}

/** A socket.io client; resolves once the server says the socket has joined its rooms. */
export function connectSocket(
  t: TestApp,
  cookie?: string,
  headers: Record<string, string> = {},
): Promise<Socket> {
  const socket = io(t.url, {
    transports: ['websocket'],
    extraHeaders: { ...headers, ...(cookie ? { cookie } : {}) },
    reconnection: false,
  });
  return new Promise((resolve, reject) => {
    socket.once(SocketEvents.ready, () => resolve(socket));
    socket.once('connect_error', (err) => {
      socket.close();
      reject(err);
    });
  });
}

/**
 * Polls until the check passes (the worker consumes events asynchronously). The bound only ends a
 * test that would never pass: it is wide, since a busy machine is slow and slow is not wrong.
 */
export async function eventually<T>(check: () => Promise<T>, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  while (Date.now() < deadline) {
    try {
      return await check();
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
  throw lastError;
}

/** What a tool submission came to: 200 with the first result's address, or 422 with the job's message. */
export interface SubmissionOutcome {
  status: number;
  url?: string;
  error?: string;
  job?: JobView;
}

/**
 * How a tool submission ended, whether it ended within the request's own wait (JOB_WAIT_MS, then
 * the answer says so) or after it: a busy machine runs past the wait, and the answer is then
 * 200 'processing', so the job's end is read from GET /api/jobs/:id instead.
 */
export async function outcomeOf(client: Client, res: request.Response): Promise<SubmissionOutcome> {
  if (res.status !== 200) return { status: res.status, error: String(res.body?.content ?? '') };
  if (res.body.message !== 'processing')
    return { status: 200, url: res.body.content.url, job: res.body.content.job };
  const id = res.body.content.job._id as string;
  const job = await eventually(async () => {
    const view = (await client.agent.get(`/api/jobs/${id}`)).body.content as JobView;
    if (isOpenJobState(view.state)) throw new Error(`job ${id} is still ${view.state}`);
    return view;
  }, 170_000);
  return job.state === 'succeeded'
    ? { status: 200, url: job.items[0]?.url, job }
    : { status: 422, error: job.error ?? '', job };
}

/** The account id of a username (no balance change, so no balance.changed event). */
export async function accountIdOf(t: TestApp, username: string): Promise<string> {
  const account = await t.app.get(AccountsRepository).findByUsername(username);
  if (!account) throw new Error(`no account ${username}`);
  return account.id;
}

/** Gives a user credits through the ledger (as support would); returns the user's account id. */
export async function grantCredits(t: TestApp, username: string, amount: number): Promise<string> {
  const userId = await accountIdOf(t, username);
  const outcome = await t.app.get(LedgerService).credit({
    key: `test-grant:${username}:${Date.now()}:${Math.random()}`,
    userId,
    username,
    kind: 'grant',
    amount,
    reason: 'test grant',
  });
  if (!outcome.ok) throw new Error(`grant failed: ${outcome.reason}`);
  return userId;
}

/** Spends `amount` of a user's credits on `tool` as a finished job does: reserve under `key`, then capture. */
export async function spendOnTool(
  t: TestApp,
  spender: { userId: string; username: string },
  spend: { key: string; tool: string; amount: number; reason: string },
): Promise<void> {
  const ledger = t.app.get(LedgerService);
  const { key, tool, amount, reason } = spend;
  const reserved = await ledger.reserve({ ...spender, key, amount, reason, tool, jobId: key });
  if (!reserved.ok) throw new Error(`spend ${key} refused: ${reserved.reason}`);
  if (!(await ledger.capture(key))) throw new Error(`spend ${key} not captured`);
}

/** Resolves with the next payload of a socket event. */
export function nextEvent<T = unknown>(socket: Socket, event: string, timeoutMs = 30_000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    socket.once(event, (payload: T) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

export type Client = Awaited<ReturnType<typeof signIn>>;

/** The client's balance as its profile shows it. */
export async function balanceOf(client: Client): Promise<number> {
  return (await client.agent.get(`/api/getProfile/${client.username}`)).body.content.balance as number;
}

/** The kinds of the client's credit-history entries for one job, sorted ('capture', 'reservation'...). */
export async function ledgerKindsOf(client: Client, jobId: string): Promise<string[]> {
  const history = (await client.agent.get('/api/credits/history')).body.content.items as {
    kind: string;
    jobId?: string;
  }[];
  return history
    .filter((h) => h.jobId === jobId)
    .map((h) => h.kind)
    .sort();
}

/** Makes a folder as the client; returns its id. */
export async function makeFolder(client: Client, title: string): Promise<string> {
  return (await client.agent.post('/api/makeFolder').send({ author: client.username, title })).body.content
    ._id as string;
}

/** The bytes behind an API url (content items), as the client. */
export async function downloadBytes(client: Client, url: string): Promise<Buffer> {
  const res = await client.agent
    .get(url)
    .buffer(true)
    .parse((stream, done) => {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => done(null, Buffer.concat(chunks)));
    });
  return res.body as Buffer;
}

/** A socket event as a test saw it. */
export type SeenEvent = { name: string; payload: Record<string, unknown> };

/** Records every one of these events the socket receives, in order. */
export function recordEvents(socket: Socket, names: readonly string[]): SeenEvent[] {
  const seen: SeenEvent[] = [];
  for (const name of names) {
    socket.on(name, (payload: Record<string, unknown>) => seen.push({ name, payload }));
  }
  return seen;
}
