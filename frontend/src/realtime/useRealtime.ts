import { Messages, SocketEvents, type SocketEventPayloads } from '@studio/contracts';
import { createContext, useContext, useEffect, useRef, useState } from 'react';
import type { ManagerOptions, Socket } from 'socket.io-client';
import { studioAvailability } from '../api/availability';
import { retryDelayMs } from '../api/retryPolicy';

export type SocketEventName = keyof SocketEventPayloads;

/** The connected socket, or null while logged out. Provided by <RealtimeProvider>. */
export const RealtimeContext = createContext<Socket | null>(null);

/**
 * Reconnection as Socket.IO does it by default, written out because outages rely on it: after a
 * lost connection the client tries again forever, 1 s apart growing to 10 s, each wait randomised
 * by half so the tabs of a restarted API do not all come back at once.
 */
export const SOCKET_OPTIONS: Partial<ManagerOptions> = {
  withCredentials: true,
  reconnection: true,
  reconnectionAttempts: Infinity,
  reconnectionDelay: 1_000,
  reconnectionDelayMax: 10_000,
  randomizationFactor: 0.5,
};

/**
 * Keeps one socket open for the logged-in account. The server authenticates the handshake with
 * the session cookie, so a new account means a new connection; null closes it.
 *
 * The client library reconnects by itself after a lost connection, but not after its handshake was
 * refused (`connect_error` with `socket.active` false): the server refuses it while the database
 * is down (the account cannot be read), so that case is retried here with the reads' backoff,
 * unless the refusal says the login is gone. A lost connection also asks whether the studio is
 * still there (the banner, api/availability.ts); a new one, whether it is back.
 */
export function useRealtime(account: string | null): Socket | null {
  const [socket, setSocket] = useState<Socket | null>(null);

  useEffect(() => {
    if (!account) return;
    // The client library loads only once someone is logged in: a visitor's first page stays small.
    let connection: Socket | undefined;
    let closed = false;
    let refusals = 0;
    let retry: ReturnType<typeof setTimeout> | undefined;
    void import('socket.io-client').then(({ io }) => {
      if (closed) return;
      // Same origin: the dev server and the production proxy forward /socket.io to the API.
      const socket = io(SOCKET_OPTIONS);
      connection = socket;
      socket.on('connect', () => {
        refusals = 0;
        studioAvailability.reportAnswered();
      });
      socket.on('disconnect', (reason: string) => {
        if (reason !== 'io client disconnect') studioAvailability.probeNow();
      });
      socket.on('connect_error', (error: Error) => {
        if (socket.active || error.message === Messages.needLogin) return;
        clearTimeout(retry);
        retry = setTimeout(() => {
          if (!closed) socket.connect();
        }, retryDelayMs(refusals++));
      });
      setSocket(socket);
    });
    return () => {
      closed = true;
      clearTimeout(retry);
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

/**
 * Calls handler whenever pushes may have been missed, so the screen reads its data again: the
 * socket (re)joined its rooms (`session.ready`), or the studio came back after an outage (what
 * was pushed meanwhile went nowhere, even where the socket itself stayed open). Only while
 * logged in, as the socket.
 */
export function useResync(handler: () => void): void {
  const socket = useContext(RealtimeContext);
  const latest = useRef(handler);
  useEffect(() => {
    latest.current = handler;
  });
  useSocketEvent(SocketEvents.ready, () => latest.current());
  useEffect(() => (socket ? studioAvailability.onBack(() => latest.current()) : undefined), [socket]);
}
