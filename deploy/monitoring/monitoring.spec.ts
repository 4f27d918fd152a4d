import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StudioMetrics } from '../../backend/src/modules/metrics/studio-metrics';
import { BUILD_TIMEOUT_MS, ensureValidator, runValidator, yamlToJson } from '../k8s/validate/tool';
import { COMPOSE_TEST_SECRETS } from '../docker/compose-test-env';

/**
 * The alert rules and their unit tests through Debian's promtool (deploy/local/lib.sh
 * ensure_monitoring_tools installs it), and the wiring of deploy/monitoring: every query names
 * metrics the app exports, the compose profile and the Kubernetes set point at what exists.
 * (backend/src/modules/metrics/dashboard.int-spec.ts runs the dashboard against a real Prometheus.)
 */
const dir = __dirname;
const root = join(dir, '../..');
const promtool = (...args: string[]) =>
  execFileSync('promtool', args, { cwd: dir, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

interface Rules {
  groups: { name: string; rules: { alert: string; expr: string }[] }[];
}
interface RuleTests {
  tests: { alert_rule_test?: { alertname: string; exp_alerts: unknown[] }[] }[];
}
interface Dashboard {
  panels: { type: string; title: string; targets?: { expr: string }[] }[];
}
interface ScrapeConfig {
  job_name: string;
  metrics_path: string;
  authorization?: { credentials_file?: string };
  static_configs?: { targets: string[] }[];
}

const rules = () => yamlToJson<Rules>(readFileSync(join(dir, 'prometheus/alerts.yml'), 'utf8'));
export const dashboardQueries = (): { panel: string; expr: string }[] =>
  (JSON.parse(readFileSync(join(dir, 'grafana/dashboards/studio.json'), 'utf8')) as Dashboard).panels
    .filter((p) => p.type !== 'row')
    .flatMap((p) => (p.targets ?? []).map((t) => ({ panel: p.title, expr: t.expr })));

/** The series names the app can expose (a histogram's _bucket, _count and _sum included). */
async function exportedNames(): Promise<Set<string>> {
  const names = new Set<string>();
  const metrics = new StudioMetrics('api');
  for (const metric of metrics.registry.getMetricsAsArray()) {
    const { name, type } = (await metric.get()) as { name: string; type: string };
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_count', '_sum']) names.add(name + s);
  }
  // Gauges made at module init (MetricsCollectors): listed by their names in its source.
  const collectors = readFileSync(join(root, 'backend/src/modules/metrics/metrics-collectors.ts'), 'utf8');
  for (const [, name] of collectors.matchAll(/'(studio_[a-z_]+)'/g)) names.add(name);
  return names;
}

const metricNames = (expr: string) =>
  [...expr.matchAll(/\b((?:studio|nodejs|process)_[a-z0-9_]+)/g)].map((m) => m[1]);

beforeAll(() => {
  ensureValidator();
}, BUILD_TIMEOUT_MS);

describe('alert rules (deploy/monitoring/prometheus)', () => {
  it('load in promtool', () => {
    expect(promtool('check', 'rules', 'prometheus/alerts.yml')).toContain('SUCCESS: 8 rules found');
  });

  it('pass their unit tests, and every alert has a case where it fires', () => {
    expect(promtool('test', 'rules', 'prometheus/alerts.test.yml')).toContain('SUCCESS');
    const tests = yamlToJson<RuleTests>(readFileSync(join(dir, 'prometheus/alerts.test.yml'), 'utf8'));
    const fired = new Set(
      tests.tests
        .flatMap((t) => t.alert_rule_test ?? [])
        .filter((t) => t.exp_alerts.length > 0)
        .map((t) => t.alertname),
    );
    const alerts = rules().groups.flatMap((g) => g.rules.map((r) => r.alert));
    expect([...fired].sort()).toEqual([...alerts].sort());
  });

  it('name only metrics the app exports', async () => {
    const names = await exportedNames();
    for (const rule of rules().groups.flatMap((g) => g.rules)) {
      for (const name of metricNames(rule.expr))
        expect(`${rule.alert}: ${name}`).toBe(`${rule.alert}: ${names.has(name) ? name : '(unknown)'}`);
    }
  });
});

describe('Grafana dashboard', () => {
  it('queries only metrics the app exports, with no Grafana-only variables', async () => {
    const names = await exportedNames();
    const queries = dashboardQueries();
    expect(queries.length).toBeGreaterThanOrEqual(20);
    for (const { panel, expr } of queries) {
      expect(expr).not.toContain('$');
      for (const name of metricNames(expr))
        expect(`${panel}: ${name}`).toBe(`${panel}: ${names.has(name) ? name : '(unknown)'}`);
    }
  });
});

describe('Prometheus configuration', () => {
  it('is valid for promtool (compose and Kubernetes), with the token from a file', () => {
    const scratch = mkdtempSync(join(tmpdir(), 'promcheck-'));
    try {
      const token = join(scratch, 'token');
      writeFileSync(token, 'a-metrics-token-for-the-check');
      for (const file of ['prometheus/prometheus.yml', 'k8s/prometheus-k8s.yml']) {
        const config = readFileSync(join(dir, file), 'utf8');
        expect(config).toMatch(/credentials_file:/);
        const copy = join(scratch, 'prometheus.yml');
        writeFileSync(
          copy,
          config
            .replace(/credentials_file: .*/g, `credentials_file: ${token}`)
            .replace('/etc/prometheus/alerts.yml', join(dir, 'prometheus/alerts.yml')),
        );
        expect(promtool('check', 'config', copy)).toContain('is valid prometheus config file syntax');
      }
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  });
});

describe('compose monitoring profile', () => {
  const secrets = { ...COMPOSE_TEST_SECRETS, METRICS_TOKEN: 'metrics-token-0123456789' };
  interface Service {
    profiles?: string[];
    environment?: Record<string, string | null>;
    volumes?: string[];
    expose?: string[];
    command?: string[];
    image?: string;
  }
  const compose = () =>
    yamlToJson<{ services: Record<string, Service> }>(
      execFileSync('docker-compose', ['--profile', 'monitoring', 'config'], {
        cwd: root,
        env: { PATH: process.env.PATH ?? '', ...secrets },
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );

  it('scrapes the API and every worker where they serve /metrics, with the rules and the dashboard mounted', () => {
    const { services } = compose();
    const { prometheus, grafana } = services;
    expect(prometheus.profiles).toEqual(['monitoring']);
    expect(grafana.profiles).toEqual(['monitoring']);
    // docker-compose v1 prints volumes as 'source:target[:mode]'.
    const mounted = (s: Service, target: string) =>
      s.volumes?.map((v) => v.split(':')).find((v) => v[1] === target)?.[0];
    expect(mounted(prometheus, '/etc/prometheus')).toBe(join(root, 'deploy/monitoring/prometheus'));
    expect(mounted(grafana, '/var/lib/grafana/dashboards')).toBe(
      join(root, 'deploy/monitoring/grafana/dashboards'),
    );
    expect(prometheus.environment?.METRICS_TOKEN).toBe(secrets.METRICS_TOKEN);

    const config = yamlToJson<{ scrape_configs: ScrapeConfig[] }>(
      readFileSync(join(dir, 'prometheus/prometheus.yml'), 'utf8'),
    );
    const targets = config.scrape_configs.flatMap((c) => c.static_configs?.flatMap((s) => s.targets) ?? []);
    const backend = Object.entries(services).filter(([, s]) => s.image === 'ai-studio:local');
    const expected = backend.map(([name, s]) =>
      s.command?.join(' ').includes('worker')
        ? `${name}:${s.environment?.METRICS_WORKER_PORT}`
        : `${name}:3000`,
    );
    expect([...targets].sort()).toEqual([...expected].sort());
    for (const [, s] of backend) expect(s.environment?.METRICS_TOKEN).toBe(secrets.METRICS_TOKEN);
  });
});

describe('Kubernetes monitoring set (kubectl apply -k deploy/monitoring)', () => {
  it('renders, and every object validates strictly', () => {
    const rendered = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
    const docs = rendered.split(/^---$/m).filter((d) => d.trim());
    const rest = docs.join('\n---\n');
    const result = runValidator(['-json', '-'], rest);
    expect(result.stderr).toBe('');
    const objects = (
      JSON.parse(result.stdout) as { object: { kind: string; metadata: { name: string } } }[]
    ).map(
      (d) =>
        `${d.object.kind}/${d.object.kind === 'ConfigMap' ? d.object.metadata.name.replace(/-[a-z0-9]{10}$/, '') : d.object.metadata.name}`,
    );
    expect(objects.sort()).toEqual(
      [
        'ConfigMap/studio-grafana-dashboards',
        'ConfigMap/studio-grafana-provisioning',
        'ConfigMap/studio-prometheus',
        'Deployment/studio-grafana',
        'Service/grafana',
        'Service/prometheus',
        'Service/studio-api-metrics',
        'Service/studio-worker-metrics',
        'Service/studio-gpu-worker-metrics',
        'StatefulSet/studio-prometheus',
      ].sort(),
    );
    // The rules and dashboard in the ConfigMaps are the files of this folder.
    expect(rendered).toContain('alert: StudioRemoteEngineDown');
    expect(rendered).toContain('"uid": "ai-studio"');
  });
});
