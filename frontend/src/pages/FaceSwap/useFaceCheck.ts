import { JobFields, JobMessages, judgeFaceSwap, type FaceSwapCheck } from '@studio/contracts';
import { useEffect, useMemo, useState } from 'react';
import { apiUpload, errorText } from '../../api/client';
import type { PickedImage } from '../../images/scaleImage';

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
  const [check, setCheck] = useState<FaceSwapCheck | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [checking, setChecking] = useState(false);
  const [choice, setChoice] = useState<FaceChoice>({ sourceFace: 0, targetFaces: [0] });

  useEffect(() => {
    setCheck(null);
    setError(null);
    setChoice({ sourceFace: 0, targetFaces: [0] });
    if (!face || !target) return;
    let current = true;
    const form = new FormData();
    form.append(JobFields.swapFace, face.blob, face.fileName);
    form.append(JobFields.swapTarget, target.blob, target.fileName);
    setChecking(true);
    void apiUpload<FaceSwapCheck | string>('/faceSwap/check', form).then((result) => {
      if (!current) return;
      setChecking(false);
      const content = result.body?.content;
      if (result.ok && content && typeof content === 'object') setCheck(content);
      else setError(errorText(result));
    });
    return () => {
      current = false;
    };
  }, [face, target]);

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
