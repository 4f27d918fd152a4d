import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { configSchema, loadConfig } from '../../backend/src/config/app-config';
import { BUILD_TIMEOUT_MS, ensureValidator, yamlToJson } from '../k8s/validate/tool';
import { CERT_MOUNT_DIR, PRODUCTION_SETTINGS, WORKER_COMMAND } from '../local/image-test/settings';
import { COMPOSE_TEST_SECRETS } from './compose-test-env';

/**
 * The compose files are validated by the compose client itself (no engine needed for `config`);
 * the resolved file is then read back (through the k8s validator's YAML converter) to check the
 * shape of the stack and that every backend service's environment passes the app's own
 * configuration check.
 */
const root = join(__dirname, '../..');
const base = join(root, 'docker-compose.yml');
const gpu = join(__dirname, 'compose.gpu.yml');
const secrets = COMPOSE_TEST_SECRETS;

interface Service {
  image?: string;
  command?: string[];
  environment?: Record<string, string | null>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  ports?: unknown[];
  profiles?: string[];
  stop_grace_period?: string;
  volumes?: unknown[];
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const run = (files: string[], env: Record<string, string>) =>
  execFileSync('docker-compose', [...files.flatMap((f) => ['-f', f]), 'config'], {
    cwd: root,
    env: { PATH: process.env.PATH ?? '', ...env },
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });

/** The environment a container gets: unset pass-through variables (null) are left out. */
const envOf = (service: Service) =>
  Object.fromEntries(
    Object.entries(service.environment ?? {}).filter((e): e is [string, string] => e[1] !== null),
  );
const knownVariables = new Set(Object.keys(configSchema.innerType().shape));
const backendServices = (compose: Compose) =>
  Object.entries(compose.services).filter(([, s]) => s.image === 'ai-studio:local');
const isWorker = (s: Service) => s.command?.join(' ') === WORKER_COMMAND.join(' ');

beforeAll(() => {
  ensureValidator();
}, BUILD_TIMEOUT_MS);

describe('docker-compose.yml', () => {
  let compose: Compose;
  beforeAll(() => {
    compose = yamlToJson<Compose>(run([base], secrets));
  });

  it('runs a MongoDB replica set, Redis, MinIO, the API, two workers and the frontend', () => {
    // Services of an opt-in profile (monitoring: deploy/monitoring/monitoring.spec.ts) aside.
    const always = Object.entries(compose.services).filter(([, s]) => !s.profiles?.length);
    expect(always.map(([name]) => name).sort()).toEqual(
      ['api', 'frontend', 'minio', 'minio-init', 'mongo', 'redis', 'worker-1', 'worker-2'].sort(),
    );
    const { mongo, redis, api, frontend } = compose.services;
    expect(mongo.command).toEqual(expect.arrayContaining(['--replSet', 'rs0']));
    const mongoCheck = mongo.healthcheck?.test.join(' ');
    expect(mongoCheck).toContain("rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'mongo:27017' }] })");
    expect(mongoCheck).toContain('rs.status().myState === 1'); // PRIMARY
    expect(redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes']));
    expect(envOf(api).WORKER_INLINE).toBe('false');
    expect(Object.values(compose.services).filter(isWorker)).toHaveLength(2);
    // Only the frontend is published; it proxies to the API.
    const published = always.filter(([, s]) => s.ports?.length);
    expect(published.map(([name]) => name)).toEqual(['frontend']);
    expect(envOf(frontend).API_UPSTREAM).toBe('api:3000');
    expect(Object.keys(compose.volumes ?? {})).toEqual(
      expect.arrayContaining(['mongo-data', 'redis-data', 'minio-data']),
    );
  });

  it('gives every backend service a configuration the app accepts: replica set, Redis, S3', () => {
    const services = backendServices(compose);
    expect(services.map(([name]) => name).sort()).toEqual(['api', 'worker-1', 'worker-2']);
    for (const [name, service] of services) {
      const env = envOf(service);
      for (const variable of Object.keys(service.environment ?? {})) {
        expect(`${name}: ${variable} ${knownVariables.has(variable) ? 'known' : 'unknown'}`).toBe(
          `${name}: ${variable} known`,
        );
      }
      const config = loadConfig(env);
      expect(config.MONGODB_URI).toBe('mongodb://mongo:27017/studio?replicaSet=rs0');
      expect(config.STORAGE_DRIVER).toBe('s3');
      expect(config.S3_ENDPOINT).toBe('http://minio:9000');
      expect(config.WORKER_INLINE).toBe(false);
      for (const dependency of ['mongo', 'redis']) {
        expect(service.depends_on?.[dependency]?.condition).toBe('service_healthy');
      }
      expect(service.depends_on?.['minio-init']?.condition).toBe('service_completed_successfully');
    }
  });

  it('runs the API and workers with the settings the image test used, the certificate mounted', () => {
    for (const [name, service] of backendServices(compose)) {
      expect(`${name} ${JSON.stringify(envOf(service))}`).toBe(
        `${name} ${JSON.stringify({ ...envOf(service), ...PRODUCTION_SETTINGS })}`,
      );
      expect(service.volumes).toContain(`${secrets.PROVENANCE_CERT_DIR}:${CERT_MOUNT_DIR}:ro`);
    }
  });

  it('checks the API on its readiness route, and each worker on its probe port', () => {
    const test = (service: Service) => service.healthcheck?.test.join(' ') ?? '';
    expect(test(compose.services.api)).toContain("fetch('http://127.0.0.1:3000/api/health/ready')");
    for (const service of Object.values(compose.services).filter(isWorker)) {
      const port = loadConfig({ ...envOf(service) }).HEALTH_WORKER_PORT;
      expect(port).toBeGreaterThan(0);
      expect(test(service)).toContain(`fetch('http://127.0.0.1:${port}/health/ready')`);
    }
  });

  it('lets workers finish running jobs on stop: stop grace above SHUTDOWN_GRACE_MS', () => {
    for (const service of Object.values(compose.services).filter(isWorker)) {
      const grace = Number(envOf(service).SHUTDOWN_GRACE_MS);
      expect(grace).toBe(loadConfig({ ...envOf(service) }).SHUTDOWN_GRACE_MS);
      expect(parseSeconds(service.stop_grace_period) * 1000).toBeGreaterThan(grace);
    }
  });

  it('creates the bucket the app uses, once MinIO is healthy', () => {
    const init = compose.services['minio-init'];
    expect(init.depends_on?.minio?.condition).toBe('service_healthy');
    expect(envOf(init).S3_BUCKET).toBe(envOf(compose.services.api).S3_BUCKET);
  });

  it('refuses to run without the production secrets', () => {
    expect(() => run([base], {})).toThrow(/Missing mandatory value/);
    for (const name of Object.keys(secrets)) {
      expect(() => run([base], { ...secrets, [name]: '' })).toThrow(new RegExp(`set ${name}`));
    }
  });
});

describe('deploy/docker/compose.gpu.yml', () => {
  it('adds a gpu-worker for the remote-engine queues and leaves the local ones to the CPU workers', () => {
    const compose = yamlToJson<Compose>(run([base, gpu], { ...secrets, A1111_URL: 'http://gpu-box:7860' }));
    const gpuWorker = compose.services['gpu-worker'];
    expect(isWorker(gpuWorker)).toBe(true);
    const queues = (s: Service) => envOf(s).WORKER_QUEUES.split(',').sort();
    expect(queues(gpuWorker)).toEqual(['faceSwap', 'generate', 'inpaint', 'superResolution']);
    expect(queues(compose.services['worker-1'])).toEqual(['clone', 'faceSwapVideo']);
    expect(queues(compose.services['worker-2'])).toEqual(['clone', 'faceSwapVideo']);
    // Every backend process, the API included, sees the same engines (and accepts them).
    for (const [name, service] of backendServices(compose)) {
      const config = loadConfig(envOf(service));
      expect(`${name} ${config.ENGINE_GENERATE} ${config.ENGINE_SUPER_RESOLUTION}`).toBe(
        `${name} a1111 a1111`,
      );
      expect(config.A1111_URL).toBe('http://gpu-box:7860');
    }
    expect(parseSeconds(gpuWorker.stop_grace_period) * 1000).toBeGreaterThan(
      Number(envOf(gpuWorker).SHUTDOWN_GRACE_MS),
    );
    const probePort = loadConfig(envOf(gpuWorker)).HEALTH_WORKER_PORT;
    expect(probePort).toBeGreaterThan(0);
    expect(gpuWorker.healthcheck?.test.join(' ')).toContain(
      `fetch('http://127.0.0.1:${probePort}/health/ready')`,
    );
  });

  it('needs the engine settings: A1111_URL by default, COMFYUI_URL for comfyui', () => {
    const api = (env: Record<string, string>) =>
      envOf(yamlToJson<Compose>(run([base, gpu], env)).services.api);
    expect(() => loadConfig(api(secrets))).toThrow(/A1111_URL is required/);
    const comfy = { ...secrets, ENGINE_GENERATE: 'comfyui', A1111_URL: 'http://gpu-box:7860' };
    expect(() => loadConfig(api(comfy))).toThrow(/COMFYUI_URL is required/);
    const config = loadConfig(api({ ...comfy, COMFYUI_URL: 'http://comfy:8188', COMFYUI_TOKEN: 't' }));
    expect([config.ENGINE_GENERATE, config.ENGINE_INPAINT, config.COMFYUI_TOKEN]).toEqual([
      'comfyui',
      'a1111',
      't',
    ]);
  });
});

function parseSeconds(duration: string | undefined): number {
  const match = /^(\d+)s$/.exec(duration ?? '');
  if (!match) throw new Error(`not a duration in seconds: ${duration}`);
  return Number(match[1]);
}
