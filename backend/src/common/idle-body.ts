import type { Request } from 'express';

/**
 * Calls `onIdle` once if the request's body sends no byte for `idleMs` (counted from now and
 * from each chunk), until the body ends or the returned stop function is called. One stall rule
 * for every body the API reads (multipart and JSON uploads, the JSON parser): a client trickling a
 * body and then stalling would otherwise hold its connection until the server's request timeout.
 */
export function watchIdleBody(req: Request, idleMs: number, onIdle: () => void): () => void {
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      stop();
      onIdle();
    }, idleMs);
  };
  const stop = () => {
    clearTimeout(timer);
    req.off('data', arm);
    req.off('end', stop);
  };
  req.on('data', arm);
  req.once('end', stop);
  arm();
  return stop;
}
