import path from 'node:path';
import {
  DECODE_LIMITS,
  FACE_SWAP_LIMITS,
  JobMessages,
  judgeFaceSwap,
  type FoundFace,
} from '@studio/contracts';
import { cloneImage } from './clone';
import {
  CapabilityUnavailableError,
  CloneRequest,
  EncodedImage,
  EngineInputError,
  FaceSwapRequest,
  FaceSwapVideoRequest,
  ContentReport,
  FindFacesRequest,
  FingerprintRequest,
  FoundFaces,
  InspectContentRequest,
  GenerateRequest,
  InferenceEngine,
  InpaintRequest,
  RunContext,
  SuperResolveRequest,
} from './engine.port';
import { NsfwClassifier } from './content-classifier';
import { FaceAnalyzer, type DetectedFace } from './face-analyzer';
import { fingerprintImage, type ImageFingerprint } from './fingerprint';
import { LOCAL_CPU_CAPABILITIES } from './local-capabilities';
import { DEFAULT_SWAP_TUNING, SwapTuning, swapFace, yawDegreesOf } from './face-swap';
import { decodeRgb, fromRgb, MAX_SIDE } from './image-io';
import { inpaintImage } from './inpaint';
import { loadOpenCv } from './opencv';
import { EngineLogger, silentLogger } from './logger';
import { markAiGenerated } from './provenance';
import { SuperResolver } from './super-resolution';
import { swapFaceInVideo } from './video-swap';

export interface LocalCpuEngineOptions {
  /**
   * A folder holding copies of the models: `human/` (Human's blazeface, facemesh and faceres
   * .json/.bin) and `esrgan-slim/x2/model.json` with its shard. Default: the models shipped in the
   * npm packages.
   */
  modelsDir?: string;
  logger?: EngineLogger;
  /** Overrides of the face swap's blending knobs. */
  swapTuning?: Partial<SwapTuning>;
  /** Where video face swaps keep their temporary frames; default: the OS's temp folder. */
  tempDir?: string;
  /**
   * Threads one task's model runtime may use (the engine pool bounds it so pool and API share the
   * cores): onnxruntime's intra-op threads for super resolution (default 1). Its run is synchronous
   * native code: cancel through the signal (checked between tiles), never by terminating the worker
   * thread mid-run, which aborts the whole process (sr-onnx.ts).
   */
  threads?: number;
  /** Called once per model when it has loaded (on first use or by `warmup()`). */
  onModelLoaded?: (model: EngineModel) => void;
}

/**
 * The engine's models, in the order `warmup()` loads them: the content check's first (nsfwjs, and
 * Human's face models for face ages: every job's outputs pass that check), then the tools' own
 * (super resolution's onnx model, OpenCV.js for Magic Brush). A clone needs none of them.
 */
export const ENGINE_MODELS = ['contentClassifier', 'faces', 'superResolution', 'opencv'] as const;
export type EngineModel = (typeof ENGINE_MODELS)[number];

/**
 * The models every job needs (the content check of its inputs and outputs), which an engine pool
 * thread loads in the background once it is up; a tool's own models load on its first use.
 */
export const CONTENT_CHECK_MODELS: readonly EngineModel[] = ['contentClassifier', 'faces'];

/** JPEG quality of face swap results. */
const SWAP_JPEG_QUALITY = 92;

/**
 * The engine that runs on the worker's own CPU: clones (sharp), 2x super resolution (ESRGAN-slim),
 * face swap on images and videos (Human's face mesh, landmark warp and blend; ffmpeg for videos), on
 * tfjs' wasm backend, and inpainting (OpenCV.js). Each tool loads the models it needs on first use
 * (`loadModel`), or `warmup()` loads them all. Safe to call concurrently: model work is serialised through the
 * thread's queue (tf-runtime's modelQueue), image encoding and decoding (sharp) runs in parallel.
 * It computes on the calling thread: the backend runs it inside the engine pool's worker threads
 * (pool/engine-pool.ts), one instance per thread.
 */
