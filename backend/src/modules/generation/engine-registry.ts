import { Inject, Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import type { JobTool } from '@studio/contracts';
import { A1111Engine, LocalCpuEngine, type Capability, type InferenceEngine } from '@studio/inference';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';

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

  constructor(@Inject(APP_CONFIG) private readonly config: AppConfig) {}

  /** The engine for a tool, or null when none configured can do it. */
  engineFor(tool: JobTool): InferenceEngine | null {
    const engine = this.overrides.get(tool) ?? this.engineOfKind(this.kindFor(tool));
    return engine.capabilities.has(CAPABILITY_OF[tool]) ? engine : null;
  }

  /** Replaces a tool's engine in this process (tests and benchmarks: failing or no-op engines). */
  override(tool: JobTool, engine: InferenceEngine | null): void {
    if (engine) this.overrides.set(tool, engine);
    else this.overrides.delete(tool);
  }

  private kindFor(tool: JobTool): string {
    switch (tool) {
      case 'clone':
        return this.config.ENGINE_CLONE;
      case 'superResolution':
        return this.config.ENGINE_SUPER_RESOLUTION;
      case 'faceSwap':
        return this.config.ENGINE_FACE_SWAP;
      case 'faceSwapVideo':
        return 'local'; // frame by frame with ffmpeg; the A1111 API has no video endpoint
      case 'inpaint':
        return this.config.ENGINE_INPAINT;
      case 'generate':
        return this.config.ENGINE_GENERATE;
    }
  }

  private engineOfKind(kind: string): InferenceEngine {
    let engine = this.engines.get(kind);
    if (!engine) {
      engine =
        kind === 'a1111'
          ? new A1111Engine({
              baseUrl: this.config.A1111_URL!,
              username: this.config.A1111_USERNAME,
              password: this.config.A1111_PASSWORD,
              token: this.config.A1111_TOKEN,
              timeoutMs: this.config.A1111_TIMEOUT_MS,
              logger: this.logger,
            })
          : new LocalCpuEngine({ logger: this.logger });
      this.engines.set(kind, engine);
    }
    return engine;
  }

  /** After the worker's graceful stop (beforeApplicationShutdown), which needs the engines. */
  async onApplicationShutdown(): Promise<void> {
    await Promise.all([...this.engines.values()].map((engine) => engine.close?.()));
  }
}
