import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { LEDGER_KINDS } from '@studio/contracts';

/**
 * Every label value is from a closed set (route templates, tools, engine kinds, states, reasons,
 * command names): no ids, no user names, so the number of series stays bounded.
 */
export const JOB_END_STATES = ['succeeded', 'failed', 'cancelled'] as const;
export type JobEndState = (typeof JOB_END_STATES)[number];

/** Why a job failed, from the message it ended with (job-runner's userMessage). */
export const FAILURE_REASONS = [
  'input',
  'engine_unavailable',
  'engine_crashed',
  'engine_error',
  // faults past the box (issue 53): the GPU server and the content store
  'engine_down',
  'engine_timeout',
  'engine_server_error',
  'engine_bad_output',
  'storage_full',
  'storage_unavailable',
  'restore',
  'other',
] as const;
export type FailureReason = (typeof FAILURE_REASONS)[number];

/** Credit movements: the ledger kinds, and 'charged' (a capture: the reservation became a spend). */
export const CREDIT_MOVEMENTS = ['charged', ...LEDGER_KINDS.filter((k) => k !== 'capture')] as const;
export type CreditMovement = (typeof CREDIT_MOVEMENTS)[number];

/** Database commands measured by name; any other is counted as 'other'. */
const DB_COMMANDS = new Set([
  'find',
  'insert',
  'update',
  'delete',
  'findAndModify',
  'aggregate',
  'count',
  'distinct',
  'getMore',
  'createIndexes',
  'listIndexes',
  'ping',
  'hello',
  'isMaster',
  'endSessions',
  'killCursors',
  'listCollections',
  'dropDatabase',
]);
export const dbCommandLabel = (name: string) => (DB_COMMANDS.has(name) ? name : 'other');

const REDIS_COMMANDS = new Set([
  'get',
  'set',
  'del',
  'exists',
  'expire',
  'pexpire',
  'incr',
  'incrby',
  'decr',
  'mget',
  'mset',
  'hget',
  'hset',
  'hgetall',
  'hdel',
  'hincrby',
  'sadd',
  'srem',
  'smembers',
  'zadd',
  'zrem',
  'zrange',
  'zrangebyscore',
  'zcard',
  'lpush',
  'rpush',
  'lrange',
  'llen',
  'publish',
  'subscribe',
  'evalsha',
  'eval',
  'ping',
  'info',
  'multi',
  'exec',
  'scan',
  'ttl',
  'pttl',
]);
export const redisCommandLabel = (name: string) => {
  const lower = name.toLowerCase();
  return REDIS_COMMANDS.has(lower) ? lower : 'other';
};

/** Seconds buckets for jobs: from a quick clone to a long video swap. */
const JOB_BUCKETS = [0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300, 600, 1800];
const HTTP_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const OPERATION_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5];

/**
 * The studio's metrics, on a registry of this app instance (not prom-client's global one, so
 * several apps in one process, as in the tests, keep their own counts). Gauges whose value lives
 * elsewhere (queue depth, pool, sockets, engines) are read at scrape time by the collectors that
 * MetricsCollectors registers.
 */
export class StudioMetrics {
  readonly registry = new Registry();

  readonly httpDuration = new Histogram({
    name: 'studio_http_request_duration_seconds',
    help: 'HTTP requests by method, route template and status',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: HTTP_BUCKETS,
    registers: [this.registry],
  });

  readonly jobsEnded = new Counter({
    name: 'studio_jobs_total',
    help: 'Jobs that ended, by tool, engine kind and final state',
    labelNames: ['tool', 'engine', 'state'] as const,
    registers: [this.registry],
  });

  readonly safetyDecisions = new Counter({
    name: 'studio_safety_decisions_total',
    help: 'Age and content safety decisions: refusals, withheld and held outputs, moderator decisions, by action and reason code',
    labelNames: ['action', 'reason'] as const,
    registers: [this.registry],
  });

  readonly jobsStarted = new Counter({
    name: 'studio_job_starts_total',
    help: 'Job attempts started by a worker (a retry starts again)',
    labelNames: ['tool', 'engine'] as const,
    registers: [this.registry],
  });

  readonly jobWait = new Histogram({
    name: 'studio_job_wait_seconds',
    help: 'Time from submission to the first start of a job, by tool and engine kind',
    labelNames: ['tool', 'engine'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });

  readonly jobRun = new Histogram({
    name: 'studio_job_run_seconds',
    help: 'Time from the (last) start of a job to its end, by tool, engine kind and final state',
    labelNames: ['tool', 'engine', 'state'] as const,
    buckets: JOB_BUCKETS,
    registers: [this.registry],
  });

  readonly jobFailures = new Counter({
    name: 'studio_job_failures_total',
    help: 'Failed jobs by tool, engine kind and reason',
    labelNames: ['tool', 'engine', 'reason'] as const,
    registers: [this.registry],
  });

  readonly jobRetries = new Counter({
    name: 'studio_job_retries_total',
    help: 'Job attempts that failed and were put back for another attempt',
    labelNames: ['tool', 'engine'] as const,
    registers: [this.registry],
  });

  readonly jobCancels = new Counter({
    name: 'studio_job_cancels_total',
    help: 'Jobs cancelled, by tool and who cancelled (owner or staff)',
    labelNames: ['tool', 'by'] as const,
    registers: [this.registry],
  });

  readonly credits = new Counter({
    name: 'studio_credits_total',
    help: 'Credits moved through the ledger, by movement (charged, refund, reimbursement, purchase ...)',
    labelNames: ['movement'] as const,
    registers: [this.registry],
  });

  readonly creditEntries = new Counter({
    name: 'studio_credit_entries_total',
    help: 'Ledger movements counted, by movement',
    labelNames: ['movement'] as const,
    registers: [this.registry],
  });

  readonly dbDuration = new Histogram({
    name: 'studio_db_operation_duration_seconds',
    help: 'Database commands by command name and outcome',
    labelNames: ['command', 'outcome'] as const,
    buckets: OPERATION_BUCKETS,
    registers: [this.registry],
  });

  readonly redisDuration = new Histogram({
    name: 'studio_redis_operation_duration_seconds',
    help: 'Redis commands of the shared connection by command name and outcome',
    labelNames: ['command', 'outcome'] as const,
    buckets: OPERATION_BUCKETS,
    registers: [this.registry],
  });

  constructor(process: 'api' | 'worker') {
    this.registry.setDefaultLabels({ process });
    // Node's own: CPU, memory, GC, handles and event-loop lag (nodejs_eventloop_lag_*).
    collectDefaultMetrics({ register: this.registry, eventLoopMonitoringPrecision: 20 });
  }

  gauge(name: string, help: string, labelNames: string[], collect: (gauge: Gauge) => Promise<void> | void) {
    return new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      async collect() {
        this.reset();
        await collect(this);
      },
    });
  }
}
