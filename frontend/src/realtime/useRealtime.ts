import type { SocketEventPayloads } from '@studio/contracts';
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { Socket } from 'socket.io-client';

export type SocketEventName = keyof SocketEventPayloads;

/** The connected socket, or null while logged out. Provided by <RealtimeProvider>. */
export const RealtimeContext = createContext<Socket | null>(null);

/**
 * Keeps one socket open for the logged-in account. The server authenticates the handshake with
 * the session cookie, so a new account means a new connection; null closes it.
 */
export function useRealtime(account: string | null): Socket | null {
  const [socket, setSocket] = useState<Socket | null>(null);

  useEffect(() => {
    if (!account) return;
    // The client library loads only once someone is logged in: a visitor's first page stays small.
    let connection: Socket | undefined;
    let closed = false;
    void import('socket.io-client').then(({ io }) => {
      if (closed) return;
      // Same origin: the dev server and the production proxy forward /socket.io to the API.
      connection = io({ withCredentials: true });
      setSocket(connection);
    });
    return () => {
      closed = true;
      connection?.disconnect();
      setSocket(null);
    };
  }, [account]);

  return socket;
}

/**
 * Calls handler for every `name` event pushed by the server while logged in.
 * The latest handler is always used, so callers need not memoise it.
 */
export function useSocketEvent<N extends SocketEventName>(
  name: N,
  handler: (payload: SocketEventPayloads[N]) => void,
): void {
  const socket = useContext(RealtimeContext);
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });

  useEffect(() => {
    if (!socket) return;
    const listener = (payload: SocketEventPayloads[N]) => latest.current(payload);
    socket.on(name as string, listener);
    return () => {
      socket.off(name as string, listener);
    };
  }, [socket, name]);
}
