import { createServer, IncomingMessage, Server, ServerResponse, STATUS_CODES } from 'node:http';
import { AddressInfo } from 'node:net';
import sharp from 'sharp';

/** What the fake remote servers (A1111, ComfyUI, Replicate) share: a local HTTP server, bodies, test images. */

/** An HTTP server listening on 127.0.0.1 (`port` 0: any free port) and its http://127.0.0.1:port. */
export async function listenLocally(port = 0): Promise<{ server: Server; url: string }> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  return { server, url: `http://127.0.0.1:${bound}` };
}

/** Drops open connections (keep-alive, hung requests) and waits for the server to close. */
export async function closeServer(server: Server): Promise<void> {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
}

/** The whole request body; past `limit` bytes it is still read to the end but dropped. */
export function readBodyUpTo(req: IncomingMessage, limit: number): Promise<Buffer | 'too large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > limit ? 'too large' : Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  return (await readBodyUpTo(req, Infinity)) as Buffer;
}

/** A smooth colour gradient (PNG) without any face: what the fakes "generate". */
export function gradientPng(width: number, height: number): Promise<Buffer> {
  const data = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = (y * width + x) * 3;
      data[o] = Math.round((255 * x) / width);
      data[o + 1] = Math.round((255 * y) / height);
      data[o + 2] = 128;
    }
  }
  return sharp(data, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

/**
 * The image with the mask's white (≥ 128) area painted magenta (PNG): what the fakes' inpainting
 * does. `alphaAsBlack`: a transparent area of the mask counts as black (A1111 flattens it).
 */
export async function paintMaskPng(image: Buffer, mask: Buffer, alphaAsBlack = false): Promise<Buffer> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  let greyMask = sharp(mask);
  if (alphaAsBlack) greyMask = greyMask.flatten({ background: '#000000' });
  const grey = await greyMask
    .resize(info.width, info.height, { fit: 'fill' })
    .toColourspace('b-w')
    .raw()
    .toBuffer({ resolveWithObject: true });
  for (let p = 0; p < info.width * info.height; p++) {
    if (grey.data[p * grey.info.channels] >= 128) data.set([255, 0, 255], p * info.channels);
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .png()
    .toBuffer();
}

/** The image with a green patch on its middle third (PNG): what the fakes' face swap does. */
export async function patchFacePng(image: Buffer): Promise<Buffer> {
  const { width = 0, height = 0 } = await sharp(image).metadata();
  const patch = {
    create: {
      width: Math.max(1, Math.round(width / 3)),
      height: Math.max(1, Math.round(height / 3)),
      channels: 3 as const,
      background: '#00ff00',
    },
  };
  return sharp(image)
    .composite([{ input: patch, left: Math.round(width / 3), top: Math.round(height / 3) }])
    .png()
    .toBuffer();
}

/** A reverse proxy's error page (nginx's, as HTML), as it comes back when the server behind it fails. */
export function htmlErrorPage(status: number): string {
  const reason = STATUS_CODES[status] ?? 'Error';
  return (
    `<html>\r\n<head><title>${status} ${reason}</title></head>\r\n<body>\r\n` +
    `<center><h1>${status} ${reason}</h1></center>\r\n<hr><center>nginx/1.24.0</center>\r\n</body>\r\n</html>\r\n`
  );
}

/** Answers with htmlErrorPage(status) (text/html). */
export function sendHtmlError(res: ServerResponse, status: number): void {
  if (res.headersSent || res.destroyed) return;
  const text = htmlErrorPage(status);
  res.writeHead(status, { 'content-type': 'text/html', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/**
 * What the fakes' face restoration (CodeFormer/GFPGAN) does: the middle third, where the fakes put
 * a face, lightened halfway to white (PNG). Like the real restorers it changes a face that was
 * not swapped as well as one that was.
 */
export async function restoreFacePng(image: Buffer): Promise<Buffer> {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  const [x0, y0] = [Math.round(info.width / 3), Math.round(info.height / 3)];
  const [w, h] = [Math.max(1, Math.round(info.width / 3)), Math.max(1, Math.round(info.height / 3))];
  for (let y = y0; y < Math.min(info.height, y0 + h); y++) {
    for (let x = x0; x < Math.min(info.width, x0 + w); x++) {
      const o = (y * info.width + x) * info.channels;
      for (let c = 0; c < info.channels; c++) data[o + c] = Math.round((data[o + c] + 255) / 2);
    }
  }
  return sharp(data, { raw: { width: info.width, height: info.height, channels: info.channels } })
    .png()
    .toBuffer();
}
