import { BadRequestException, Injectable } from '@nestjs/common';
import {
  type ContentCheck,
  FACE_SWAP_LIMITS,
  IMAGE_SIDE_MAX,
  JobMessages,
  judgeFaceSwap,
  judgeFaceSwapVideo,
  parseFaceIndex,
  parseTargetFaces,
  quoteTool,
  type FaceSwapCheck,
  type FaceSwapImageReport,
  type FaceSwapVideoCheck,
} from '@studio/contracts';
import { EngineInputError, extractFirstFrame, type FoundFaces as EngineFoundFaces } from '@studio/inference';
import type { AuthUser } from '../auth';
import { ContentSafety } from '../content-safety';
import { EngineRegistry } from '../engines';
import type { NormalizedImage } from './image-input';
import type { ProbedVideo } from './video-input';

/** The face choice of a request, as sent (multipart fields). */
export interface FaceChoiceFields {
  sourceFace?: unknown;
  targetFaces?: unknown;
}

/** The video swap's choice, as sent (multipart fields). */
export interface VideoFaceChoiceFields {
  sourceFace?: unknown;
  targetFace?: unknown;
}

/**
 * The face swap's free check: the faces the engine finds in both images (in the engine pool, never
 * on the API's thread), the choice, whether the swap would be accepted and what it costs. Nothing
 * is stored and nothing is charged; a swap request runs it again before its reservation.
 */
@Injectable()
export class FaceSwapChecks {
  constructor(
    private readonly engines: EngineRegistry,
    private readonly safety: ContentSafety,
  ) {}

  /**
   * The content check of a face swap's images (free, before any charge): a source or target
   * classified sexual is refused (403, sexual_input). Answers what was seen, to store with the job.
   */
  async content(user: AuthUser, source: NormalizedImage, target: NormalizedImage): Promise<ContentCheck[]> {
    return this.safety.refuseSexualInputs(user, 'faceSwap', [source.data, target.data]);
  }

  /** The same for a video swap: the face image and the video's first frame. */
  async videoContent(
    user: AuthUser,
    face: NormalizedImage,
    videoPath: string,
    video: ProbedVideo,
  ): Promise<ContentCheck[]> {
    const frame = await extractFirstFrame(videoPath, video.info);
    return this.safety.refuseSexualInputs(user, 'faceSwapVideo', [face.data, frame]);
  }

  async check(
    source: NormalizedImage,
    target: NormalizedImage,
    fields: FaceChoiceFields,
  ): Promise<FaceSwapCheck> {
    let found: EngineFoundFaces[];
    try {
      found = await this.engines.faceFinder().findFaces({
        images: [source.data, target.data],
        // As the swap reads them (LocalCpuEngine.faceSwap).
        maxSides: [IMAGE_SIDE_MAX, FACE_SWAP_LIMITS.targetSideMax],
      });
    } catch (err) {
      if (err instanceof EngineInputError) throw new BadRequestException(err.message);
      throw err;
    }
    const [sourceReport, targetReport] = found.map(report);
    const sourceFace = parseFaceIndex(fields.sourceFace);
    const targetFaces = parseTargetFaces(fields.targetFaces, targetReport.faces.length);
    const verdict = judgeFaceSwap(
      sourceReport.faces,
      targetReport.faces,
      sourceFace,
      targetFaces,
      JobMessages.noFaceSource,
      JobMessages.noFaceTarget,
    );
    return {
      source: sourceReport,
      target: targetReport,
      sourceFace: sourceFace !== null && sourceFace < sourceReport.faces.length ? sourceFace : null,
      targetFaces: (targetFaces ?? []).filter((i) => i < targetReport.faces.length),
      ...verdict,
      price: quoteTool('faceSwap', 1),
    };
  }

  /** Whether swap requests must pass the check before they are charged (a local engine). */
  enforced(): boolean {
    return this.engines.faceSwapChecked();
  }

  /**
   * The video swap's free check: the faces of the face image and of the video's first frame, which
   * ffmpeg (a child process) extracts exactly as the swap extracts its frames; both are analysed
   * in the engine pool, the frame as the swap searches frames. `videoPath` is a video already
   * probed (probeUploadedVideo).
   */
  async checkVideo(
    face: NormalizedImage,
    videoPath: string,
    { info, durationSeconds }: ProbedVideo,
    fields: VideoFaceChoiceFields,
  ): Promise<FaceSwapVideoCheck> {
    let found: EngineFoundFaces[];
    let frame: Buffer;
    try {
      frame = await extractFirstFrame(videoPath, info);
      found = await this.engines.faceFinder('faceSwapVideo').findFaces({
        images: [face.data, frame],
        maxSides: [IMAGE_SIDE_MAX, IMAGE_SIDE_MAX],
        frames: [false, true],
      });
    } catch (err) {
      if (err instanceof EngineInputError) throw new BadRequestException(err.message);
      throw err;
    }
    const [sourceReport, frameReport] = found.map(report);
    const sourceFace = parseFaceIndex(fields.sourceFace);
    const targetFace = parseFaceIndex(fields.targetFace);
    const verdict = judgeFaceSwapVideo(
      sourceReport.faces,
      frameReport.faces,
      sourceFace,
      targetFace,
      JobMessages.noFaceSource,
    );
    const within = (index: number | null, count: number) => (index !== null && index < count ? index : null);
    return {
      source: sourceReport,
      frame: frameReport,
      frameImage: `data:image/jpeg;base64,${frame.toString('base64')}`,
      durationSeconds,
      sourceFace: within(sourceFace, sourceReport.faces.length),
      targetFace: within(targetFace, frameReport.faces.length),
      ...verdict,
      price: quoteTool('faceSwapVideo', durationSeconds),
    };
  }

  /** Whether video swap requests must pass the video check before they are charged. */
  videoEnforced(): boolean {
    return this.engines.faceSwapChecked('faceSwapVideo');
  }
}

function report(found: EngineFoundFaces): FaceSwapImageReport {
  return {
    width: found.width,
    height: found.height,
    faces: found.faces
      .slice(0, FACE_SWAP_LIMITS.maxFaces)
      .map((face, index) => ({ index, box: face.box, score: face.score, yaw: face.yaw })),
  };
}
