import Bull from 'bull';

/**
 * Bull 4 starts a queue's processing with two promises it drops: `process()` names the blocking
 * connection (CLIENT SETNAME, in setHandler) and returns `start()`, which rethrows what it has
 * already emitted as 'error'. When the queue closes before they settle (an app closed right after
 * boot, on a busy machine) they reject with "Connection is closed." and nothing handles it: the
 * process gets an unhandled rejection long after the app that caused it is gone.
 *
 * Here, once for every queue (ours and @nestjs/bull's processors alike): the naming is tracked and
 * the queue waits for it before it drops its blocking connection (pause or close); a failure of
 * either is reported once as the queue's 'error' (logged by whoever listens), unless the queue is
 * closing, instead of rejecting unhandled.
 */
type QueueInternals = {
  closing?: Promise<void>;
  setWorkerName(): Promise<void>;
  start(...args: unknown[]): Promise<void>;
  process(...args: unknown[]): Promise<void>;
  pause(isLocal?: boolean, doNotWaitActive?: boolean): Promise<void>;
  disconnect(): Promise<void>;
  emit(event: 'error', err: unknown): boolean;
  listenerCount(event: 'error'): number;
  name: string;
  clients: unknown[];
  client: unknown;
  eclient: unknown;
  bclient: unknown;
  clientInitialized?: boolean;
  subscriberInitialized?: boolean;
  bclientInitialized?: boolean;
};

/**
 * Bull closes only the connections it made itself; those of a `createClient` option (queue.module.ts)
 * are handed to it here, before it disconnects, so a closed queue leaves none open.
 */
function adoptClients(queue: QueueInternals): void {
  const made = [
    queue.clientInitialized && queue.client,
    queue.subscriberInitialized && queue.eclient,
    queue.bclientInitialized && queue.bclient,
  ];
  for (const client of made) if (client && !queue.clients.includes(client)) queue.clients.push(client);
}

const PATCHED = Symbol.for('studio.bullLifecycle');
const naming = new WeakMap<object, Promise<void>>();
/** A Redis that never answers must not hold a shutdown forever. */
const NAMING_WAIT_MS = 5_000;

function namingOf(queue: object): Promise<void> | undefined {
  const named = naming.get(queue);
  if (!named) return undefined;
  let timer: NodeJS.Timeout | undefined;
  const bound = new Promise<void>((resolve) => (timer = setTimeout(resolve, NAMING_WAIT_MS).unref()));
  return Promise.race([named, bound]).finally(() => clearTimeout(timer));
}

/** As the queue's 'error' to whoever listens (an 'error' nobody listens to would throw). */
function report(queue: QueueInternals, err: unknown): void {
  if (queue.listenerCount('error') > 0) queue.emit('error', err);
  else process.emitWarning(`queue ${queue.name}: ${String(err)}`);
}

export function settleBullStartup(): void {
  const proto = Bull.prototype as unknown as QueueInternals & { [PATCHED]?: true };
  if (proto[PATCHED]) return;
  proto[PATCHED] = true;
  const { setWorkerName, start, pause, disconnect } = proto;
  const processJobs = proto.process;

  proto.setWorkerName = function (this: QueueInternals) {
    const named = setWorkerName.call(this).catch((err: unknown) => {
      if (!this.closing) report(this, err);
    });
    naming.set(this, named);
    return named;
  };
  // start() has emitted its error already; its rejection is only the echo nobody awaits.
  proto.start = function (this: QueueInternals, ...args: unknown[]) {
    return start.apply(this, args).catch(() => undefined);
  };
  // What is left to reject is its set-up (delayed-jobs listener and timer): reported the same way.
  proto.process = function (this: QueueInternals, ...args: unknown[]) {
    return processJobs.apply(this, args).catch((err: unknown) => {
      if (!this.closing) report(this, err);
    });
  };
  // A local pause drops the blocking connection, and so does close() (through it, then disconnect).
  proto.pause = async function (this: QueueInternals, isLocal?: boolean, doNotWaitActive?: boolean) {
    if (isLocal) await namingOf(this);
    return pause.call(this, isLocal, doNotWaitActive);
  };
  proto.disconnect = async function (this: QueueInternals) {
    await namingOf(this);
    adoptClients(this);
    return disconnect.call(this);
  };
}
