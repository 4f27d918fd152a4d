import {
  Messages,
  minorReference,
  PromptMessages,
  quoteTool,
  type InpaintEntry,
  type JobSubmitContent,
  type JobView,
} from '@studio/contracts';
import { useState } from 'react';
import { useNavigate } from 'react-router-dom';
import { apiUpload, errorText, NO_RESPONSE } from '../../api/client';
import type { PickedImage } from '../../images/scaleImage';
import { useJobs } from '../../jobs/useJobs';
import { useJobSubmission } from '../../jobs/useJobSubmission';
import { Paths } from '../../paths';
import { useSession } from '../../session/useSession';
import { useToast } from '../../ui/toast';
import { InpaintTexts, type InpaintForm } from './inpaintForm';

/** POST /api/bulkInpaintImage's answer. */
export interface BulkInpaintContent {
  batch: InpaintEntry;
  jobs: JobView[];
}

/** A bulk batch the user just started, shown with a link to its folder. */
export interface StartedBatch {
  folderId: string;
  title: string;
  jobs: number;
}

interface InpaintInput {
  image: PickedImage;
  mask: () => Promise<Blob | null>;
  form: InpaintForm;
}

/**
 * Magic Brush requests with the spec's checks (section 5) in its order: logged in, a prompt when
 * the engine uses one (`promptUsed`), a folder for a bulk, enough credits for amount × images. Single answers go to the job modal; a bulk answer
 * starts a batch in the folder and the tray follows its jobs.
 */
export function useInpaint(promptUsed: boolean, onBulkDone: (batch: StartedBatch) => void) {
  const { account, balance, refresh } = useSession();
  const { track } = useJobs();
  const toast = useToast();
  const navigate = useNavigate();
  const submission = useJobSubmission();
  const [bulkBusy, setBulkBusy] = useState(false);

  /** The checks both buttons share; returns false (after saying why) when nothing may be sent. */
  const check = (form: InpaintForm, amount: number, extras: number): boolean => {
    if (!account) {
      toast.error(Messages.needLogin);
      navigate(Paths.login);
      return false;
    }
    const prompt = promptUsed ? form.prompt.trim() : '';
    if (promptUsed && !prompt) {
      toast.error(PromptMessages.promptRequired);
      return false;
    }
    if (minorReference(prompt)) {
      toast.error(PromptMessages.refused);
      return false;
    }
    if ((amount > 1 || extras > 0) && !form.folder) {
      toast.error(Messages.selectFolder);
      return false;
    }
    if (quoteTool('inpaint', amount * (1 + extras)) > (balance ?? 0)) {
      toast.error(Messages.notEnoughCredits);
      return false;
    }
    return true;
  };

  const baseForm = async ({ image, mask, form }: InpaintInput, amount: number) => {
    const maskPng = await mask();
    if (!maskPng) {
      toast.error('The mask could not be read');
      return null;
    }
    const data = new FormData();
    data.append('original', image.blob, image.fileName);
    data.append('mask', maskPng, 'mask.png');
    data.append('prompt', promptUsed ? form.prompt.trim() : '');
    data.append('author', account ?? '');
    data.append('amount', String(amount));
    if (form.folder) data.append('folder', form.folder);
    if (form.name.trim()) data.append('inpaintName', form.name.trim());
    data.append('width', String(image.width));
    data.append('height', String(image.height));
    return data;
  };

  /** One image now, shown in the modal. Returns true when the request was sent. */
  const single = async (input: InpaintInput): Promise<boolean> => {
    if (!check(input.form, 1, 0)) return false;
    const data = await baseForm(input, 1);
    if (!data) return false;
    void submission.submit(async (headers) => {
      const result = await apiUpload<JobSubmitContent | string>('/inpaintImage', data, headers);
      void refresh();
      return result;
    });
    return true;
  };

  /**
   * The Bulk step's Inpaint: the bulk endpoint when the amount is above 1 or images were added
   * (spec section 7), otherwise the single request into the chosen folder.
   */
  const bulk = async (input: InpaintInput): Promise<boolean> => {
    const amount = input.form.amount ?? 1;
    const extras = input.form.extras;
    if (amount <= 1 && extras.length === 0) return single(input);
    if (!check(input.form, amount, extras.length)) return false;
    const data = await baseForm(input, amount);
    if (!data) return false;
    for (const extra of extras) data.append('files', extra.image.blob, extra.image.fileName);
    setBulkBusy(true);
    const result = await apiUpload<BulkInpaintContent | string>('/bulkInpaintImage', data);
    setBulkBusy(false);
    const content = result.ok ? result.body?.content : undefined;
    if (content && typeof content === 'object') {
      content.jobs.forEach((job) => track(job));
      toast.success(InpaintTexts.bulkProcessing);
      void refresh();
      onBulkDone({
        folderId: input.form.folder!,
        title: input.form.name.trim() || content.batch.title,
        jobs: content.jobs.length,
      });
      return true;
    }
    if (result.status !== NO_RESPONSE) toast.error(errorText(result));
    return false;
  };

  return { submission, single, bulk, bulkBusy };
}
