import Bull from 'bull';
import { randomBytes } from 'node:crypto';
import { settleBullStartup } from './bull-lifecycle';

/**
 * A queue closed right after its processing started (an app closed at once after boot, which a
 * busy machine makes common) used to leave Bull's connection naming to reject with "Connection
 * is closed." after close() had resolved: an unhandled rejection that failed whichever test ran
 * next. Closing at once, many times over, now leaves nothing behind.
 */
describe('a Bull queue closed as soon as it starts processing', () => {
  const redis = process.env.TEST_REDIS_URL;
  if (!redis) throw new Error('TEST_REDIS_URL is not set: run the tests with `npm test`');

  it('settles its start-up before it closes, with no unhandled rejection', async () => {
    settleBullStartup();
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => rejections.push(reason);
    process.on('unhandledRejection', onRejection);
    try {
      for (let round = 0; round < 20; round += 1) {
        const queue = new Bull(`closing-${round}`, redis!, { prefix: `t_${randomBytes(4).toString('hex')}` });
        const errors: Error[] = [];
        queue.on('error', (err) => errors.push(err));
        void queue.process(1, async () => undefined);
        await queue.close();
        expect(errors).toEqual([]);
      }
      // Anything the closed queues still had pending has settled by the next turn of the loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(rejections).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });
});
