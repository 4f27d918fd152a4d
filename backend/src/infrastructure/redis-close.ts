import type Redis from 'ioredis';

/** A QUIT that a Redis does not answer (frozen, overloaded) is given up after this, and the connection dropped. */
const QUIT_WAIT_MS = 1_000;

/**
 * Closes a connection and resolves once it has ended ('end': socket closed, nothing queued on it),
 * not merely once QUIT was answered: whoever awaits a shutdown may then count on no command of
 * this connection still being on its way. A connection that cannot QUIT (down, never connected,
 * not answering) is dropped instead.
 */
export async function closeRedis(client: Redis | undefined): Promise<void> {
  if (!client || client.status === 'end') return;
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  if (client.status === 'wait' || client.status === 'reconnecting') drop(client);
  else {
    let timer: NodeJS.Timeout | undefined;
    const unanswered = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error('QUIT unanswered')), QUIT_WAIT_MS);
    });
    await Promise.race([client.quit(), unanswered])
      .catch(() => drop(client))
      .finally(() => clearTimeout(timer));
  }
  await ended;
}

/**
 * Drops the connection. Between two reconnect attempts there is no socket: ioredis's disconnect()
 * then only cancels the next attempt and never emits 'end' (redis/ioredis#1247, #1830), so a
 * shutdown waiting for it waited forever while Redis was down. The client is then ended as its own
 * close handler ends one: status 'end' (emitting 'end'), and what was queued for it failed.
 */
function drop(client: Redis): void {
  const between = client.status === 'reconnecting';
  client.disconnect();
  if (!between || client.status === 'end') return;
  const internals = client as unknown as { setStatus(status: 'end'): void; flushQueue(error: Error): void };
  internals.setStatus('end');
  internals.flushQueue(new Error('Connection is closed.'));
}
