import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { JobTools, type JobTool } from '@studio/contracts';
import {
  A1111Engine,
  ComfyUIEngine,
  PooledCpuEngine,
  ReplicateEngine,
  type Capability,
  type EngineStatus,
  type InferenceEngine,
} from '@studio/inference';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { engineKindOf } from './job-queues';
import { PredictionUpdatesHub } from './prediction-updates';

/** Where Replicate posts finished predictions (EnginesController). */
export const REPLICATE_WEBHOOK_PATH = '/api/replicate/webhook';

/** Engines that run elsewhere and can be asked whether they answer. */
const REMOTE_KINDS = new Set(['comfyui', 'replicate']);

/** The engine capability each tool needs. */
export const CAPABILITY_OF: Record<JobTool, Capability> = {
  clone: 'clone',
  superResolution: 'superResolve',
  faceSwap: 'faceSwap',
  inpaint: 'inpaint',
  generate: 'generate',
  faceSwapVideo: 'faceSwapVideo',
};

/**
 * Picks the inference engine for each tool from configuration (ENGINE_<TOOL>). Engines are made on
 * first use, one per kind per process, so a process that only takes requests loads no models.
 */
@Injectable()
export class EngineRegistry implements OnApplicationShutdown {
  private readonly logger = new Logger(EngineRegistry.name);
  private readonly engines = new Map<string, InferenceEngine>();
  private readonly overrides = new Map<JobTool, InferenceEngine>();
  private readonly probes = new Map<string, { at: number; status: Promise<EngineStatus> }>();

  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly updates: PredictionUpdatesHub,
  ) {
    // Remote engines are cheap to make, and making them reads their workflow files: a broken
    // configuration stops the process at boot rather than failing a paid job.
    for (const tool of JobTools) {
      const kind = this.kindFor(tool);
      if (REMOTE_KINDS.has(kind)) this.engineOfKind(kind);
    }
  }

  /** The engine for a tool, or null when none configured can do it. */
  engineFor(tool: JobTool): InferenceEngine | null {
    const engine = this.overrides.get(tool) ?? this.engineOfKind(this.kindFor(tool));
    return engine.capabilities.has(CAPABILITY_OF[tool]) ? engine : null;
  }

  /**
   * Called by a process that runs these tools' queues: the local engine's threads start now, take
   * jobs as soon as they are up, and load the content check's models in the background (a tool's
   * own models load on its first use). Test apps skip it (most never run a local job; the pool then
   * starts on first use).
   */
  warmUpLocal(tools: readonly JobTool[]): void {
    if (!this.warmsUpLocal(tools)) return;
    this.engineOfKind('local')
      .warmup?.()
      .catch((err: unknown) => this.logger.warn(`local engine warm-up failed: ${String(err)}`));
  }

  private warmsUpLocal(tools: readonly JobTool[]): boolean {
    if (this.config.NODE_ENV === 'test') return false;
    return tools.some((tool) => !this.overrides.has(tool) && this.kindFor(tool) === 'local');
  }

  /**
   * The local engine pool of a process that runs these tools' queues, for its readiness: usable
   * when its threads are up and take tasks (their models load behind, and no task waits for
   * another tool's), or when it has not started and nothing warms it up (it then starts on first
   * use: a GPU worker's content checks, test apps); not while it starts where warmUpLocal starts it
   * (decided from the configuration, so a probe before the warm-up's call already waits for it),
   * nor once closed.
   */
  localPool(tools: readonly JobTool[]): { state: string; usable: boolean } {
    const engine = this.engines.get('local');
    const state = engine instanceof PooledCpuEngine ? engine.state() : 'idle';
    const usable = state === 'ready' || (state === 'idle' && !this.warmsUpLocal(tools));
    return { state, usable };
  }

  /**
   * The engine that finds faces for the face swap's free check: the face swap's own engine when it
   * can (the local engine: the check then sees exactly what the swap will see), else the local
   * engine's pool (an advice only: a remote engine detects faces its own way).
   */
  faceFinder(
    tool: 'faceSwap' | 'faceSwapVideo' = 'faceSwap',
  ): InferenceEngine & Required<Pick<InferenceEngine, 'findFaces'>> {
    const own = this.engineFor(tool);
    const finder = own?.findFaces ? own : this.engineOfKind('local');
    return finder as InferenceEngine & Required<Pick<InferenceEngine, 'findFaces'>>;
  }

  /** The local engine's pool, which looks at every input and output (content check: nsfwjs and face ages). */
  contentInspector(): InferenceEngine & Required<Pick<InferenceEngine, 'inspectContent'>> {
    return this.engineOfKind('local') as InferenceEngine & Required<Pick<InferenceEngine, 'inspectContent'>>;
  }

  /** The local engine's pool, which hashes every stored output and every reported copy. */
  fingerprinter(): InferenceEngine & Required<Pick<InferenceEngine, 'fingerprint'>> {
    return this.engineOfKind('local') as InferenceEngine & Required<Pick<InferenceEngine, 'fingerprint'>>;
  }

  /** Whether a face swap request must pass the check before it is charged (see faceFinder). */
  faceSwapChecked(tool: 'faceSwap' | 'faceSwapVideo' = 'faceSwap'): boolean {
    return !!this.engineFor(tool)?.findFaces;
  }

  /** Replaces a tool's engine in this process (tests and benchmarks: failing or no-op engines). */
  override(tool: JobTool, engine: InferenceEngine | null): void {
    if (engine) this.overrides.set(tool, engine);
    else this.overrides.delete(tool);
  }

  /**
   * Why a tool cannot take a job right now: no engine can do it ('not_configured'), or its remote
   * server does not answer ('unreachable'; the operations page says why); null when it can.
   * Remote answers are cached for ENGINE_PROBE_CACHE_MS so requests do not pay a probe each.
   */
  async unavailability(tool: JobTool): Promise<'not_configured' | 'unreachable' | null> {
    const engine = this.engineFor(tool);
    if (!engine) return 'not_configured';
    if (this.overrides.has(tool) || !REMOTE_KINDS.has(this.kindFor(tool)) || !engine.status) return null;
    const status = await this.probe(this.kindFor(tool), engine, this.config.ENGINE_PROBE_CACHE_MS);
    return status.reachable ? null : 'unreachable';
  }

  /**
   * Per tool: the engine kind and, for remote engines, a probe: fresh (the operations page), or
   * one up to `maxAgeMs` old (the public health check, so it cannot make the studio hammer them).
   */
  async statusOf(
    tool: JobTool,
    maxAgeMs = 0,
  ): Promise<{ kind: string; available: boolean; status?: EngineStatus }> {
    const kind = this.overrides.has(tool) ? 'override' : this.kindFor(tool);
    const engine = this.engineFor(tool);
    // A1111 too (it is not probed before jobs: see unavailability()).
    const probed = REMOTE_KINDS.has(kind) || kind === 'a1111';
    if (!engine || !engine.status || !probed) return { kind, available: engine !== null };
    return { kind, available: true, status: await this.probe(kind, engine, maxAgeMs) };
  }

  private probe(kind: string, engine: InferenceEngine, maxAgeMs: number): Promise<EngineStatus> {
    const cached = this.probes.get(kind);
    if (cached && Date.now() - cached.at <= maxAgeMs) return cached.status;
    const status = engine.status!();
    this.probes.set(kind, { at: Date.now(), status });
    return status;
  }

  kindFor(tool: JobTool): string {
    return engineKindOf(this.config, tool);
  }

  private engineOfKind(kind: string): InferenceEngine {
    let engine = this.engines.get(kind);
    if (!engine) {
      engine = this.makeEngine(kind);
      this.engines.set(kind, engine);
    }
    return engine;
  }

  private makeEngine(kind: string): InferenceEngine {
    const c = this.config;
    switch (kind) {
      case 'a1111':
        return new A1111Engine({
          baseUrl: c.A1111_URL!,
          username: c.A1111_USERNAME,
          password: c.A1111_PASSWORD,
          token: c.A1111_TOKEN,
          timeoutMs: c.A1111_TIMEOUT_MS,
          logger: this.logger,
        });
      case 'comfyui':
        return new ComfyUIEngine({
          baseUrl: c.COMFYUI_URL!,
          token: c.COMFYUI_TOKEN,
          authHeader: c.COMFYUI_AUTH_HEADER,
          workflowDir: c.COMFYUI_WORKFLOW_DIR,
          jobTimeoutMs: c.REMOTE_JOB_TIMEOUT_MS,
          logger: this.logger,
        });
      case 'replicate': {
        // Webhooks only when they can be verified and reached; polling otherwise.
        const webhook = c.PUBLIC_URL && c.REPLICATE_WEBHOOK_SECRET;
        return new ReplicateEngine({
          token: c.REPLICATE_API_TOKEN!,
          apiUrl: c.REPLICATE_API_URL,
          models: {
            generate: c.ENGINE_GENERATE === 'replicate' ? c.REPLICATE_MODEL_GENERATE : undefined,
            inpaint: c.ENGINE_INPAINT === 'replicate' ? c.REPLICATE_MODEL_INPAINT : undefined,
            superResolve:
              c.ENGINE_SUPER_RESOLUTION === 'replicate' ? c.REPLICATE_MODEL_SUPER_RESOLUTION : undefined,
            faceSwap: c.ENGINE_FACE_SWAP === 'replicate' ? c.REPLICATE_MODEL_FACE_SWAP : undefined,
          },
          webhookUrl: webhook ? `${c.PUBLIC_URL!.replace(/\/+$/, '')}${REPLICATE_WEBHOOK_PATH}` : undefined,
          updates: webhook ? this.updates : undefined,
          jobTimeoutMs: c.REMOTE_JOB_TIMEOUT_MS,
          logger: this.logger,
        });
      }
      default:
        // Local work runs on a pool of worker threads, never on this process's event loop.
        return new PooledCpuEngine({
          size: c.ENGINE_POOL_SIZE,
          memoryMb: c.ENGINE_POOL_MEMORY_MB,
          threads: c.ENGINE_THREADS,
          niceIncrement: c.ENGINE_POOL_NICE,
          logger: this.logger,
        });
    }
  }

  /** After the worker's graceful stop (beforeApplicationShutdown), which needs the engines. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.engines.values()].map((engine) => engine.close?.()));
  }
}
