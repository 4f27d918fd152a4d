import {
  FaceSwapVideoFields,
  JobMessages,
  judgeFaceSwapVideo,
  type FaceSwapVideoCheck,
} from '@studio/contracts';
import { useEffect, useMemo, useState } from 'react';
import { apiUpload, errorText } from '../../api/client';
import type { PickedImage } from '../../images/scaleImage';

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
  const [check, setCheck] = useState<FaceSwapVideoCheck | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [choice, setChoice] = useState<VideoFaceChoice>({ sourceFace: 0, targetFace: 0 });

  useEffect(() => {
    setCheck(null);
    setError(null);
    setChecking(false);
    setChoice({ sourceFace: 0, targetFace: 0 });
    if (!video || !face || !enabled) return;
    let current = true;
    const form = new FormData();
    form.append('SwapVideo0', video, video.name);
    form.append('SwapVideo1', face.blob, face.fileName);
    setChecking(true);
    void apiUpload<FaceSwapVideoCheck | string>('/faceSwapVideo/check', form).then((result) => {
      if (!current) return;
      setChecking(false);
      const content = result.body?.content;
      if (result.ok && content && typeof content === 'object') setCheck(content);
      else setError(errorText(result));
    });
    return () => {
      current = false;
    };
  }, [video, face, enabled]);

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
