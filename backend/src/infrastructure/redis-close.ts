import type Redis from 'ioredis';

/**
 * Closes a connection and resolves once it has ended ('end': socket closed, nothing queued on it),
 * not merely once QUIT was answered: whoever awaits a shutdown may then count on no command of
 * this connection still being on its way. A connection that cannot QUIT (down, never connected)
 * is dropped instead.
 */
export async function closeRedis(client: Redis | undefined): Promise<void> {
  if (!client || client.status === 'end') return;
  const ended = new Promise<void>((resolve) => client.once('end', () => resolve()));
  if (client.status === 'wait') client.disconnect();
  else await client.quit().catch(() => client.disconnect());
  await ended;
}
