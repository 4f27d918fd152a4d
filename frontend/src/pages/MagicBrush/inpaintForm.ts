import { BULK_INPAINT_AMOUNT } from '@studio/contracts';
import type { PickedImage } from '../../images/scaleImage';

export type InpaintStep = 'prompt' | 'bulk' | 'images';

/** What the 'Create new inpaint' modal collects. */
export interface InpaintForm {
  step: InpaintStep;
  prompt: string;
  folder: string | undefined;
  name: string;
  /** Outputs per image, 1..100 (null while the field is empty). */
  amount: number | null;
  /** The extra images of a bulk inpaint; the painted image is always the first. */
  extras: ExtraImage[];
}

export interface ExtraImage {
  /** The name of the file as the user chose it. */
  name: string;
  image: PickedImage;
}

export const emptyInpaintForm: InpaintForm = {
  step: 'prompt',
  prompt: '',
  folder: undefined,
  name: '',
  amount: BULK_INPAINT_AMOUNT.default,
  extras: [],
};

export const InpaintTexts = {
  /** The tool's header, as the engine serving it works: with a prompt (GPU) or without (CPU). */
  describeWithPrompt:
    'Paint over what you want to change, describe what should be there, and let the AI fill it in.',
  describeWithoutPrompt:
    'Paint over what you want to change, and the AI fills it in from the picture around it.',
  bulkProcessing: 'Bulk inpaint processing',
  imagesAdded: (n: number) => `${n} Images Added`,
  paintFirst: 'Paint over the part of the image you want to change.',
  promptUnused:
    "Magic Brush runs on this server's CPU engine: the painted area is filled from the picture around it, so no prompt is asked for. A prompt guides the fill only when a GPU engine serves Magic Brush.",
} as const;
