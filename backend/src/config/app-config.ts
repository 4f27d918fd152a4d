import { availableParallelism } from 'node:os';
import proxyAddr from 'proxy-addr';
import { z } from 'zod';
import { DECODE_LIMITS, MAX_OPEN_JOBS_PER_USER } from '@studio/contracts';

/**
 * Every environment variable the backend reads, validated once at boot. A bad value stops the
 * process with a message naming the variable, instead of failing later in some request.
 */
const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');

const engineKind = z.enum(['local', 'a1111', 'comfyui', 'replicate']);

/** Express `trust proxy` values: false, a hop count, or addresses/CIDRs that proxy-addr accepts. */
const trustProxy = z
  .string()
  .trim()
  .transform((value, ctx): false | number | string[] => {
    if (value === 'false' || value === '0' || value === '') return false;
    if (/^\d+$/.test(value)) return Number(value);
    const entries = value.split(',').map((entry) => entry.trim());
    try {
      proxyAddr.compile(entries);
    } catch (err) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        message: `must be false, a hop count, or a comma list of addresses/CIDRs (${(err as Error).message})`,
      });
      return z.NEVER;
    }
    return entries;
  });

const LOCAL_SESSION_SECRET = 'local-development-session-secret-change-me';

export const configSchema = z
  .object({
    NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
    PORT: z.coerce.number().int().min(0).max(65535).default(3000),
    HOST: z.string().min(1).default('0.0.0.0'),
    MONGODB_URI: z.string().regex(/^mongodb(\+srv)?:\/\//, 'must start with mongodb:// or mongodb+srv://'),
    REDIS_URL: z.string().regex(/^rediss?:\/\//, 'must start with redis:// or rediss://'),
    /** Prefix for every Redis key this instance writes (sessions, queues, rate limits). */
    REDIS_PREFIX: z.string().min(1).default('studio'),
    SESSION_SECRET: z.string().min(32, 'must be at least 32 characters').default(LOCAL_SESSION_SECRET),
    SESSION_TTL_HOURS: z.coerce
      .number()
      .int()
      .min(1)
      .max(24 * 365)
      .default(24 * 30),
    COOKIE_SECURE: bool.default('false'),
    /**
     * Which peers may tell the client's address in X-Forwarded-For (Express's `trust proxy`):
     * 'false' (nobody: the header is ignored), a hop count, or a comma list of addresses, CIDRs
     * and proxy-addr names (loopback, linklocal, uniquelocal). Login limits count per this address.
     */
    TRUST_PROXY: trustProxy.default('false'),
    /** The browser origin allowed by CORS; the API serves the frontend itself by default. */
    FRONTEND_ORIGIN: z.string().url().optional(),
    FRONTEND_DIST: z.string().optional(),
    ADMIN_USERNAME: z.string().min(3).optional(),
    ADMIN_PASSWORD: z.string().min(8).optional(),
    ADMIN_EMAIL: z.string().email().optional(),
    /**
     * log2 of scrypt's cost N (r=8, p=1): 16 is 64 MiB and about 180 ms of CPU per hash on the 2-core
     * dev machine. Hashes made at another cost are redone at the next login. Tests lower it.
     */
    PASSWORD_SCRYPT_LOG_N: z.coerce.number().int().min(10).max(20).default(16),
    /** Attempts per minute per client address on login and register. */
    AUTH_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10),
    /** Content files: on the local disk (default) or in an S3-API bucket. */
    STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
    /** Where the local-disk storage keeps content files. */
    STORAGE_DIR: z.string().min(1).default('.data/storage'),
    S3_BUCKET: z.string().min(3).optional(),
    S3_REGION: z.string().min(1).default('us-east-1'),
    /** Another S3-API address (MinIO, R2 ...); unset for AWS. */
    S3_ENDPOINT: z.string().url().optional(),
    S3_FORCE_PATH_STYLE: bool.default('false'),
    S3_ACCESS_KEY_ID: z.string().min(1).optional(),
    S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
    /**
     * Longest S3 request (connect, send, first answer) and longest silence on its socket, in ms;
     * each call is tried 3 times. Without it the SDK waits forever on a bucket that stalls.
     */
    S3_TIMEOUT_MS: z.coerce.number().int().min(100).default(30_000),
    /** Public address of the site, for links that leave it (Stripe return pages). */
    PUBLIC_URL: z.string().url().optional(),
    /** Stripe: without a secret key the app runs and says payments are not configured. */
    STRIPE_SECRET_KEY: z.string().startsWith('sk_', 'must be a Stripe secret key (sk_...)').optional(),
    STRIPE_WEBHOOK_SECRET: z
      .string()
      .startsWith('whsec_', 'must be a webhook signing secret (whsec_...)')
      .optional(),
    /** Stripe product for coin packs; without it each checkout names the product inline. */
    STRIPE_COIN_PRODUCT: z.string().startsWith('prod_', 'must be a Stripe product id (prod_...)').optional(),
    /** Another Stripe API address, for stripe-mock in tests (http://127.0.0.1:12111). */
    STRIPE_API_URL: z.string().url().optional(),
    /**
     * Local test payments: checkouts open a test page of this site instead of Stripe's, whose Pay
     * button delivers a signed checkout.session.completed to the webhook path. Only with a test
     * key (sk_test_) against a stand-in (STRIPE_API_URL); npm start turns it on with stripe-mock.
     */
    STRIPE_TEST_CHECKOUT: bool.default('false'),
    /**
     * Age assurance before the photo tools and sexual tags (docs/age-assurance-and-moderation.md):
     * 'required' (the default) or 'off' (a closed test install only).
     */
    AGE_ASSURANCE: z.enum(['required', 'off']).default('required'),
    /**
     * The external age-assurance provider (docs/age-assurance-and-moderation.md): Persona's hosted
     * flow, for people without a credit card. Unset PERSONA_API_KEY: not offered.
     */
    PERSONA_API_KEY: z.string().min(1).optional(),
    /** The inquiry template (itmpl_...) of the age check set up in Persona's dashboard. */
    PERSONA_INQUIRY_TEMPLATE_ID: z
      .string()
      .startsWith('itmpl_', 'must be an inquiry template id (itmpl_...)')
      .optional(),
    /** The webhook's signing secret (wbhsec_...), from Persona's dashboard. */
    PERSONA_WEBHOOK_SECRET: z.string().min(1).optional(),
    /** Persona's API; another address for a stand-in (tests: the fake Persona server). */
    PERSONA_API_URL: z.string().url().default('https://api.withpersona.com'),
    /** Persona's hosted flow, where the user is sent; another address for a stand-in. */
    PERSONA_FLOW_URL: z.string().url().default('https://inquiry.withpersona.com'),
    /** An image is classified sexual when nsfwjs' porn + hentai reaches this (0..1; 'sexy' is stored, not counted). */
    SAFETY_SEXUAL_THRESHOLD: z.coerce.number().min(0.05).max(1).default(0.7),
    /** A generated output with a face estimated younger than this is held for a moderator. */
    SAFETY_MINOR_AGE: z.coerce.number().min(0).max(30).default(18),
    /** Coins granted once to an account when its email is verified (0: none). npm start: 25. */
    WELCOME_ALLOWANCE_COINS: z.coerce.number().int().min(0).max(100_000).default(0),
    /** Allowances granted per client address per day (UTC). */
    WELCOME_ALLOWANCE_PER_ADDRESS_PER_DAY: z.coerce.number().int().min(1).max(1000).default(1),
    /**
     * Where mail goes out (smtp:// or smtps://, credentials in the URL). Unset: mails are written to
     * the log instead (npm start and npm test start a local mail catcher and set it).
     */
    SMTP_URL: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z
        .string()
        .regex(/^smtps?:\/\//, 'must start with smtp:// or smtps://')
        .optional(),
    ),
    /** The sender of account mails. */
    MAIL_FROM: z.string().min(3).default('AI Studio <no-reply@studio.localhost>'),
    JSON_BODY_LIMIT: z
      .string()
      .regex(/^\d+(kb|mb)$/)
      .default('100kb'),
    /** Run the worker's processors inside the API process (local mode). */
    WORKER_INLINE: bool.default('true'),
    /**
     * Bearer token for GET /metrics (Prometheus). Unset: /metrics answers 404 (never public).
     */
    METRICS_TOKEN: z.preprocess(
      (value) => (value === '' ? undefined : value),
      z.string().min(16, 'must be at least 16 characters').optional(),
    ),
    /** The worker process's own /metrics listens here (same token); 0: no metrics listener. */
    METRICS_WORKER_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /**
     * The worker process's probes (GET /health/live and /health/ready, no token) listen here;
     * 0: no probe listener. The API answers its own on /api/health/live and /api/health/ready.
     */
    HEALTH_WORKER_PORT: z.coerce.number().int().min(0).max(65535).default(0),
    /**
     * Set by `npm run restore` (deploy/local/restore.sh): a file whose presence means the data was
     * just restored; at boot the jobs open in the backup are failed and refunded, then it is removed.
     */
    RESTORE_MARKER_FILE: z.string().min(1).optional(),
    /**
     * Inference engine per tool: 'local' runs on this machine's CPU (models shipped in npm
     * packages; it cannot generate images), 'a1111' calls an Automatic1111-compatible server.
     */
    ENGINE_CLONE: z.enum(['local']).default('local'),
    ENGINE_SUPER_RESOLUTION: engineKind.default('local'),
    ENGINE_FACE_SWAP: engineKind.default('local'),
    ENGINE_INPAINT: engineKind.default('local'),
    ENGINE_GENERATE: engineKind.default('local'),
    /** The Automatic1111-compatible server (Automatic1111, Forge, SD.Next) for 'a1111' tools. */
    A1111_URL: z.string().url().optional(),
    A1111_USERNAME: z.string().min(1).optional(),
    A1111_PASSWORD: z.string().min(1).optional(),
    A1111_TOKEN: z.string().min(1).optional(),
    A1111_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
    /** A ComfyUI server for 'comfyui' tools; the token goes as a bearer, or raw in COMFYUI_AUTH_HEADER. */
    COMFYUI_URL: z.string().url().optional(),
    COMFYUI_TOKEN: z.string().min(1).optional(),
    COMFYUI_AUTH_HEADER: z
      .string()
      .regex(/^[A-Za-z0-9-]+$/, 'must be an HTTP header name')
      .optional(),
    /** Folder of the API-format workflows (<tool>.json); default libs/inference/workflows/comfyui. */
    COMFYUI_WORKFLOW_DIR: z.string().min(1).optional(),
    /** A whole ComfyUI or Replicate job, from queueing to the result. */
    REMOTE_JOB_TIMEOUT_MS: z.coerce.number().int().min(1000).default(600_000),
    /** Replicate's predictions API for 'replicate' tools, and the model (owner/name:version) per tool. */
    REPLICATE_API_TOKEN: z.string().min(1).optional(),
    REPLICATE_API_URL: z.string().url().default('https://api.replicate.com'),
    REPLICATE_MODEL_GENERATE: z.string().min(1).optional(),
    REPLICATE_MODEL_INPAINT: z.string().min(1).optional(),
    REPLICATE_MODEL_SUPER_RESOLUTION: z.string().min(1).optional(),
    REPLICATE_MODEL_FACE_SWAP: z.string().min(1).optional(),
    /** whsec_… (GET /v1/webhooks/default/secret): with PUBLIC_URL, predictions report back by webhook. */
    REPLICATE_WEBHOOK_SECRET: z.string().min(1).optional(),
    /** How long a remote engine's reachability answer is reused before tool requests probe it again. */
    ENGINE_PROBE_CACHE_MS: z.coerce.number().int().min(0).default(15_000),
    /** Which tool queues this process works on: 'all', 'none', or a comma list (clone,faceSwap). */
    WORKER_QUEUES: z
      .string()
      .regex(/^(all|none|[A-Za-z]+(,[A-Za-z]+)*)$/, "must be 'all', 'none' or a comma list of tools")
      .default('all'),
    /**
     * Jobs one worker process runs at once, per tool queue; a tool on the local engine at most
     * ENGINE_POOL_SIZE, so a worker takes a job only when its pool can start it (concurrencyOf).
     */
    JOB_CONCURRENCY_CLONE: z.coerce.number().int().min(1).max(64).default(2),
    JOB_CONCURRENCY_SUPER_RESOLUTION: z.coerce.number().int().min(1).max(64).default(1),
    JOB_CONCURRENCY_FACE_SWAP: z.coerce.number().int().min(1).max(64).default(1),
    JOB_CONCURRENCY_INPAINT: z.coerce.number().int().min(1).max(64).default(1),
    JOB_CONCURRENCY_GENERATE: z.coerce.number().int().min(1).max(64).default(2),
    JOB_CONCURRENCY_FACE_SWAP_VIDEO: z.coerce.number().int().min(1).max(64).default(1),
    /**
     * Worker threads of the local engine pool, each running one engine task at a time (default:
     * the cores less one, at least 1: one core stays with the API's event loop).
     */
    ENGINE_POOL_SIZE: z.coerce
      .number()
      .int()
      .min(1)
      .max(256)
      .default(Math.max(1, availableParallelism() - 1)),
    /** Heap ceiling (MB) of each pool thread; a task beyond it fails its job, refunded. */
    ENGINE_POOL_MEMORY_MB: z.coerce.number().int().min(32).default(2048),
    /**
     * Address-space ceiling (MB) of every ffmpeg and ffprobe started on an upload. The wrappers in
     * libs/inference read it from the environment; checked here so a bad value stops the boot.
     */
    DECODER_MEMORY_MB: z.coerce.number().int().min(256).default(DECODE_LIMITS.ffmpegMemoryMb),
    /**
     * Threads one engine task's model runtime may use (onnxruntime); default so that
     * ENGINE_POOL_SIZE x ENGINE_THREADS stays within the cores less one, at least 1.
     */
    ENGINE_THREADS: z.coerce.number().int().min(1).max(256).optional(),
    /**
     * Added to the pool threads' nice value (Linux, 0-19): the API thread wins the CPU when both
     * want it. 5, not 19: beside other busy programs a +19 engine got a few per cent of a core and a
     * restarted worker's first clone took 40-55 s beside two busy loops, against 17-26 s at 5, with
     * the API's answers alike (docs/benchmarks.md, Worker start and Responsiveness).
     */
    ENGINE_POOL_NICE: z.coerce.number().int().min(0).max(19).default(5),
    /**
     * The worker process's nice value (Linux, 0-19) once it has booted: it boots at the priority it
     * was started with, then its main thread (job results, lock renewal) steps aside for the API.
     * npm start sets 5. Booting at +10 beside busy programs took the worker over 30 s.
     */
    WORKER_NICE: z.coerce.number().int().min(0).max(19).default(0),
    /** Tries per job for transient errors, and the first back-off delay (doubling). */
    JOB_ATTEMPTS: z.coerce.number().int().min(1).max(10).default(3),
    JOB_BACKOFF_MS: z.coerce.number().int().min(0).default(2000),
    /** A job whose worker stops renewing its lock for this long is taken over by another worker. */
    JOB_LOCK_MS: z.coerce.number().int().min(1000).default(30_000),
    /** How long a tool request waits for its job before answering 'processing'. */
    JOB_WAIT_MS: z.coerce.number().int().min(0).max(120_000).default(20_000),
    /** Days the inputs of a failed or cancelled job (no outputs) are kept for "Run again". */
    JOB_INPUTS_RETENTION_DAYS: z.coerce.number().min(0).max(365).default(7),
    /** Tool requests per minute per user, one budget across all tools. */
    JOB_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(60),
    /** Requests per minute per personal API key, every route together (429 beyond it). */
    API_KEY_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    /**
     * Signed webhooks (docs/api.md): the first retry's delay and the window (a delivery is retried
     * for this long, and an endpoint whose deliveries fail for this long is switched off); the
     * schedule between is WEBHOOK_RETRY in libs/contracts. Tests shorten both.
     */
    WEBHOOK_RETRY_FIRST_DELAY_MS: z.coerce.number().int().min(1).default(5_000),
    WEBHOOK_RETRY_WINDOW_MS: z.coerce
      .number()
      .int()
      .min(10)
      .default(24 * 3600_000),
    /** How long one delivery waits for the receiver's answer. */
    WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(50).max(60_000).default(10_000),
    /**
     * Lets webhook endpoints be http:// and on this machine (127.0.0.0/8, ::1), for local receivers
     * and the tests. Never in production (refused there): endpoints are https and public only.
     */
    WEBHOOK_ALLOW_LOOPBACK: bool.default('false'),
    /** Jobs one user may have waiting or running at once, across tools (429 beyond it). */
    MAX_OPEN_JOBS_PER_USER: z.coerce.number().int().min(1).default(MAX_OPEN_JOBS_PER_USER),
    /** Other per-user budgets per minute: folders made, downloads, Stripe sessions, Patreon tries. */
    FOLDER_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(20),
    DOWNLOAD_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(120),
    EXPORT_RATE_LIMIT_PER_HOUR: z.coerce.number().int().min(1).default(5),
    CHECKOUT_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(10),
    PATREON_RATE_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(5),
    /**
     * Login throttling per account name (docs/security.md): failed attempts allowed at once, then
     * one attempt per delay doubling from the base to the cap; forgotten after the window.
     */
    LOGIN_FREE_FAILURES: z.coerce.number().int().min(1).default(10),
    LOGIN_DELAY_BASE_MS: z.coerce.number().int().min(1).default(1000),
    LOGIN_DELAY_MAX_SECONDS: z.coerce.number().min(1).max(3600).default(60),
    LOGIN_FAILURE_WINDOW_MINUTES: z.coerce.number().min(1).default(15),
    /**
     * A tool upload whose body sends nothing for this long is answered 408 and its connection
     * closed, freeing the user's upload slot (a trickled body held one for minutes).
     */
    UPLOAD_IDLE_SECONDS: z.coerce.number().min(0.1).max(3600).default(30),
    /** How often (seconds) each API instance drops sockets whose session has expired or ended. */
    SOCKET_SESSION_CHECK_SECONDS: z.coerce.number().min(0.05).max(3600).default(60),
    /**
     * The admin statistics are counted in Redis as log lines are written; they are recounted from
     * the log when Redis has none, and this often (hours) to mend any drift.
     */
    AUDIT_STATS_RECOUNT_HOURS: z.coerce.number().min(0.01).default(24),
    /** On SIGTERM a worker stops taking jobs and waits this long for running ones (docs/deployment.md). */
    SHUTDOWN_GRACE_MS: z.coerce.number().int().min(0).default(25_000),
    /**
     * Provenance (docs/provenance.md): every output gets an invisible watermark and a C2PA manifest
     * signed with this PEM chain (signer first) and PKCS#8 key. Required in production (boot.ts
     * also checks the tool signs with them); elsewhere unset means outputs go unmarked and the
     * process warns at boot; `npm start` makes a development chain under .data/provenance.
     */
    PROVENANCE_CERT_CHAIN: z.string().min(1).optional(),
    PROVENANCE_PRIVATE_KEY: z.string().min(1).optional(),
    PROVENANCE_SIGNING_ALG: z
      .enum(['es256', 'es384', 'es512', 'ps256', 'ps384', 'ps512', 'ed25519'])
      .default('es256'),
    /** The Python of the provenance venv (deploy/local/lib.sh ensure_provenance_tools). */
    PROVENANCE_PYTHON: z.string().min(1).default('.tools/provenance/bin/python'),
    /** Verify page uploads per client address per minute. */
    VERIFY_RATE_PER_MINUTE: z.coerce.number().int().min(1).default(10),
    /** Public report (notice-and-removal) submissions per client address per hour. */
    REPORT_RATE_PER_HOUR: z.coerce.number().int().min(1).default(10),
    /**
     * Notice and removal (docs/takedown.md, Suspension): an account is suspended when this many
     * reports have removed its content and the removal stands (not reversed on appeal); 0: never.
     */
    TAKEDOWN_SUSPEND_AFTER: z.coerce.number().int().min(0).max(1000).default(3),
    LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
    LOG_PRETTY: bool.default('false'),
  })
  .superRefine((cfg, ctx) => {
    if (cfg.NODE_ENV === 'production' && cfg.SESSION_SECRET === LOCAL_SESSION_SECRET) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['SESSION_SECRET'],
        message: 'must be set to a secret of your own in production',
      });
    }
    // Every output is marked (EU AI Act Art. 50, docs/provenance.md): production never runs
    // without a signing certificate; boot.ts then checks that the tool signs with it.
    for (const name of ['PROVENANCE_CERT_CHAIN', 'PROVENANCE_PRIVATE_KEY'] as const) {
      if (cfg.NODE_ENV === 'production' && !cfg[name]) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: [name],
          message:
            'is required in production: outputs must be watermarked and signed (mount the signing certificate and key, docs/provenance.md)',
        });
      }
    }
    // Settings for a test install that production refuses rather than runs with.
    const notInProduction: [keyof typeof cfg, boolean, string][] = [
      [
        'WEBHOOK_ALLOW_LOOPBACK',
        cfg.WEBHOOK_ALLOW_LOOPBACK,
        'cannot be on in production: webhooks go to public https addresses only',
      ],
      [
        'AGE_ASSURANCE',
        cfg.AGE_ASSURANCE === 'off',
        'cannot be off in production: adult content needs an age check first (UK Online Safety Act, docs/age-assurance-and-moderation.md)',
      ],
      [
        'STRIPE_TEST_CHECKOUT',
        cfg.STRIPE_TEST_CHECKOUT,
        "cannot be on in production: the site's test card page would stand in for Stripe's",
      ],
    ];
    for (const [name, on, message] of notInProduction) {
      if (cfg.NODE_ENV === 'production' && on)
        ctx.addIssue({ code: z.ZodIssueCode.custom, path: [name], message });
    }
    if (cfg.NODE_ENV === 'production' && !cfg.SMTP_URL) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['SMTP_URL'],
        message:
          'is required in production: account mails (email verification, password reset) need a mail server',
      });
    }
    if (Boolean(cfg.PROVENANCE_CERT_CHAIN) !== Boolean(cfg.PROVENANCE_PRIVATE_KEY)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [cfg.PROVENANCE_CERT_CHAIN ? 'PROVENANCE_PRIVATE_KEY' : 'PROVENANCE_CERT_CHAIN'],
        message: 'is required with the other of PROVENANCE_CERT_CHAIN / PROVENANCE_PRIVATE_KEY',
      });
    }
    if (cfg.STRIPE_SECRET_KEY && !cfg.STRIPE_WEBHOOK_SECRET) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['STRIPE_WEBHOOK_SECRET'],
        message: 'is required when STRIPE_SECRET_KEY is set (purchases are credited by the webhook)',
      });
    }
    if (cfg.PERSONA_API_KEY && !(cfg.PERSONA_INQUIRY_TEMPLATE_ID && cfg.PERSONA_WEBHOOK_SECRET)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: [cfg.PERSONA_INQUIRY_TEMPLATE_ID ? 'PERSONA_WEBHOOK_SECRET' : 'PERSONA_INQUIRY_TEMPLATE_ID'],
        message: 'is required when PERSONA_API_KEY is set (the age check is decided by the signed webhook)',
      });
    }
    if (cfg.STRIPE_TEST_CHECKOUT && !(cfg.STRIPE_SECRET_KEY?.startsWith('sk_test_') && cfg.STRIPE_API_URL)) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['STRIPE_TEST_CHECKOUT'],
        message: 'needs a test key (sk_test_...) and STRIPE_API_URL (a local stand-in such as stripe-mock)',
      });
    }
    if (cfg.STORAGE_DRIVER === 's3' && !cfg.S3_BUCKET) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['S3_BUCKET'],
        message: 'is required when STORAGE_DRIVER=s3',
      });
    }
    const remote = [
      cfg.ENGINE_SUPER_RESOLUTION,
      cfg.ENGINE_FACE_SWAP,
      cfg.ENGINE_INPAINT,
      cfg.ENGINE_GENERATE,
    ].includes('a1111');
    if (remote && !cfg.A1111_URL) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['A1111_URL'],
        message: "is required when a tool's engine is a1111",
      });
    }
    const kinds = {
      SUPER_RESOLUTION: cfg.ENGINE_SUPER_RESOLUTION,
      FACE_SWAP: cfg.ENGINE_FACE_SWAP,
      INPAINT: cfg.ENGINE_INPAINT,
      GENERATE: cfg.ENGINE_GENERATE,
    } as const;
    if (Object.values(kinds).includes('comfyui') && !cfg.COMFYUI_URL) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['COMFYUI_URL'],
        message: "is required when a tool's engine is comfyui",
      });
    }
    if (Object.values(kinds).includes('replicate') && !cfg.REPLICATE_API_TOKEN) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['REPLICATE_API_TOKEN'],
        message: "is required when a tool's engine is replicate",
      });
    }
    for (const [tool, kind] of Object.entries(kinds)) {
      if (kind === 'replicate' && !cfg[`REPLICATE_MODEL_${tool as keyof typeof kinds}`]) {
        ctx.addIssue({
          code: z.ZodIssueCode.custom,
          path: [`REPLICATE_MODEL_${tool}`],
          message: `is required when ENGINE_${tool}=replicate (owner/name:version)`,
        });
      }
    }
    if (cfg.ADMIN_PASSWORD && !cfg.ADMIN_USERNAME) {
      ctx.addIssue({
        code: z.ZodIssueCode.custom,
        path: ['ADMIN_USERNAME'],
        message: 'is required when ADMIN_PASSWORD is set',
      });
    }
  });

export type AppConfig = z.infer<typeof configSchema>;

export class ConfigError extends Error {}

/** Parses the environment; throws a ConfigError listing each bad variable by name. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): AppConfig {
  const parsed = configSchema.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((issue) => {
      const name = issue.path.join('.') || '(environment)';
      const message =
        issue.code === 'invalid_type' && issue.received === 'undefined' ? 'is required' : issue.message;
      return `  ${name} ${message}`;
    });
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  return parsed.data;
}

/** Nest injection token for the validated configuration. */
export const APP_CONFIG = Symbol('APP_CONFIG');
