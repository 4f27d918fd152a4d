import {
  FaceSwapVideoFields,
  JobMessages,
  judgeFaceSwapVideo,
  type FaceSwapVideoCheck,
} from '@studio/contracts';
import { useEffect, useMemo, useState } from 'react';
import type { PickedImage } from '../../images/scaleImage';
import { useCheckRequest, type CheckPart } from '../FaceSwap/useCheckRequest';

export interface VideoFaceChoice {
  sourceFace: number;
  targetFace: number;
}

/**
 * The video swap's free check (POST /api/faceSwapVideo/check) of the chosen video and face image,
 * made once per pair (only while the feature is on: the server refuses the check otherwise); the
 * faces picked afterwards are judged here with the rule the server applies (judgeFaceSwapVideo).
 */
export function useVideoFaceCheck(video: File | null, face: PickedImage | null, enabled: boolean) {
  const parts = useMemo<CheckPart[] | null>(
    () =>
      video && face && enabled
        ? [
            [FaceSwapVideoFields.video, video, video.name],
            [FaceSwapVideoFields.face, face.blob, face.fileName],
          ]
        : null,
    [video, face, enabled],
  );
  const { check, error, checking } = useCheckRequest<FaceSwapVideoCheck>('/faceSwapVideo/check', parts);
  const [choice, setChoice] = useState<VideoFaceChoice>({ sourceFace: 0, targetFace: 0 });
  useEffect(() => setChoice({ sourceFace: 0, targetFace: 0 }), [parts]);

  const verdict = useMemo(() => {
    if (!check) return null;
    return judgeFaceSwapVideo(
      check.source.faces,
      check.frame.faces,
      choice.sourceFace,
      choice.targetFace,
      JobMessages.noFaceSource,
    );
  }, [check, choice]);

  const chooseSource = (index: number) => setChoice((c) => ({ ...c, sourceFace: index }));
  const chooseTarget = (index: number) => setChoice((c) => ({ ...c, targetFace: index }));

  /** The choice as the swap request's fields. */
  const fields = (): [string, string][] => [
    [FaceSwapVideoFields.sourceFace, String(choice.sourceFace)],
    [FaceSwapVideoFields.targetFace, String(choice.targetFace)],
  ];

  return { check, error, checking, choice, verdict, chooseSource, chooseTarget, fields };
}
