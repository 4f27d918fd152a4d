/**
 * Every test file of the node projects runs with this (jest setupFilesAfterEnv): it keeps a
 * register of the Redis and MongoDB connections the file opens, with where each was opened and
 * by which test app, so that
 * - a test app whose close() leaves one of its connections open fails that close() (test-app.ts),
 * - a connection still open when the file ends, or a command sent on one already closed (work
 *   that outlived its app), fails the file, naming where the connection was opened and where the
 *   command came from (reported by guarded-environment.cjs once every afterAll has run),
 * - "Connection is closed." errors carry where their command was sent and their connection opened.
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import Redis from 'ioredis';
import mongoose from 'mongoose';

interface Opening {
  where: string;
  /** The test running when it was opened ('' for hooks). */
  test: string;
  /** The test app it belongs to, when one opened it. */
  app?: number;
}

const appContext = new AsyncLocalStorage<number>();
const liveRedis = new Map<Redis, Opening>();
/** Where closed connections were opened, for the report of a command sent on one later. */
const closedOpenings = new WeakMap<Redis, Opening>();
const mongoOpenings = new WeakMap<mongoose.Connection, Opening>();
const lateWork: { message: string; where: string }[] = [];
let nextApp = 1;

function currentTest(): string {
  return expect.getState().currentTestName ?? '';
}

/** The caller's frames, without this file's and the driver's. */
function stackHere(): string {
  const frames = (new Error().stack ?? '').split('\n').slice(1);
  return frames
    .filter((f) => !f.includes('connection-guard') && !f.includes('node_modules/ioredis/'))
    .slice(0, 12)
    .join('\n');
}

function opening(): Opening {
  return { where: stackHere(), test: currentTest(), app: appContext.getStore() };
}

function describeOpening(o: Opening | undefined): string {
  if (!o) return 'opened outside the register';
  const by = o.app ? `by test app #${o.app}` : 'by the test itself';
  return `opened ${by}${o.test ? ` during "${o.test}"` : ''}, at\n${o.where}`;
}

type Command = { name: string; reject(err: Error): void };
type RedisInternals = {
  connect(...args: unknown[]): Promise<void>;
  sendCommand(command: Command, stream?: unknown): unknown;
};
const redisProto = Redis.prototype as unknown as RedisInternals;
const { connect, sendCommand } = redisProto;

redisProto.connect = function (this: Redis, ...args: unknown[]) {
  if (!liveRedis.has(this)) {
    const o = opening();
    liveRedis.set(this, o);
    this.once('end', () => {
      liveRedis.delete(this);
      closedOpenings.set(this, o);
    });
  }
  return connect.apply(this, args);
};

redisProto.sendCommand = function (this: Redis, command: Command, stream?: unknown) {
  const status = this.status;
  if (status === 'end') {
    lateWork.push({
      message:
        `work outlived its connection: redis ${command.name.toUpperCase()} sent on a closed connection ` +
        `(during "${currentTest()}"); the connection was ${describeOpening(closedOpenings.get(this))}\nthe command was sent`,
      where: stackHere(),
    });
  } else if (status !== 'ready') {
    // Queued until the connection is up: it fails with "Connection is closed." should the
    // connection be closed first; the error then says whose command it was.
    const sentFrom = stackHere();
    const reject = command.reject.bind(command);
    command.reject = (err: Error) => {
      if (err?.message === 'Connection is closed.') {
        const annotated = new Error(err.message);
        annotated.stack =
          `${err.message} (redis ${command.name.toUpperCase()} queued while ${status}, from\n${sentFrom}\n` +
          `on the connection ${describeOpening(liveRedis.get(this) ?? closedOpenings.get(this))})`;
        return reject(annotated);
      }
      return reject(err);
    };
  }
  return sendCommand.call(this, command, stream);
};

type ConnectionInternals = { openUri(...args: unknown[]): unknown };
const connectionProto = mongoose.Connection.prototype as unknown as ConnectionInternals;
const { openUri } = connectionProto;
connectionProto.openUri = function (this: mongoose.Connection, ...args: unknown[]) {
  mongoOpenings.set(this, opening());
  return openUri.apply(this, args);
};

/** Runs a test app's start inside its own context: what it opens, now or later, is its own. */
export function asTestApp<T>(start: (app: number) => Promise<T>): Promise<T> {
  const app = nextApp++;
  return appContext.run(app, () => start(app));
}

/**
 * A client closed by its owner while waiting to reconnect: ioredis's disconnect() then clears the
 * reconnect timer but has no socket to close, so it stays 'reconnecting' and never emits 'end',
 * though nothing of it runs any more. Counted as closed.
 */
function closedWhileReconnecting(client: Redis): boolean {
  const internals = client as unknown as { manuallyClosing?: boolean; reconnectTimeout?: unknown };
  return client.status === 'reconnecting' && !!internals.manuallyClosing && !internals.reconnectTimeout;
}

/** Throws, naming each, when a connection this test app opened is still open. */
export function assertAppClosed(app: number): void {
  const open: string[] = [];
  for (const [client, o] of liveRedis) {
    if (o.app === app && !closedWhileReconnecting(client))
      open.push(`a Redis connection (${client.status}) ${describeOpening(o)}`);
  }
  for (const connection of mongoose.connections) {
    const o = mongoOpenings.get(connection);
    if (o?.app === app && connection.readyState !== mongoose.ConnectionStates.disconnected) {
      open.push(`a MongoDB connection (readyState ${connection.readyState}) ${describeOpening(o)}`);
    }
  }
  if (open.length) {
    throw new Error(
      `test app #${app} closed with ${open.length} connection(s) still open:\n\n${open.join('\n\n')}`,
    );
  }
}

/** An error whose stack is where the thing it reports came from (what jest shows as its origin). */
function failure(message: string, where: string): Error {
  const error = new Error(message);
  error.stack = `Error: ${message}\n${where}`;
  return error;
}

/** Connections a closing client is still finishing may take a moment to end; nothing else waits. */
function ended(client: Redis, timeoutMs: number): Promise<boolean> {
  if (client.status === 'end') return Promise.resolve(true);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), timeoutMs);
    client.once('end', () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}

/** What the file left behind: its connections still open, and work sent after its connection closed. */
async function atFileEnd(): Promise<Error[]> {
  const errors = lateWork.map(({ message, where }) => failure(message, where));
  for (const [client, o] of [...liveRedis]) {
    const closing =
      ['close', 'end'].includes(client.status) ||
      (client as unknown as { manuallyClosing?: boolean }).manuallyClosing;
    if (closedWhileReconnecting(client) || (closing && (await ended(client, 5_000)))) continue;
    errors.push(
      failure(
        `a Redis connection (${client.status}) was still open when the file ended; ${describeOpening(o)}`,
        o.where,
      ),
    );
    client.disconnect();
  }
  return errors;
}

(globalThis as { __connectionGuard?: unknown }).__connectionGuard = { atFileEnd };
