/**
 * Stands in for socket.io-client in unit tests (see jest.config.cjs): records every io() call
 * and lets a test push server events.
 */
type Listener = (...args: unknown[]) => void;

export class FakeSocket {
  connected = true;
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
    return this;
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
