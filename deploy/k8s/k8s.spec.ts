import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { configSchema, loadConfig } from '../../backend/src/config/app-config';
import { CERT_MOUNT_DIR, PRODUCTION_SETTINGS, WORKER_COMMAND } from '../local/image-test/settings';
import { BUILD_TIMEOUT_MS, ensureValidator, runValidator } from './validate/tool';

/**
 * The Kubernetes manifests, offline: every document is decoded strictly against the real API types
 * (k8s.io/api, by the Go program in ./validate), then the decoded objects are checked for what the
 * deployment relies on: references between objects, probes, resources, non-root pods, images.
 */
const dir = __dirname;
const files = readdirSync(dir)
  .filter((name) => name.endsWith('.yaml'))
  .map((name) => join(dir, name));

/* The decoded objects, as the API would return them (only the fields these checks read). */
interface Meta {
  name: string;
  namespace?: string;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
}
interface Probe {
  httpGet?: { path: string; port: string | number };
  timeoutSeconds?: number;
}
interface Container {
  name: string;
  image: string;
  command?: string[];
  ports?: { name?: string; containerPort: number }[];
  env?: { name: string; value?: string }[];
  envFrom?: { configMapRef?: { name: string }; secretRef?: { name: string } }[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    allowPrivilegeEscalation?: boolean;
    readOnlyRootFilesystem?: boolean;
    capabilities?: { drop?: string[] };
  };
}
interface PodSpec {
  containers: Container[];
  volumes?: { name: string; secret?: { secretName: string } }[];
  terminationGracePeriodSeconds?: number;
  securityContext?: { runAsNonRoot?: boolean; runAsUser?: number };
}
interface K8sObject {
  kind: string;
  apiVersion: string;
  metadata: Meta;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
  resources?: string[];
  images?: { name: string; newName?: string; newTag?: string }[];
  spec?: {
    replicas?: number;
    selector?: { matchLabels?: Record<string, string> } & Record<string, string>;
    template?: { metadata: Meta; spec: PodSpec };
    ports?: { name?: string; port: number; targetPort?: string | number }[];
    rules?: {
      http: { paths: { path: string; backend: { service: { name: string; port: { name?: string } } } }[] };
    }[];
    scaleTargetRef?: { kind: string; name: string };
    minAvailable?: number;
  };
}
interface Decoded {
  file: string;
  object: K8sObject;
}

let objects: K8sObject[];
const all = (kind: string) => objects.filter((o) => o.kind === kind);
const one = (kind: string, name: string) => {
  const found = objects.find((o) => o.kind === kind && o.metadata?.name === name);
  if (!found) throw new Error(`no ${kind} ${name}`);
  return found;
};
const matches = (selector: Record<string, string> | undefined, labels: Record<string, string> | undefined) =>
  !!selector &&
  Object.keys(selector).length > 0 &&
  Object.entries(selector).every(([k, v]) => labels?.[k] === v);
const podsOf = (selector: Record<string, string> | undefined) =>
  all('Deployment').filter((d) => matches(selector, d.spec?.template?.metadata.labels));
const envOf = (container: Container) =>
  Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value]));

beforeAll(() => {
  ensureValidator();
  const result = runValidator(['-json', ...files]);
  if (result.status !== 0) throw new Error(`k8s-validate failed:\n${result.stderr}`);
  objects = (JSON.parse(result.stdout) as Decoded[]).map((d) => d.object);
}, BUILD_TIMEOUT_MS);

