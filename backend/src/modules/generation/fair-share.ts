import type { Queue } from 'bull';

/** A user's last tag is forgotten after this long without a job of the tool (then they start afresh). */
const USER_TAG_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Start-time fair queuing over Bull priorities. Each job of a tool gets a tag, its round: a user's
 * jobs get consecutive rounds, and a user with nothing waiting joins the round now being served.
 * Bull keeps its waiting list sorted by priority (FIFO among equals), so the line is served round
 * by round: one job of each waiting user in turn, whatever each one queued before.
 *
 * The clock is the round being served: the lowest tag still waiting (Bull's `priority` zset holds
 * the waiting prioritized jobs) minus one, or, with nothing waiting, the highest tag given so far.
 * It never goes back, so a retried job that returns with an old tag does not pull newcomers back.
 * A newcomer's first job takes the current round, which is ahead of the next job of everyone else
 * (a backlog of six: the newcomer runs as soon as the running job ends).
 *
 * KEYS: 1 Bull's priority zset, 2 the clock, 3 the highest tag given, 4 the user's last tag.
 * ARGV: 1 the TTL of the user's last tag, seconds.
 */
const TAG_SCRIPT = `
local clock = tonumber(redis.call('GET', KEYS[2]) or '0')
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if head[2] then
  clock = math.max(clock, tonumber(head[2]) - 1)
else
  clock = math.max(clock, tonumber(redis.call('GET', KEYS[3]) or '0'))
end
local tag = math.max(clock, tonumber(redis.call('GET', KEYS[4]) or '0') + 1)
redis.call('SET', KEYS[2], clock)
redis.call('SET', KEYS[4], tag, 'EX', ARGV[1])
if tag > tonumber(redis.call('GET', KEYS[3]) or '0') then redis.call('SET', KEYS[3], tag) end
return tag
`;

/**
 * The Bull priority for the next job of `ownerId` in this tool's queue (1 is served first).
 * Retries (back-off and immediate) and jobs released by the delay set keep the priority stored with
 * the job, so a retried job returns to its round; a stalled job is put back at the head by Bull.
 */
export async function fairShareTag(queue: Queue, ownerId: string): Promise<number> {
  const tag = await queue.client.eval(
    TAG_SCRIPT,
    4,
    queue.toKey('priority'),
    queue.toKey('fair:clock'),
    queue.toKey('fair:top'),
    queue.toKey(`fair:user:${ownerId}`),
    USER_TAG_TTL_SECONDS,
  );
  return Number(tag);
}
