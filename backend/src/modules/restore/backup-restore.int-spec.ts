import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import { eventually, grantCredits, signIn, uniqueName, downloadBytes } from '../../../test/clients';
import { ScriptedEngine, submitToolJob } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import type { AuthUser } from '../auth/auth-user';
import { AccountsRepository } from '../accounts/accounts.repository';
import { LedgerEntry } from '../billing/ledger-entry.schema';
import { EngineRegistry } from '../engines';
import { GenerationService } from '../generation/generation.service';
import { Job } from '../generation/job.schema';
import { ContentItem } from '../folders';
import { JobTools } from '@studio/contracts';
import { RESTORE_FAILURE_MESSAGE } from './restore-recovery';

const ROOT = join(__dirname, '../../../..');
const run = promisify(execFile);

interface Report {
  balances: Record<string, number>;
  ledger: Record<string, { kind: string; amount: number; state: string; userId: string }>;
  jobs: Record<string, { state: string; tool: string; cost: number; owner: string }>;
  storageKeys: string[];
  storedBy: Record<string, string>;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

async function waitForPort(port: number): Promise<void> {
  await eventually(
    () =>
      new Promise<void>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        socket.once('connect', () => {
          socket.end();
          resolve();
        });
        socket.once('error', reject);
      }),
    20_000,
  );
}

/** An installation as npm start lays it out: FerretDB and Redis on the data folder, stored files in it. */
class Installation {
  readonly processes: ChildProcess[] = [];
  mongoPort = 0;
  redisPort = 0;
  constructor(readonly dir: string) {}

  async start(): Promise<void> {
    [this.mongoPort, this.redisPort] = [await freePort(), await freePort()];
    mkdirSync(join(this.dir, 'ferretdb'), { recursive: true });
    mkdirSync(join(this.dir, 'redis'), { recursive: true });
    this.processes.push(
      spawn(
        join(ROOT, '.tools/bin/studio-ferretdb'),
        [
          '--listen-addr',
          `127.0.0.1:${this.mongoPort}`,
          '--sqlite-url',
          `file:${join(this.dir, 'ferretdb')}/?_pragma=busy_timeout(60000)&_pragma=synchronous(normal)`,
        ],
        { stdio: 'ignore' },
      ),
      spawn(
        'redis-server',
        ['--port', String(this.redisPort), '--bind', '127.0.0.1', '--dir', join(this.dir, 'redis')].concat([
          '--appendonly',
          'yes',
          '--save',
          '',
          '--daemonize',
          'no',
        ]),
        { stdio: 'ignore' },
      ),
    );
    await Promise.all([waitForPort(this.mongoPort), waitForPort(this.redisPort)]);
  }

  app(overrides: Record<string, string> = {}): Promise<TestApp> {
    return startTestApp({
      MONGODB_URI: `mongodb://127.0.0.1:${this.mongoPort}/studio`,
      REDIS_URL: `redis://127.0.0.1:${this.redisPort}`,
      REDIS_PREFIX: 'studio',
      STORAGE_DIR: join(this.dir, 'storage'),
      ...overrides,
    });
  }

  async stop(): Promise<void> {
    await Promise.all(
      this.processes.map(
        (p) =>
          new Promise((resolve) => {
            if (p.exitCode !== null) return resolve(undefined);
            p.once('exit', resolve);
            p.kill('SIGTERM');
          }),
      ),
    );
    this.processes.length = 0;
  }

  /** Every file under the folder with its size and content hash (what "touched" would change). */
  listing(): Record<string, string> {
    const walk = (d: string): string[] =>
      existsSync(d)
        ? readdirSync(d, { withFileTypes: true }).flatMap((e) =>
            e.isDirectory() ? walk(join(d, e.name)) : [join(d, e.name)],
          )
        : [];
    return Object.fromEntries(
      walk(this.dir).map((f) => [relative(this.dir, f), `${statSync(f).size}:${sha256(readFileSync(f))}`]),
    );
  }
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const script = (name: string, args: string[], env: Record<string, string>) =>
  run('bash', [join(ROOT, 'deploy/local', name), ...args], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    maxBuffer: 16 * 1024 * 1024,
  });

/**
 * npm run backup while three users submit jobs, npm run restore into a fresh folder, and the app
 * started there: every balance, ledger entry, job and stored file the backup reported is there
 * (the jobs in progress at backup time failed and refunded, once); truncated or foreign archives
 * are refused before anything is touched.
 */
