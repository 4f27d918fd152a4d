/**
 * Stands in for socket.io-client in unit tests (see jest.config.cjs): records every io() call
 * and lets a test push server events.
 */
type Listener = (...args: unknown[]) => void;

export class FakeSocket {
  connected = true;
  /** As socket.io-client's: whether the socket will (re)connect by itself. */
  active = true;
  /** How many times connect() was called after the socket was made. */
  connects = 0;
  private listeners = new Map<string, Set<Listener>>();

  constructor(readonly options: unknown) {}

  on(event: string, listener: Listener): this {
    if (!this.listeners.has(event)) this.listeners.set(event, new Set());
    this.listeners.get(event)!.add(listener);
    return this;
  }

  off(event: string, listener: Listener): this {
    this.listeners.get(event)?.delete(listener);
    return this;
  }

  disconnect(): this {
    this.connected = false;
    this.active = false;
    return this;
  }

  connect(): this {
    this.connects += 1;
    this.active = true;
    return this;
  }

  /** The handshake refused by the server's middleware: the client library then stops trying. */
  refuse(message: string): void {
    this.active = false;
    this.serverEmit('connect_error', new Error(message));
  }

  /** What the server would push to this client. */
  serverEmit(event: string, payload: unknown): void {
    this.listeners.get(event)?.forEach((listener) => listener(payload));
  }

  listenerCount(event: string): number {
    return this.listeners.get(event)?.size ?? 0;
  }
}

export const fakeSockets: FakeSocket[] = [];

export function io(options?: unknown): FakeSocket {
  const socket = new FakeSocket(options);
  fakeSockets.push(socket);
  return socket;
}

export function resetFakeSockets(): void {
  fakeSockets.length = 0;
}

/** The socket currently open, if any. */
export function openSocket(): FakeSocket | undefined {
  return fakeSockets.filter((socket) => socket.connected).at(-1);
}
