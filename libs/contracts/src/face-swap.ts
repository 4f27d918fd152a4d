/**
 * Face swap: the free check (POST /api/faceSwap/check) and the face choice of a swap request.
 *
 * The check takes the same multipart upload as POST /api/faceSwap (Swap0 = the face image, Swap1 =
 * the target) and optionally the choice (`sourceFace`, `targetFaces`); it answers what the engine
 * sees, what would be swapped, and the price, and charges nothing. A swap request with the same
 * images and choice runs the same check again and is refused (400, free) unless it passes.
 */

/** Limits of the face choice, written once for the API, the engine and the page. */
export const FACE_SWAP_LIMITS = {
  /** Faces reported per image (largest first); more are ignored. */
  maxFaces: 12,
  /** Target faces one request may swap. */
  maxTargetFaces: 12,
  /**
   * Largest side of the target image the swap works on and returns (the face region alone is
   * processed, so a large target costs little more than a small one).
   */
  targetSideMax: 4096,
  /**
   * Pose difference (degrees of yaw, estimated from the mesh) above which a pair is refused: the
   * hidden side of the face would have to be invented. Up to it the source is warped by the mesh
   * into the target's pose, the side it turns away taken from its mirror image.
   */
  maxYawDifferenceDegrees: 45,
  /** Above this difference the check warns that the result may look less like the source. */
  warnYawDifferenceDegrees: 25,
} as const;

/** Multipart fields of the choice (besides Swap0/Swap1). */
export const FaceSwapFields = {
  /** Index of the source face (default 0, the largest). */
  sourceFace: 'sourceFace',
  /** Comma-separated indexes of target faces, or 'all' (default '0', the largest). */
  targetFaces: 'targetFaces',
} as const;

/**
 * Multipart fields of the video swap (the two files and the choice), for POST /api/faceSwapVideo and its free check POST /api/faceSwapVideo/check.
 */
export const FaceSwapVideoFields = {
  /** The video file. */
  video: 'SwapVideo0',
  /** The face image file. */
  face: 'SwapVideo1',
  /** Index of the face of the face image (default 0, the largest). */
  sourceFace: 'sourceFace',
  /** Index of the face of the video's first frame to replace and follow (default 0, the largest). */
  targetFace: 'targetFace',
} as const;

/** One face the engine found. Boxes are in pixels of the analysed image (FaceSwapImageReport). */
export interface FoundFace {
  /** Its number in the image's list: largest face first. */
  index: number;
  /** [x, y, width, height] */
  box: [number, number, number, number];
  /** Detector confidence 0..1. */
  score: number;
  /** Yaw in degrees, estimated from the mesh: 0 frontal, negative/positive turned to either side. */
  yaw: number;
}

export interface FaceSwapImageReport {
  /** Size of the image as analysed (EXIF orientation applied, fitted within the tool's limit). */
  width: number;
  height: number;
  faces: FoundFace[];
}

export interface FaceSwapCheck {
  source: FaceSwapImageReport;
  target: FaceSwapImageReport;
  /** The chosen source face (null when the source has none). */
  sourceFace: number | null;
  /** The chosen target faces (those that exist). */
  targetFaces: number[];
  /** True when the swap request would be accepted (and charged `price`). */
  ok: boolean;
  /** Why it would be refused (empty when ok). */
  problems: string[];
  /** Accepted, but the result may suffer (poses that differ somewhat). */
  warnings: string[];
  /** Credits the swap would cost. */
  price: number;
}

/** The video swap's free check: the face image and the video's first frame, as the swap sees them. */
export interface FaceSwapVideoCheck {
  source: FaceSwapImageReport;
  /** The first frame at the size the swap processes frames (fitted within 1024 px). */
  frame: FaceSwapImageReport;
  /** The first frame (a JPEG data URL of `frame.width` x `frame.height`), to draw the boxes on. */
  frameImage: string;
  /** Measured with ffprobe: the price follows it. */
  durationSeconds: number;
  sourceFace: number | null;
  /** The face of the first frame to replace and follow (null when it is not there). */
  targetFace: number | null;
  ok: boolean;
  problems: string[];
  warnings: string[];
  price: number;
}

