import { makeFolder, type Client } from './clients';

/**
 * The photo tools' requests as the browser sends them, for the age and content rule tests; `mask`
 * is asked for when a request is made (tests make it in beforeAll).
 */
export const photoToolRequests = (mask: () => Buffer) => ({
  /** The free face swap check. */
  swapCheck: (c: Client, source: Buffer, target: Buffer) =>
    c.agent.post('/api/faceSwap/check').attach('Swap0', source, 'a.png').attach('Swap1', target, 'b.png'),
  /** A face swap into a new folder, consent given. */
  swap: async (c: Client, source: Buffer, target: Buffer) =>
    c.agent
      .post('/api/faceSwap')
      .field('folder', await makeFolder(c, 'swaps'))
      .field('consent', 'true')
      .attach('Swap0', source, 'a.png')
      .attach('Swap1', target, 'b.png'),
  /** One Magic Brush inpaint of a 256 px image. */
  inpaint: (c: Client, image: Buffer) =>
    c.agent
      .post('/api/inpaintImage')
      .field('author', c.username)
      .field('prompt', 'smile')
      .field('amount', '1')
      .field('width', '256')
      .field('height', '256')
      .attach('original', image, 'face.png')
      .attach('mask', mask(), 'mask.png'),
});
