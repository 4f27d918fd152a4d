import type { Queue } from 'bull';

/** A user's last tag is forgotten after this long without a job of the tool (then they start afresh). */
const USER_TAG_TTL_SECONDS = 7 * 24 * 3600;

/**
 * Start-time fair queuing over Bull priorities. Each job of a tool gets a tag, its round: a user
 * with a job still open in the queue gets the round after their last one; a user with none joins
 * the round being served (never one before their last). Bull keeps its waiting list sorted by
 * priority (FIFO among equals), so the line is served round by round: one job of each waiting user
 * in turn, whatever each one queued before.
 *
 * The clock is the round being served: the lowest tag still waiting (Bull's `priority` zset holds
 * the waiting prioritized jobs) minus one, or, with nothing waiting, the highest tag given so far.
 * It never goes back, so a retried job that returns with an old tag does not pull newcomers back.
 * A newcomer's job takes the current round, which is ahead of the next job of everyone else (behind
 * a backlog of six, it runs as soon as the running job ends). Priorities start at 1 (Bull reads 0
 * as none).
 *
 * KEYS: 1 Bull's priority zset, 2 the clock, 3 the highest tag given, 4 the user's hash (last tag
 * and job). ARGV: 1 the TTL of the user's hash (s), 2 the queue's job key prefix, 3 the new job's id.
 */
const TAG_SCRIPT = `
local clock = tonumber(redis.call('GET', KEYS[2]) or '1')
local top = tonumber(redis.call('GET', KEYS[3]) or '1')
local head = redis.call('ZRANGE', KEYS[1], 0, 0, 'WITHSCORES')
if head[2] then
  clock = math.max(clock, tonumber(head[2]) - 1)
else
  clock = math.max(clock, top)
end
local last = tonumber(redis.call('HGET', KEYS[4], 'tag') or '0')
local lastJob = redis.call('HGET', KEYS[4], 'job')
-- Open: Bull still has the user's previous job and has not finished it (waiting, running, retrying).
local open = lastJob and redis.call('EXISTS', ARGV[2] .. lastJob) == 1
  and redis.call('HEXISTS', ARGV[2] .. lastJob, 'finishedOn') == 0
local tag = open and math.max(clock, last + 1) or math.max(clock, last)
redis.call('SET', KEYS[2], clock)
redis.call('HSET', KEYS[4], 'tag', tag, 'job', ARGV[3])
redis.call('EXPIRE', KEYS[4], ARGV[1])
if tag > top then redis.call('SET', KEYS[3], tag) end
return tag
`;

/**
 * The Bull priority for a new job of `ownerId` in this tool's queue (1 is served first).
 * Retries (back-off and immediate) and jobs released by the delay set keep the priority stored with
 * the job, so a retried job returns to its round; a stalled job is put back at the head by Bull.
 */
export async function fairShareTag(queue: Queue, ownerId: string, jobId: string): Promise<number> {
  const tag = await queue.client.eval(
    TAG_SCRIPT,
    4,
    queue.toKey('priority'),
    queue.toKey('fair:clock'),
    queue.toKey('fair:top'),
    queue.toKey(`fair:user:${ownerId}`),
    USER_TAG_TTL_SECONDS,
    queue.toKey(''),
    jobId,
  );
  return Number(tag);
}
