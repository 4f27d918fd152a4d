import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import type { JobTool } from '@studio/contracts';
import { LocalCpuEngine, type Capability, type InferenceEngine } from '@studio/inference';
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
export class EngineRegistry implements OnModuleDestroy {
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
      case 'faceSwapVideo':
        return this.config.ENGINE_FACE_SWAP;
      case 'inpaint':
        return this.config.ENGINE_INPAINT;
      case 'generate':
        return this.config.ENGINE_GENERATE;
    }
  }

  private engineOfKind(kind: string): InferenceEngine {
    let engine = this.engines.get(kind);
    if (!engine) {
      engine = new LocalCpuEngine({ logger: this.logger });
      this.engines.set(kind, engine);
    }
    return engine;
  }

  async onModuleDestroy(): Promise<void> {
    await Promise.all([...this.engines.values()].map((engine) => engine.close?.()));
  }
}
