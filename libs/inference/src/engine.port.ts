import type { ImageFingerprint } from './fingerprint';
/**
 * The inference engine port: one method per capability and the list of capabilities an engine has.
 * The backend picks an engine per tool by configuration; the job processors only see this port.
 */
export const Capabilities = [
  'clone',
  'superResolve',
  'faceSwap',
  'inpaint',
  'generate',
  'faceSwapVideo',
] as const;
export type Capability = (typeof Capabilities)[number];

/** An encoded image (PNG, JPEG or WebP bytes) and its size. */
export interface EncodedImage {
  data: Buffer;
  format: 'png' | 'jpeg' | 'webp';
  width: number;
  height: number;
}

/** What a running job gives the engine: progress reporting and cancellation. */
export interface RunContext {
  /** fraction 0..1 of the work done */
  onProgress?(fraction: number): void;
  signal?: AbortSignal;
}

export interface CloneRequest {
  image: Buffer;
  amount: number;
}

export interface SuperResolveRequest {
  image: Buffer;
  /** Upscaling factor; the local engine supports 2. */
  scale?: 2 | 4;
}

export interface FaceSwapRequest {
  /** The image whose face is used. */
  face: Buffer;
  /** The image that receives the face. */
  target: Buffer;
  /** Which face of `face` to use (largest first; default 0). */
  sourceFace?: number;
  /** Which faces of `target` to replace (largest first; default [0]). */
  targetFaces?: number[];
}

/** Images whose faces are wanted (the face swap's free check). */
export interface FindFacesRequest {
  images: Buffer[];
  /** Per image, the largest side it is analysed at (as the swap reads it). */
  maxSides: number[];
  /**
   * Per image, true for a video frame: searched as the video swap searches its frames (the whole
   * picture, no tiles), so the check's face numbers are the swap's.
   */
  frames?: boolean[];
}

/** The faces of one image, largest first; boxes in pixels of the image at `width` x `height`. */
export interface FoundFaces {
  width: number;
  height: number;
  faces: { box: [number, number, number, number]; score: number; yaw: number }[];
}

/** Images to look at before they are used or shown (every input and output of a job). */
/** Images to fingerprint (copy finding); `crops`: also hash the crops a stored output keeps. */
export interface FingerprintRequest {
  images: Buffer[];
  crops: boolean;
}

export interface InspectContentRequest {
  images: Buffer[];
}

/** nsfwjs' class scores of one image (0..1, summing to about 1). */
export interface ContentClassScores {
  drawing: number;
  hentai: number;
  neutral: number;
  porn: number;
  sexy: number;
}

/** What was seen in one image: its class scores and each face's estimated age (largest face first). */
export interface ContentReport {
  scores: ContentClassScores;
  faces: { box: [number, number, number, number]; age: number }[];
  /** Milliseconds spent classifying and estimating ages (benchmarks). */
  timings: { classifyMs: number; facesMs: number };
}

export interface InpaintRequest {
  image: Buffer;
  /** White where the image is to be repainted, black elsewhere; same size as the image. */
  mask: Buffer;
  prompt: string;
}

export interface GenerateRequest {
  prompt: string;
  width: number;
  height: number;
}

export interface FaceSwapVideoRequest {
  /** Path of the input video on local disk. */
  videoPath: string;
  face: Buffer;
  /** Where the engine writes the result (.mp4). */
  outputPath: string;
  /** Which face of `face` to use (largest first; default 0). */
  sourceFace?: number;
  /** Which face of the first frame with faces to replace and follow (largest first; default 0). */
  targetFace?: number;
}

export interface InferenceEngine {
  readonly name: string;
  readonly capabilities: ReadonlySet<Capability>;
  clone(request: CloneRequest, context?: RunContext): Promise<EncodedImage[]>;
  superResolve(request: SuperResolveRequest, context?: RunContext): Promise<EncodedImage>;
  faceSwap(request: FaceSwapRequest, context?: RunContext): Promise<EncodedImage>;
  inpaint(request: InpaintRequest, context?: RunContext): Promise<EncodedImage>;
  generate(request: GenerateRequest, context?: RunContext): Promise<EncodedImage>;
  faceSwapVideo(request: FaceSwapVideoRequest, context?: RunContext): Promise<void>;
  /** The faces the face swap would see in each image (local engines; free to call). */
  findFaces?(request: FindFacesRequest, context?: RunContext): Promise<FoundFaces[]>;
  /** Class scores and face ages of images (local engines; the content check before use or display). */
  inspectContent?(request: InspectContentRequest, context?: RunContext): Promise<ContentReport[]>;
  /** Exact and perceptual hashes of images (local engines; copy finding, see fingerprint.ts). */
  fingerprint?(request: FingerprintRequest, context?: RunContext): Promise<ImageFingerprint[]>;
  /** Loads models ahead of the first job (optional; engines load lazily anyway). */
  warmup?(): Promise<void>;
  /** Releases models and workers. */
  close?(): Promise<void>;
  /** Remote engines: whether the server answers, and what it reports (operations page, 503s). */
  status?(): Promise<EngineStatus>;
}

/**
 * Whether a remote engine can take jobs, the first obstacle found: no answer ('unreachable'), the
 * credentials refused ('unauthorised'), a model, node or extension a tool needs is not on the
 * server ('models_missing', see EngineStatus.missing), else 'ready'.
 */
export type EngineReadiness = 'unreachable' | 'unauthorised' | 'models_missing' | 'ready';

/** What a remote engine's server says about itself. */
export interface EngineStatus {
  reachable: boolean;
  readiness?: EngineReadiness;
  /** What the server lacks, per capability ("ReActor model inswapper_128.onnx"). */
  missing?: { capability: Capability; what: string }[];
  /** One line for people: the GPU and its free memory, the account, or why it does not answer. */
  detail: string;
  gpu?: { name: string; vramFreeBytes: number; vramTotalBytes: number };
  /** The server's own queue (jobs from every client). */
  queue?: { running: number; pending: number };
}

/**
 * The request itself cannot succeed (no face, unreadable image): the job fails at once, without
 * retries, and the user reads `message`.
 */
export class EngineInputError extends Error {
  constructor(
    readonly code: 'no_face_source' | 'no_face_target' | 'bad_image' | 'bad_request',
    message: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'EngineInputError';
  }
}

/** The engine has no such capability (for example, image generation without a remote engine). */
export class CapabilityUnavailableError extends Error {
  constructor(readonly capability: Capability) {
    super(`The ${capability} capability is not available on this engine`);
    this.name = 'CapabilityUnavailableError';
  }
}

/**
 * The engine's worker thread died under the task (it ran out of its memory ceiling, or exited):
 * retrying would most likely die the same way, so the job fails at once and is refunded.
 */
export class EngineCrashedError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EngineCrashedError';
  }
}
