import { FaceSwapFields, JobFields, JobMessages, Messages, type JobSubmitContent } from '@studio/contracts';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiUpload, errorText, NO_RESPONSE } from '../../api/client';
import type { PickedImage } from '../../images/scaleImage';
import { useJobs } from '../../jobs/useJobs';
import { Paths } from '../../paths';
import { useSession } from '../../session/useSession';
import { useToast } from '../../ui/toast';

export interface SwapRequest {
  face: PickedImage;
  target: PickedImage;
  folder: string;
  cost: number;
  /** The faces chosen after the free check (largest first). */
  sourceFace?: number;
  targetFaces?: number[];
}

/**
 * Sends POST /api/faceSwap (Swap0 face, Swap1 target, author, folder, consent). The server queues
 * the job and answers at once; the job tray follows it from there.
 */
export function useFaceSwap() {
  const { account, balance } = useSession();
  const { track } = useJobs();
  const toast = useToast();
  const navigate = useNavigate();
  const [busy, setBusy] = useState(false);

  const swap = async ({ face, target, folder, cost, sourceFace, targetFaces }: SwapRequest) => {
    if (!account) {
      toast.error(Messages.needLogin);
      navigate(Paths.login);
      return;
    }
    if (cost > (balance ?? 0)) {
      toast.error(Messages.notEnoughCredits);
      return;
    }
    const form = new FormData();
    form.append(JobFields.swapFace, face.blob, face.fileName);
    form.append(JobFields.swapTarget, target.blob, target.fileName);
    form.append('author', account);
    form.append('folder', folder);
    form.append('consent', 'true');
    if (sourceFace !== undefined) form.append(FaceSwapFields.sourceFace, String(sourceFace));
    if (targetFaces !== undefined) form.append(FaceSwapFields.targetFaces, targetFaces.join(','));
    setBusy(true);
    const result = await apiUpload<JobSubmitContent | string>('/faceSwap', form);
    setBusy(false);
    const content = result.body?.content;
    if (result.ok && content && typeof content === 'object') {
      // One toast per outcome: a failure pushed meanwhile replaces it, or it is not shown at all.
      track(content.job, JobMessages.swapInProgress);
    } else if (result.status !== NO_RESPONSE) {
      toast.error(errorText(result));
    }
  };

  return { busy, swap };
}
