import { JobFields, JobMessages, judgeFaceSwap, type FaceSwapCheck } from '@studio/contracts';
import { useEffect, useMemo, useState } from 'react';
import type { PickedImage } from '../../images/scaleImage';
import { useCheckRequest, type CheckPart } from './useCheckRequest';

export interface FaceChoice {
  sourceFace: number;
  targetFaces: number[];
}

/**
 * The free check (POST /api/faceSwap/check) of the two chosen images, made once per pair; the
 * user's choice of faces is then judged here with the same rule the server applies
 * (judgeFaceSwap), so clicking faces costs no round trip. The swap request is checked again.
 */
export function useFaceCheck(face: PickedImage | null, target: PickedImage | null) {
  const parts = useMemo<CheckPart[] | null>(
    () =>
      face && target
        ? [
            [JobFields.swapFace, face.blob, face.fileName],
            [JobFields.swapTarget, target.blob, target.fileName],
          ]
        : null,
    [face, target],
  );
  const { check, error, checking } = useCheckRequest<FaceSwapCheck>('/faceSwap/check', parts);
  const [choice, setChoice] = useState<FaceChoice>({ sourceFace: 0, targetFaces: [0] });
  useEffect(() => setChoice({ sourceFace: 0, targetFaces: [0] }), [parts]);

  const verdict = useMemo(() => {
    if (!check) return null;
    return judgeFaceSwap(
      check.source.faces,
      check.target.faces,
      choice.sourceFace,
      choice.targetFaces,
      JobMessages.noFaceSource,
      JobMessages.noFaceTarget,
    );
  }, [check, choice]);

  const chooseSource = (index: number) => setChoice((c) => ({ ...c, sourceFace: index }));
  const toggleTarget = (index: number) =>
    setChoice((c) => ({
      ...c,
      targetFaces: c.targetFaces.includes(index)
        ? c.targetFaces.filter((i) => i !== index)
        : [...c.targetFaces, index].sort((a, b) => a - b),
    }));
  const chooseAllTargets = () =>
    setChoice((c) => ({ ...c, targetFaces: check ? check.target.faces.map((f) => f.index) : c.targetFaces }));

  return { check, error, checking, choice, verdict, chooseSource, toggleTarget, chooseAllTargets };
}
