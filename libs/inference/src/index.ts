export * from './engine.port';
export { LocalCpuEngine } from './local-engine';
export type { EngineModel, LocalCpuEngineOptions } from './local-engine';
export { CONTENT_CHECK_MODELS, ENGINE_MODELS } from './local-engine';
export {
  PooledCpuEngine,
  defaultPoolSize,
  defaultEngineThreads,
  DEFAULT_POOL_MEMORY_MB,
} from './pool/engine-pool';
export type { PooledCpuEngineOptions } from './pool/engine-pool';
export { FaceAnalyzer, faceDistance } from './face-analyzer';
export type { FaceAnalyzerOptions, FaceDetection, DetectedFace, Box, Point } from './face-analyzer';
export { SuperResolver } from './super-resolution';
export type { SuperResolverOptions, SrRuntime } from './super-resolution';
export { watchNativeRuns } from './sr-onnx';
export { cloneImage, CLONE_NOISE_OPACITY } from './clone';
export { swapFace, DEFAULT_SWAP_TUNING } from './face-swap';
export type { SwapTuning } from './face-swap';
export { AI_GENERATED_MARK, IPTC_COMPOSITE_WITH_AI, IPTC_TRAINED_ALGORITHMIC_MEDIA } from './provenance';
export { ProvenanceMarker, manifestFor, PROVENANCE_SCRIPT } from './provenance-marker';
export type {
  ProvenanceOptions,
  MarkRequest,
  MarkResult,
  Inspection,
  ManifestSummary,
  ManifestState,
  IngredientInput,
  OutputFormat,
} from './provenance-marker';
export type { EngineLogger } from './logger';
export { inpaintImage, decodeMask, INPAINT_RADIUS } from './inpaint';
export type { BinaryMask } from './inpaint';
export {
  probeVideo,
  isVideoTooLong,
  extractFirstFrame,
  sampleFrames,
  swapFaceInVideo,
  AI_GENERATED_VIDEO_COMMENT,
  VIDEO_DURATION_TOLERANCE_SECONDS,
  VIDEO_MAX_FPS,
} from './video-swap';
export { CAPPED_FFMPEG, CAPPED_FFPROBE, DecodeBudgetError, isVideoFrameTooLarge } from './decoders';
export { ImageDecoder, UnreadableImageError } from './decoders/image-decoder';
export type { DecodedImage, ImageDecodeRequest, ImageDecoderOptions } from './decoders/image-decoder';
export type { VideoInfo, VideoFaceSwapOptions, VideoFaceSwapResult } from './video-swap';
export * from './remote';
export { NsfwClassifier, CONTENT_CLASSES } from './content-classifier';
export type { ContentClass, ContentScores } from './content-classifier';
export { ageOfBins } from './face-analyzer';
export {
  fingerprintImage,
  hammingHex,
  sampleVideoFrames,
  sha256Hex,
  videoFramesMatch,
  PHASH_MATCH_BITS,
  VIDEO_SAMPLE_FRAMES,
} from './fingerprint';
export type { ImageFingerprint } from './fingerprint';
