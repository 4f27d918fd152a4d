import { BadRequestException, Injectable } from '@nestjs/common';
import { Types } from 'mongoose';
import {
  BULK_INPAINT_AMOUNT,
  PromptMessages,
  minorReference,
  type ApiResponse,
  type InpaintEntry,
  type JobSubmitContent,
  type JobView,
} from '@studio/contracts';
import { requireWholeNumber } from '../../common/validation';
import type { AuthUser } from '../auth';
import { FoldersService } from '../folders';
import { GenerationService, imageInputs, type JobRequest } from './generation.service';
import { batchStatus } from './batch-status';
import { checkImages, normalizeImage, normalizeMask, type ImageSource } from './image-input';

export interface InpaintInput {
  author?: string;
  prompt?: string;
  folder?: string;
  inpaintName?: string;
  amount?: string;
  original?: ImageSource;
  mask?: ImageSource;
}

const BATCH_DEFAULT_NAME = 'Bulk inpaint';

/**
 * Magic Brush requests. A bulk request becomes a batch entry in the folder plus one job per output
 * (amount × images), all reserved before any is queued; the batch title reports its status.
 */
@Injectable()
export class InpaintService {
  constructor(
    private readonly generation: GenerationService,
    private readonly folders: FoldersService,
  ) {}

  async single(
    user: AuthUser,
    input: InpaintInput,
    waitMs: number,
    /** The submission's mark (JobRef), echoed on the job. */
    ref?: string,
  ): Promise<ApiResponse<JobSubmitContent>> {
    const prompt = checkedPrompt(input.prompt);
    const [request] = await this.requests([input.original], input, prompt, 1);
    const job = await this.generation.submit(user, { ...request, ref });
    return this.generation.answer(user, job, waitMs);
  }

  async bulk(
    user: AuthUser,
    input: InpaintInput & { folder: string; extras: ImageSource[] },
  ): Promise<{ batch: InpaintEntry; jobs: JobView[] }> {
    const prompt = checkedPrompt(input.prompt);
    const amount = requireWholeNumber(
      'Amount',
      input.amount ?? BULK_INPAINT_AMOUNT.default,
      BULK_INPAINT_AMOUNT,
    );
    await this.folders.assertFolder(user, input.folder);
    const requests = await this.requests([input.original, ...input.extras], input, prompt, amount);
    const total = requests.length;
    const name = input.inpaintName?.trim() || BATCH_DEFAULT_NAME;
    const batchId = new Types.ObjectId().toHexString();
    let batch: InpaintEntry | undefined;
    // The batch entry appears only once every output is paid for: a refused batch leaves nothing,
    // nor does one none of whose jobs could be queued (a part lost half way: undone, 503).
    const jobs = await this.generation
      .submitMany(
        user,
        requests.map((r) => ({ ...r, params: { ...r.params, batchId, batchName: name, batchSize: total } })),
        async () => {
          batch = await this.folders.createBatch(
            user,
            input.folder,
            batchStatus(name, 0, total),
            total,
            batchId,
          );
        },
      )
      .catch(async (err: unknown) => {
        if (batch) await this.folders.removeBatch(batch._id).catch(() => undefined);
        throw err;
      });
    return { batch: batch!, jobs };
  }

  /** One job request per output: each image (with the mask fitted to it) `amount` times. */
  private async requests(
    originals: (ImageSource | undefined)[],
    input: InpaintInput,
    prompt: string,
    amount: number,
  ): Promise<JobRequest[]> {
    const requests: JobRequest[] = [];
    await checkImages(...originals, input.mask);
    for (const original of originals) {
      const image = await normalizeImage(original);
      const mask = await normalizeMask(input.mask, image.width, image.height);
      for (let i = 0; i < amount; i++) {
        requests.push({
          tool: 'inpaint',
          author: input.author,
          folderId: input.folder || undefined,
          inputs: [...imageInputs([image]), { data: mask, extension: 'png' }],
          units: 1,
          params: { prompt },
        });
      }
    }
    return requests;
  }
}

function checkedPrompt(prompt: string | undefined): string {
  const text = (prompt ?? '').trim();
  if (minorReference(text)) throw new BadRequestException(PromptMessages.refused);
  return text;
}