describe('deploy/k8s manifests', () => {
  it('decode strictly against the Kubernetes API types', () => {
    const kinds = objects.map((o) => `${o.kind}/${o.metadata?.name ?? ''}`).sort();
    expect(kinds).toEqual(
      [
        'ConfigMap/studio-config',
        'Deployment/api',
        'Deployment/frontend',
        'Deployment/gpu-worker',
        'Deployment/worker',
        'HorizontalPodAutoscaler/worker',
        'Ingress/studio',
        'Kustomization/',
        'Namespace/ai-studio',
        'PodDisruptionBudget/api',
        'Secret/studio-secrets',
        'Service/api',
        'Service/frontend',
      ].sort(),
    );
    for (const o of objects.filter((o) => o.kind !== 'Namespace' && o.kind !== 'Kustomization')) {
      expect(`${o.kind}/${o.metadata.name} in ${o.metadata.namespace}`).toBe(
        `${o.kind}/${o.metadata.name} in ai-studio`,
      );
    }
  });

  it('reject a misspelled field, an unknown kind and a malformed quantity', () => {
    const deployment = (spec: string) =>
      [
        'apiVersion: apps/v1',
        'kind: Deployment',
        'metadata: { name: x }',
        'spec:',
        '  selector: { matchLabels: { a: b } }',
        '  template:',
        '    metadata: { labels: { a: b } }',
        '    spec:',
        spec,
      ].join('\n');
    const good = deployment('      containers: [{ name: c, image: i }]');
    expect(runValidator(['-'], good).status).toBe(0);
    const misspelled = runValidator(['-'], good.replace('selector:', 'selecter:'));
    expect(misspelled.status).toBe(1);
    expect(misspelled.stderr).toContain('unknown field "spec.selecter"');
    const nested = runValidator(
      ['-'],
      deployment('      containers: [{ name: c, image: i, imagePullPolice: Always }]'),
    );
    expect(nested.stderr).toContain('unknown field "spec.template.spec.containers[0].imagePullPolice"');
    expect(runValidator(['-'], good.replace('kind: Deployment', 'kind: Deploymen')).stderr).toContain(
      'no kind "Deploymen" is registered',
    );
    const quantity = deployment(
      '      containers: [{ name: c, image: i, resources: { limits: { memory: 1 GB } } }]',
    );
    expect(runValidator(['-'], quantity).status).toBe(1);
  });

  it('list every manifest but the Secret example in kustomization.yaml, which sets both images', () => {
    const kustomization = all('Kustomization')[0];
    const listed = [...(kustomization.resources ?? [])].sort();
    const expected = readdirSync(dir)
      .filter(
        (name) => name.endsWith('.yaml') && name !== 'kustomization.yaml' && name !== 'secret.example.yaml',
      )
      .sort();
    expect(listed).toEqual(expected);
    const images = new Set(
      all('Deployment').flatMap((d) => d.spec!.template!.spec.containers.map((c) => c.image)),
    );
    expect([...images].sort()).toEqual(['ai-studio', 'ai-studio-frontend']);
    expect((kustomization.images ?? []).map((i) => i.name).sort()).toEqual([...images].sort());
  });

  it('give every Deployment resources, a non-root locked-down pod, and consistent commands', () => {
    for (const deployment of all('Deployment')) {
      const pod = deployment.spec!.template!.spec;
      const name = deployment.metadata.name;
      expect(
        matches(deployment.spec?.selector?.matchLabels, deployment.spec?.template?.metadata.labels),
      ).toBe(true);
      expect(`${name} runAsNonRoot ${pod.securityContext?.runAsNonRoot}`).toBe(`${name} runAsNonRoot true`);
      expect(pod.securityContext?.runAsUser).toBe(name === 'frontend' ? 101 : 1000);
      for (const c of pod.containers) {
        expect(c.resources?.requests?.cpu && c.resources.requests.memory).toBeTruthy();
        expect(c.resources?.limits?.memory).toBeTruthy();
        expect(c.securityContext).toMatchObject({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        if (c.image === 'ai-studio') {
          const main = name === 'api' ? 'api' : 'worker';
          expect(c.command).toEqual(['/usr/bin/tini', '--', 'node', `backend/dist/${main}/src/main.js`]);
          expect(c.envFrom).toEqual([
            { configMapRef: { name: 'studio-config' } },
            { secretRef: { name: 'studio-secrets' } },
          ]);
        }
      }
    }
  });

  it('probe the API (readiness: /api/health/ready, liveness: /api/health/live, port 3000), and keep one API pod through disruptions', () => {
    const api = one('Deployment', 'api');
    expect(api.spec?.replicas).toBe(2);
    const [container] = api.spec!.template!.spec.containers;
    expect(container.ports).toEqual([{ name: 'http', containerPort: 3000 }]);
    expect(container.readinessProbe?.httpGet).toEqual({ path: '/api/health/ready', port: 'http' });
    expect(container.livenessProbe?.httpGet).toEqual({ path: '/api/health/live', port: 'http' });
    // The ready route's checks are bounded by 1 s (modules/health/readiness.ts): within the timeout.
    expect(container.readinessProbe?.timeoutSeconds).toBeGreaterThanOrEqual(2);
    const pdb = one('PodDisruptionBudget', 'api');
    expect(pdb.spec?.minAvailable).toBe(1);
    expect(podsOf(pdb.spec?.selector?.matchLabels).map((d) => d.metadata.name)).toEqual(['api']);
  });

  it('probe workers on their probe port, with a stop grace above SHUTDOWN_GRACE_MS, and scale them', () => {
    expect(one('Deployment', 'worker').spec?.replicas).toBe(2);
    expect(one('Deployment', 'gpu-worker').spec?.replicas).toBe(0);
    const config = one('ConfigMap', 'studio-config').data ?? {};
    const secret = one('Secret', 'studio-secrets').stringData ?? {};
    for (const name of ['worker', 'gpu-worker']) {
      const pod = one('Deployment', name).spec!.template!.spec;
      const [container] = pod.containers;
      // The worker's /metrics, for Prometheus (deploy/monitoring), at METRICS_WORKER_PORT, and its
      // probes at HEALTH_WORKER_PORT (modules/health/worker-health.server.ts).
      expect(container.ports).toEqual([
        { name: 'metrics', containerPort: 9464 },
        { name: 'health', containerPort: 9465 },
      ]);
      const settings = loadConfig({
        ...config,
        ...secret,
        A1111_URL: 'http://a1111:7860',
        ...envOf(container),
      });
      expect([settings.METRICS_WORKER_PORT, settings.HEALTH_WORKER_PORT]).toEqual([9464, 9465]);
      expect(container.readinessProbe?.httpGet).toEqual({ path: '/health/ready', port: 'health' });
      expect(container.livenessProbe?.httpGet).toEqual({ path: '/health/live', port: 'health' });
      const graceMs = Number(envOf(container).SHUTDOWN_GRACE_MS);
      expect(graceMs).toBeGreaterThan(0);
      expect((pod.terminationGracePeriodSeconds ?? 30) * 1000).toBeGreaterThan(graceMs);
    }
    const queues = (name: string) =>
      envOf(one('Deployment', name).spec!.template!.spec.containers[0]).WORKER_QUEUES;
    expect(queues('worker')).toBe('all');
    expect(queues('gpu-worker')!.split(',').sort()).toEqual([
      'faceSwap',
      'generate',
      'inpaint',
      'superResolution',
    ]);
    const hpa = one('HorizontalPodAutoscaler', 'worker');
    expect(hpa.spec?.scaleTargetRef).toMatchObject({ kind: 'Deployment', name: 'worker' });
  });

  it('route Services and the Ingress to existing pods and ports, with affinity for Socket.IO polling', () => {
    for (const service of all('Service')) {
      const [target] = podsOf(service.spec?.selector);
      expect(target?.metadata.name).toBe(service.metadata.name);
      const portNames = target
        .spec!.template!.spec.containers.flatMap((c) => c.ports ?? [])
        .map((p) => p.name);
      for (const port of service.spec?.ports ?? []) expect(portNames).toContain(port.targetPort);
    }
    const ingress = one('Ingress', 'studio');
    const routes = Object.fromEntries(
      ingress.spec!.rules!.flatMap((r) => r.http.paths).map((p) => [p.path, p.backend.service.name]),
    );
    expect(routes).toEqual({ '/api': 'api', '/socket.io': 'api', '/': 'frontend' });
    for (const path of ingress.spec!.rules!.flatMap((r) => r.http.paths)) {
      const service = one('Service', path.backend.service.name);
      expect(service.spec?.ports?.map((p) => p.name)).toContain(path.backend.service.port.name);
    }
    // The browser's client (frontend/src/realtime) starts on long-polling: one pod per connection.
    expect(ingress.metadata.annotations?.['nginx.ingress.kubernetes.io/affinity']).toBe('cookie');
  });

  it('configure the backend with variables the app knows and accepts (ConfigMap + example Secret)', () => {
    const known = new Set(Object.keys(configSchema.innerType().shape));
    const config = one('ConfigMap', 'studio-config').data ?? {};
    const secret = one('Secret', 'studio-secrets').stringData ?? {};
    const containerEnv = all('Deployment')
      .filter((d) => d.metadata.name !== 'frontend')
      .flatMap((d) => d.spec!.template!.spec.containers.flatMap((c) => (c.env ?? []).map((e) => e.name)));
    for (const variable of [...Object.keys(config), ...Object.keys(secret), ...containerEnv]) {
      expect(`${variable} ${known.has(variable) ? 'known' : 'unknown'}`).toBe(`${variable} known`);
    }
    for (const name of ['api', 'worker']) {
      const container = one('Deployment', name).spec!.template!.spec.containers[0];
      const parsed = loadConfig({ ...config, ...secret, ...envOf(container) });
      expect(parsed).toMatchObject({ NODE_ENV: 'production', WORKER_INLINE: false, STORAGE_DRIVER: 's3' });
    }
    // The settings the image test ran the images with (deploy/local/image-test): production, S3,
    // no inline worker, the certificate mounted from the Secret studio-provenance.
    for (const name of ['api', 'worker', 'gpu-worker']) {
      const pod = one('Deployment', name).spec!.template!.spec;
      const container = pod.containers[0];
      expect({ ...config, ...envOf(container) }).toMatchObject(PRODUCTION_SETTINGS);
      const mount = container.volumeMounts?.find((m) => m.mountPath === CERT_MOUNT_DIR);
      expect(mount?.readOnly).toBe(true);
      expect(pod.volumes?.find((v) => v.name === mount?.name)?.secret?.secretName).toBe('studio-provenance');
      if (name !== 'api') expect(container.command).toEqual(['/usr/bin/tini', '--', ...WORKER_COMMAND]);
    }
    // With the GPU engines switched on as gpu-worker.yaml describes, its environment is accepted too.
    const gpu = one('Deployment', 'gpu-worker').spec!.template!.spec.containers[0];
    const gpuEnv = { ...config, ...secret, A1111_URL: 'http://a1111:7860', ...envOf(gpu) };
    expect(loadConfig(gpuEnv).ENGINE_GENERATE).toBe('a1111');
    expect(() => loadConfig({ ...gpuEnv, A1111_URL: undefined })).toThrow(/A1111_URL/);
  });
});

// kubectl comes with this machine kind (apt); its kustomize renders the set as `kubectl apply -k` would.
it('render with kubectl kustomize into objects that validate, with the registry images', () => {
  const rendered = execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' });
  const result = runValidator(['-json', '-'], rendered);
  expect(result.stderr).toBe('');
  const images = (JSON.parse(result.stdout) as Decoded[])
    .filter((d) => d.object.kind === 'Deployment')
    .flatMap((d) => d.object.spec!.template!.spec.containers.map((c) => c.image));
  expect(new Set(images)).toEqual(
    new Set(['registry.example.com/ai-studio:0.1.0', 'registry.example.com/ai-studio-frontend:0.1.0']),
  );
});