export const FaceSwapMessages = {
  badSourceFace: 'Choose one of the faces found in the face image',
  badTargetFaces: 'Choose one or more of the faces found in the target image',
  choiceUnsupported: 'The face swap engine in use swaps the largest face: leave the face choice out',
  tooManyTargetFaces: `Choose at most ${FACE_SWAP_LIMITS.maxTargetFaces} faces to swap`,
  noFaceFirstFrame: 'No face found in the first frame of the video: the person to follow is chosen there',
  badVideoFace: 'Choose one of the faces found in the first frame of the video',
  poseWarning: (index: number, degrees: number) =>
    `Face ${index + 1} of the target is turned ${Math.round(degrees)}° differently from the source face: the result may look less like the source`,
  poseRefused: (index: number, degrees: number) =>
    `Face ${index + 1} of the target is turned ${Math.round(degrees)}° differently from the source face (at most ${FACE_SWAP_LIMITS.maxYawDifferenceDegrees}°): choose a face image that looks the same way`,
} as const;

/**
 * Parses the `targetFaces` field: undefined or '' -> [0]; 'all' -> every face of `count`;
 * '0,2' -> [0, 2] (sorted, unique). Null when it is not such a list.
 */
export function parseTargetFaces(value: unknown, count: number): number[] | null {
  if (value === undefined || value === '') return [0];
  if (typeof value !== 'string') return null;
  if (value.trim().toLowerCase() === 'all') return Array.from({ length: count }, (_, i) => i);
  const parts = value.split(',').map((part) => part.trim());
  if (!parts.every((part) => /^\d{1,3}$/.test(part))) return null;
  return [...new Set(parts.map(Number))].sort((a, b) => a - b);
}

/** Parses a face index (`sourceFace`, the video's `targetFace`): undefined or '' -> 0; a whole number -> it; else null. */
export function parseFaceIndex(value: unknown): number | null {
  if (value === undefined || value === '') return 0;
  if (typeof value !== 'string' || !/^\d{1,3}$/.test(value.trim())) return null;
  return Number(value.trim());
}

/** Whether a swap of `sourceFace` onto `targetFaces` is accepted, and what to warn about. */
export function judgeFaceSwap(
  source: readonly FoundFace[],
  target: readonly FoundFace[],
  sourceFace: number | null,
  targetFaces: readonly number[] | null,
  noFaceSource: string,
  noFaceTarget: string,
): { ok: boolean; problems: string[]; warnings: string[] } {
  const problems: string[] = [];
  const warnings: string[] = [];
  if (source.length === 0) problems.push(noFaceSource);
  else if (sourceFace === null || sourceFace >= source.length) problems.push(FaceSwapMessages.badSourceFace);
  if (target.length === 0) problems.push(noFaceTarget);
  else if (!targetFaces || targetFaces.length === 0 || targetFaces.some((i) => i >= target.length)) {
    problems.push(FaceSwapMessages.badTargetFaces);
  } else if (targetFaces.length > FACE_SWAP_LIMITS.maxTargetFaces) {
    problems.push(FaceSwapMessages.tooManyTargetFaces);
  }
  if (problems.length === 0) {
    const from = source[sourceFace!];
    for (const index of targetFaces!) {
      const difference = Math.abs(from.yaw - target[index].yaw);
      if (difference > FACE_SWAP_LIMITS.maxYawDifferenceDegrees) {
        problems.push(FaceSwapMessages.poseRefused(index, difference));
      } else if (difference > FACE_SWAP_LIMITS.warnYawDifferenceDegrees) {
        warnings.push(FaceSwapMessages.poseWarning(index, difference));
      }
    }
  }
  return { ok: problems.length === 0, problems, warnings };
}

/**
 * judgeFaceSwap for the video swap: one face of the face image onto one face of the video's first
 * frame (the person then followed through the clip), with the video's own wording.
 */
export function judgeFaceSwapVideo(
  source: readonly FoundFace[],
  frame: readonly FoundFace[],
  sourceFace: number | null,
  targetFace: number | null,
  noFaceSource: string,
): { ok: boolean; problems: string[]; warnings: string[] } {
  const verdict = judgeFaceSwap(
    source,
    frame,
    sourceFace,
    targetFace === null ? null : [targetFace],
    noFaceSource,
    FaceSwapMessages.noFaceFirstFrame,
  );
  const problems = verdict.problems.map((p) =>
    p === FaceSwapMessages.badTargetFaces ? FaceSwapMessages.badVideoFace : p,
  );
  return { ...verdict, problems };
}