export class LocalCpuEngine implements InferenceEngine {
  readonly name = 'local-cpu';
  readonly capabilities = LOCAL_CPU_CAPABILITIES;
  /** Face detection and embeddings, shared with the face swap. */
  readonly faces: FaceAnalyzer;
  private readonly superResolver: SuperResolver;
  /** nsfwjs, loaded on first use (the content check of every input and output). */
  private readonly classifier: NsfwClassifier;
  private readonly logger: EngineLogger;
  private readonly swapTuning: SwapTuning;
  private readonly tempDir?: string;
  private readonly onModelLoaded?: (model: EngineModel) => void;
  private readonly loadedModels = new Set<EngineModel>();

  constructor(options: LocalCpuEngineOptions = {}) {
    this.logger = options.logger ?? silentLogger;
    this.onModelLoaded = options.onModelLoaded;
    const { modelsDir } = options;
    this.faces = new FaceAnalyzer({
      modelsDir: modelsDir ? path.join(modelsDir, 'human') : undefined,
      logger: this.logger,
    });
    this.superResolver = new SuperResolver({
      modelDir: modelsDir ? path.join(modelsDir, 'realesrgan') : undefined,
      logger: this.logger,
      threads: options.threads,
    });
    this.classifier = new NsfwClassifier(this.logger);
    this.swapTuning = { ...DEFAULT_SWAP_TUNING, ...options.swapTuning };
    this.tempDir = options.tempDir;
  }

  /**
   * Loads every model now rather than on the first job that needs it, in ENGINE_MODELS' order.
   * Rejects if the face models or the content classifier cannot load.
   */
  async warmup(): Promise<void> {
    const started = Date.now();
    for (const model of ENGINE_MODELS) await this.loadModel(model);
    this.logger.log(`Local CPU engine warmed up in ${Date.now() - started} ms`);
  }

  /** Loads one model (once: later calls share the load); each tool calls it for what it needs. */
  async loadModel(model: EngineModel): Promise<void> {
    switch (model) {
      case 'contentClassifier':
        await this.classifier.load();
        break;
      case 'faces':
        await this.faces.load();
        break;
      case 'superResolution':
        await this.superResolver.load(); // never rejects: super resolution falls back to Lanczos
        break;
      case 'opencv':
        await loadOpenCv();
        break;
    }
    if (!this.loadedModels.has(model)) {
      this.loadedModels.add(model);
      this.onModelLoaded?.(model);
    }
  }

  clone(request: CloneRequest, context?: RunContext): Promise<EncodedImage[]> {
    return cloneImage(request.image, request.amount, context);
  }

  async superResolve(request: SuperResolveRequest, context?: RunContext): Promise<EncodedImage> {
    await this.loadModel('superResolution');
    return this.superResolver.upscale(request.image, request.scale ?? 2, context);
  }

  async faceSwap(request: FaceSwapRequest, context: RunContext = {}): Promise<EncodedImage> {
    const progress = (fraction: number) => context.onProgress?.(fraction);
    await this.loadModel('faces');
    // The target at its full size (up to the tool's limit): only its face regions are processed.
    const [source, target] = await Promise.all([
      decodeRgb(request.face),
      decodeRgb(request.target, FACE_SWAP_LIMITS.targetSideMax),
    ]);
    context.signal?.throwIfAborted();
    const sourceFaces = await this.faces.detectAnySize(source);
    progress(0.2);
    context.signal?.throwIfAborted();
    const targetFaces = await this.faces.detectAnySize(target);
    progress(0.4);
    // The same judgement as the free check (judgeFaceSwap): a request that passed it passes here.
    const sourceIndex = request.sourceFace ?? 0;
    const targetIndexes = request.targetFaces ?? [0];
    const verdict = judgeFaceSwap(
      sourceFaces.map((face, index) => foundFace(face, index)),
      targetFaces.map((face, index) => foundFace(face, index)),
      sourceIndex,
      targetIndexes,
      JobMessages.noFaceSource,
      JobMessages.noFaceTarget,
    );
    if (!verdict.ok) {
      const [problem] = verdict.problems;
      const code =
        problem === JobMessages.noFaceSource
          ? 'no_face_source'
          : problem === JobMessages.noFaceTarget
            ? 'no_face_target'
            : 'bad_request';
      throw new EngineInputError(code, problem);
    }
    let swapped = target;
    for (const [n, index] of targetIndexes.entries()) {
      context.signal?.throwIfAborted();
      swapped = await swapFace(
        source,
        sourceFaces[sourceIndex],
        swapped,
        targetFaces[index],
        this.swapTuning,
      );
      progress(0.4 + (0.45 * (n + 1)) / targetIndexes.length);
    }
    const data = await markAiGenerated(fromRgb(swapped), 'face swap')
      .jpeg({ quality: SWAP_JPEG_QUALITY })
      .toBuffer();
    progress(1);
    return { data, format: 'jpeg', width: swapped.width, height: swapped.height };
  }