describe('backup while users submit jobs, restore into a fresh folder', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'studio-backup-test-'));
  const source = new Installation(join(scratch, 'source'));
  const restored = new Installation(join(scratch, 'restored'));
  const archive = join(scratch, 'studio.tar.gz');
  let report: Report;
  const originalFiles = new Map<string, string>();
  const users: AuthUser[] = [];

  afterAll(async () => {
    await source.stop();
    await restored.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  it('backs up a running studio taking jobs, and restores it whole', async () => {
    await source.start();
    const t = await source.app({ JOB_ATTEMPTS: '1' });
    const engine = new ScriptedEngine();
    engine.workMs = 150; // jobs take a while, so some are in progress at the snapshot
    for (const tool of JobTools) t.app.get(EngineRegistry).override(tool, engine);
    for (let i = 0; i < 3; i++) {
      const client = await signIn(t, uniqueName(`saver${i}`));
      users.push({
        id: await grantCredits(t, client.username, 2000),
        username: client.username,
        role: 'user',
      });
    }

    // Three users keep submitting jobs until the backup is done, each with up to six waiting or
    // running (an unbounded stream would only grow the queue, and leave some user none done).
    const sourceJobs = t.app.get<Model<Job>>(getModelToken(Job.name));
    const count = (user: AuthUser, states: string[]) =>
      sourceJobs.countDocuments({ username: user.username, state: { $in: states } });
    let backingUp = true;
    const submitters = users.map(async (user) => {
      let n = 0;
      while (backingUp) {
        await submitToolJob(t, user, n++ % 2 ? 'clone' : 'superResolution');
        await eventually(
          async () => expect(await count(user, ['queued', 'running'])).toBeLessThan(6),
          60_000,
        );
      }
    });
    // Let each have jobs done and waiting before the snapshot.
    await eventually(async () => {
      for (const user of users) {
        expect(await count(user, ['succeeded'])).toBeGreaterThan(1);
        expect(await count(user, ['queued', 'running'])).toBeGreaterThan(1);
      }
    }, 60_000);
    const backup = await script('backup.sh', [archive], {
      DATA_DIR: source.dir,
      STUDIO_REDIS_PORT: String(source.redisPort),
    }).finally(() => (backingUp = false));
    await Promise.all(submitters);
    expect(backup.stdout.trim().split('\n').pop()).toBe(archive);

    // What the backup reported it holds.
    const manifestDir = join(scratch, 'peek');
    mkdirSync(manifestDir);
    await run('tar', ['-C', manifestDir, '-xzf', archive, './report.json']);
    report = (JSON.parse(readFileSync(join(manifestDir, 'report.json'), 'utf8')) as Record<string, Report>)
      .studio;
    const open = Object.entries(report.jobs).filter(([, j]) => j.state === 'queued' || j.state === 'running');
    expect(Object.keys(report.jobs).length).toBeGreaterThanOrEqual(12);
    expect(open.length).toBeGreaterThan(0); // the backup was taken while jobs were in progress
    expect(report.storageKeys.length).toBeGreaterThan(0);
    for (const user of users) expect(report.balances[user.username]).toBeDefined();
    // The source's files as they are (files are never changed once stored).
    for (const key of report.storageKeys) {
      originalFiles.set(key, sha256(readFileSync(join(source.dir, 'storage', key))));
    }
    await t.close();
    await source.stop();

    // Restore into a folder that does not exist yet, then start the app there.
    await script('restore.sh', [archive], { DATA_DIR: restored.dir });
    expect(existsSync(join(restored.dir, 'restore-pending'))).toBe(true);
    await restored.start();
    const t2 = await restored.app({ RESTORE_MARKER_FILE: join(restored.dir, 'restore-pending') });
    try {
      expect(existsSync(join(restored.dir, 'restore-pending'))).toBe(false);
      const jobs = t2.app.get<Model<Job>>(getModelToken(Job.name));
      const ledger = t2.app.get<Model<LedgerEntry>>(getModelToken(LedgerEntry.name));

      // Jobs: every one; those in progress at backup time failed with their refund.
      const refundsOf = new Map<string, number>();
      for (const [id, reported] of Object.entries(report.jobs)) {
        const job = await jobs.findById(id).lean();
        expect(job).not.toBeNull();
        const settledInSnapshot = report.ledger[`settle:job:${id}`];
        if (
          (reported.state === 'queued' || reported.state === 'running') &&
          settledInSnapshot?.kind === 'capture'
        ) {
          // Caught between its charge and its state: the ledger decided, so it ends as it was paid for.
          expect(job!.state).toBe('succeeded');
        } else if (reported.state === 'queued' || reported.state === 'running') {
          expect([job!.state, job!.error]).toEqual(['failed', RESTORE_FAILURE_MESSAGE]);
          expect(job!.refunded).toBe(reported.cost);
          refundsOf.set(reported.owner, (refundsOf.get(reported.owner) ?? 0) + reported.cost);
          const refund = await ledger.findById(`settle:job:${id}`).lean();
          expect([refund?.kind, refund?.amount, refund?.state]).toEqual(['refund', reported.cost, 'applied']);
        } else {
          expect(job!.state).toBe(reported.state);
        }
      }
      // Ledger: every entry, unchanged (one still pending in the snapshot may since be applied or voided).
      for (const [id, reported] of Object.entries(report.ledger)) {
        const entry = await ledger.findById(id).lean();
        expect([id, entry?.kind, entry?.amount]).toEqual([id, reported.kind, reported.amount]);
        if (reported.state !== 'pending') expect([id, entry?.state]).toEqual([id, reported.state]);
      }
      // Balances: as reported, plus what the restore refunded.
      const accounts = t2.app.get(AccountsRepository);
      for (const [username, balance] of Object.entries(report.balances)) {
        const account = await accounts.findByUsername(username);
        expect([username, account?.balance]).toEqual([username, balance + (refundsOf.get(account!.id) ?? 0)]);
      }
      // Stored files: byte for byte, and served to their owner, who can still sign in. A job in
      // progress at backup time may have stored outputs before its charge: the restore refunded it,
      // so those went with their items (no result without payment).
      const refundedJobs = new Set(
        Object.entries(report.jobs)
          .filter(
            ([id, j]) =>
              (j.state === 'queued' || j.state === 'running') &&
              report.ledger[`settle:job:${id}`]?.kind !== 'capture',
          )
          .map(([id]) => id),
      );
      const items = t2.app.get<Model<ContentItem>>(getModelToken(ContentItem.name));
      let kept = 0;
      for (const key of report.storageKeys) {
        const path = join(restored.dir, 'storage', key);
        if (refundedJobs.has(report.storedBy[key])) {
          expect([key, existsSync(path), await items.countDocuments({ storageKey: key })]).toEqual([
            key,
            false,
            0,
          ]);
          continue;
        }
        expect([key, sha256(readFileSync(path))]).toEqual([key, originalFiles.get(key)]);
        kept += 1;
      }
      expect(kept).toBeGreaterThan(0);
      const someone = users[0];
      const client = await signIn(t2, someone.username);
      const done = Object.entries(report.jobs).find(
        ([, j]) => j.owner === someone.id && j.state === 'succeeded',
      );
      const view = await t2.app.get(GenerationService).get({ ...someone }, done![0]);
      const url = view.items[0].url;
      const bytes = await downloadBytes(client, url);
      expect(bytes.length).toBeGreaterThan(0);
      // The restored studio takes new jobs.
      const engine = new ScriptedEngine();
      t2.app.get(EngineRegistry).override('clone', engine);
      const fresh = await submitToolJob(t2, someone, 'clone');
      await eventually(
        async () => expect((await jobs.findById(fresh._id).lean())?.state).toBe('succeeded'),
        30_000,
      );
    } finally {
      await t2.close();
      await restored.stop();
    }
  }, 240_000);

  it('refuses a truncated archive and a foreign one before touching the installation', async () => {
    expect(existsSync(archive)).toBe(true);
    const target = new Installation(join(scratch, 'target'));
    mkdirSync(join(target.dir, 'ferretdb'), { recursive: true });
    writeFileSync(join(target.dir, 'ferretdb', 'studio.sqlite'), 'the data that must stay');
    writeFileSync(join(target.dir, 'admin-password'), 'secret');
    const before = target.listing();

    const whole = readFileSync(archive);
    const truncated = join(scratch, 'truncated.tar.gz');
    writeFileSync(truncated, whole.subarray(0, Math.floor(whole.length * 0.6)));
    const foreignDir = join(scratch, 'foreign');
    mkdirSync(foreignDir);
    writeFileSync(
      join(foreignDir, 'manifest.json'),
      JSON.stringify({ format: 'something-else', version: 1, files: [] }),
    );
    const foreign = join(scratch, 'foreign.tar.gz');
    await run('tar', ['-C', foreignDir, '-czf', foreign, '.']);
    const noManifest = join(scratch, 'plain.tar.gz');
    await run('tar', ['-C', join(ROOT, 'deploy/local'), '-czf', noManifest, 'lib.sh']);

    for (const [bad, why] of [
      [truncated, /not a whole gzip file/],
      [foreign, /not of an ai-studio backup/],
      [noManifest, /no manifest\.json/],
    ] as const) {
      const refused = await script('restore.sh', [bad], { DATA_DIR: target.dir }).then(
        () => null,
        (err: { code: number; stderr: string }) => err,
      );
      expect(refused?.code).toBe(1);
      expect(refused?.stderr).toMatch(why);
      expect(refused?.stderr).toMatch(/nothing was changed/);
      expect(target.listing()).toEqual(before);
    }
  }, 60_000);
});
