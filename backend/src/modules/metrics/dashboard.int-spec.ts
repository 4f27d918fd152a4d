import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { JobTools } from '@studio/contracts';
import { eventually, grantCredits, signIn, uniqueName } from '../../../test/clients';
import { jobEnd, ScriptedEngine, submitToolJob } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import type { AuthUser } from '../auth/auth-user';
import { EngineRegistry } from '../engines';
import { JobControlService } from '../generation/job-control.service';

const TOKEN = 'dashboard-test-metrics-token';
const MONITORING = join(__dirname, '../../../../deploy/monitoring');

interface Panel {
  type: string;
  title: string;
  targets?: { expr: string }[];
}
interface QueryAnswer {
  status: string;
  data: { resultType: string; result: unknown[] };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Debian's Prometheus (installed by deploy/local/lib.sh ensure_monitoring_tools) scrapes a running
 * app with the bearer token, loads the alert rules, and answers every query of the Grafana
 * dashboard with at least one series once jobs of each outcome have run.
 */
describe('the Grafana dashboard against a real Prometheus', () => {
  let t: TestApp;
  let prometheus: ChildProcess | undefined;
  let scratch: string;
  let api: string;

  const query = async (expr: string): Promise<QueryAnswer> => {
    const res = await fetch(`${api}/api/v1/query?query=${encodeURIComponent(expr)}`);
    return (await res.json()) as QueryAnswer;
  };

  beforeAll(async () => {
    t = await startTestApp({ METRICS_TOKEN: TOKEN, JOB_ATTEMPTS: '2', JOB_BACKOFF_MS: '50' });
    const engine = new ScriptedEngine();
    for (const tool of JobTools) t.app.get(EngineRegistry).override(tool, engine);
    const client = await signIn(t, uniqueName('watched'));
    const user: AuthUser = {
      id: await grantCredits(t, client.username, 500),
      username: client.username,
      role: 'user',
    };
    // Every kind of outcome, so each panel has series: successes, a failure, a retry, a cancel.
    for (const tool of JobTools) await jobEnd(t, user, (await submitToolJob(t, user, tool))._id);
    engine.next = 'input-error';
    await jobEnd(t, user, (await submitToolJob(t, user, 'faceSwap'))._id);
    engine.next = 'transient-once';
    await jobEnd(t, user, (await submitToolJob(t, user, 'clone'))._id);
    engine.next = 'hold';
    const held = await submitToolJob(t, user, 'inpaint');
    await eventually(async () => expect(engine.holding.size).toBe(1));
    await t.app.get(JobControlService).cancel(user, held._id);
    engine.next = 'ok';
    await client.agent.get('/api/jobs');

    scratch = mkdtempSync(join(tmpdir(), 'prometheus-'));
    writeFileSync(join(scratch, 'token'), TOKEN);
    const target = new URL(t.url).host;
    writeFileSync(
      join(scratch, 'prometheus.yml'),
      [
        'global: { scrape_interval: 1s, evaluation_interval: 1s }',
        `rule_files: ['${join(MONITORING, 'prometheus/alerts.yml')}']`,
        'scrape_configs:',
        '  - job_name: studio-api',
        '    metrics_path: /metrics',
        `    authorization: { credentials_file: '${join(scratch, 'token')}' }`,
        `    static_configs: [{ targets: ['${target}'] }]`,
      ].join('\n'),
    );
    const port = await freePort();
    api = `http://127.0.0.1:${port}`;
    prometheus = spawn(
      'prometheus',
      [
        `--config.file=${join(scratch, 'prometheus.yml')}`,
        `--storage.tsdb.path=${join(scratch, 'data')}`,
        `--web.listen-address=127.0.0.1:${port}`,
      ],
      { stdio: 'ignore' },
    );
    // Up once it has scraped the app with the token.
    await eventually(async () => {
      const answer = await query('up{job="studio-api"}');
      expect(answer.data.result).toEqual([expect.objectContaining({ value: [expect.any(Number), '1'] })]);
    }, 30_000);
  }, 120_000);

  afterAll(async () => {
    if (prometheus && prometheus.exitCode === null) {
      const exited = new Promise((resolve) => prometheus!.once('exit', resolve));
      prometheus.kill('SIGTERM');
      await exited;
    }
    if (scratch) rmSync(scratch, { recursive: true, force: true });
    await t?.close();
  });

  it('loads the alert rules', async () => {
    const res = await fetch(`${api}/api/v1/rules`);
    const body = (await res.json()) as { data: { groups: { rules: { name: string; health: string }[] }[] } };
    const rules = body.data.groups.flatMap((g) => g.rules);
    expect(rules.length).toBe(8);
    for (const rule of rules) expect(`${rule.name}: ${rule.health}`).not.toMatch(/err/);
  });

  it('answers every dashboard query with at least one series', async () => {
    const dashboard = JSON.parse(
      readFileSync(join(MONITORING, 'grafana/dashboards/studio.json'), 'utf8'),
    ) as {
      panels: Panel[];
    };
    const queries = dashboard.panels.flatMap((p) =>
      (p.targets ?? []).map((q) => ({ panel: p.title, expr: q.expr })),
    );
    expect(queries.length).toBeGreaterThanOrEqual(20);
    for (const { panel, expr } of queries) {
      // rate() needs two scrapes after the series appeared: asked again until they are there.
      const answer = await eventually(async () => {
        const a = await query(expr);
        expect(`${panel}: ${a.status} ${a.data.result.length > 0 ? 'series' : 'empty'}`).toBe(
          `${panel}: success series`,
        );
        return a;
      }, 20_000);
      expect(answer.data.resultType).toBe('vector');
    }
  }, 120_000);
});