  /** The faces the swap sees in each image, read as the swap reads it (its free check). */
  async findFaces(request: FindFacesRequest, context: RunContext = {}): Promise<FoundFaces[]> {
    const found: FoundFaces[] = [];
    await this.loadModel('faces');
    for (const [i, image] of request.images.entries()) {
      context.signal?.throwIfAborted();
      const rgb = await decodeRgb(image, request.maxSides[i] ?? MAX_SIDE);
      const faces = request.frames?.[i]
        ? await this.faces.detectRgb(rgb)
        : await this.faces.detectAnySize(rgb);
      found.push({
        width: rgb.width,
        height: rgb.height,
        faces: faces.map((face, index) => {
          const { box, score, yaw } = foundFace(face, index);
          return { box, score, yaw };
        }),
      });
    }
    return found;
  }

  /** Telea's fill refined by an exemplar (PatchMatch) fill; the prompt is not used (see inpaint.ts). */
  async inpaint(request: InpaintRequest, context?: RunContext): Promise<EncodedImage> {
    await this.loadModel('opencv');
    return inpaintImage(request, context);
  }

  async generate(_request: GenerateRequest, _context?: RunContext): Promise<EncodedImage> {
    throw new CapabilityUnavailableError('generate');
  }

  /** The image face swap on every frame, re-encoded to H.264 with the original audio (video-swap.ts). */
  async faceSwapVideo(request: FaceSwapVideoRequest, context?: RunContext): Promise<void> {
    await this.loadModel('faces');
    await swapFaceInVideo(
      request,
      { faces: this.faces, tuning: this.swapTuning, logger: this.logger, tempDir: this.tempDir },
      context,
    );
  }

  /** Each image's class scores (nsfwjs) and each face's age estimate (Human's faceres). */
  async inspectContent(request: InspectContentRequest, context: RunContext = {}): Promise<ContentReport[]> {
    const reports: ContentReport[] = [];
    await this.loadModel('contentClassifier');
    await this.loadModel('faces');
    for (const image of request.images) {
      context.signal?.throwIfAborted();
      let started = Date.now();
      const scores = await this.classifier.classify(image);
      const classifyMs = Date.now() - started;
      started = Date.now();
      const rgb = await decodeRgb(image, MAX_SIDE);
      const faces: ContentReport['faces'] = [];
      for (const face of await this.faces.detectAnySize(rgb)) {
        faces.push({ box: face.box, age: await this.faces.ageRgb(rgb, face.box) });
      }
      reports.push({ scores, faces, timings: { classifyMs, facesMs: Date.now() - started } });
    }
    return reports;
  }

  /** Exact and perceptual hashes (pHash) of each image, within the output decoding budget. */
  async fingerprint(request: FingerprintRequest, context: RunContext = {}): Promise<ImageFingerprint[]> {
    const prints: ImageFingerprint[] = [];
    for (const image of request.images) {
      context.signal?.throwIfAborted();
      prints.push(
        await fingerprintImage(image, { maxPixels: DECODE_LIMITS.outputImagePixels, crops: request.crops }),
      );
    }
    return prints;
  }

  async close(): Promise<void> {
    this.loadedModels.clear();
    await Promise.all([this.faces.close(), this.superResolver.close(), this.classifier.close()]);
  }
}

/** A detected face as the check reports it: box, score and yaw in degrees (rounded). */
function foundFace(face: DetectedFace, index: number): FoundFace {
  return {
    index,
    box: face.box,
    score: Math.round(face.score * 1000) / 1000,
    yaw: Math.round(yawDegreesOf(face) * 10) / 10,
  };
}
