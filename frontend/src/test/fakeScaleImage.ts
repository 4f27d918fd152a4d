/**
 * Stands in for images/scaleImage in jsdom, which cannot decode images or draw on a canvas:
 * jest.mock('../../images/scaleImage', () => jest.requireActual('../../test/fakeScaleImage')).
 * The picked file is passed through unchanged, with a data URL naming it.
 */
import type { PickedImage } from '../images/scaleImage';

export async function scaleImage(file: File): Promise<PickedImage> {
  if (!file.type.startsWith('image/')) throw new Error('Not an image');
  return {
    blob: file,
    dataUrl: `data:${file.type};base64,${btoa(file.name)}`,
    width: 64,
    height: 64,
    fileName: file.name,
  };
}
