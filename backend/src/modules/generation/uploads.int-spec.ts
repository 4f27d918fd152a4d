import http from 'node:http';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import sharp from 'sharp';
import { JobMessages, Messages, UPLOAD_REQUEST_LIMITS } from '@studio/contracts';
import { balanceOf, eventually, grantCredits, signIn, uniqueName, type Client } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';

const MB = 1024 * 1024;
const BOUNDARY = '----uploadsintspec';

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: { message: string; content: unknown };
}

/**
 * A multipart upload written piece by piece over a raw connection, so a test can hold the body
 * open, see what the server answers while the client is still sending, or walk away mid-file.
 */
class RawUpload {
  readonly answer: Promise<Answer>;
  /** Resolves when the connection is gone (the server hung up, or the client aborted). */
  readonly closed: Promise<void>;
  private readonly req: http.ClientRequest;
  private answered = false;
  sent = 0;

  constructor(t: TestApp, path: string, cookie: string, declaredLength?: number) {
    const { hostname, port } = new URL(t.url);
    const headers: http.OutgoingHttpHeaders = {
      cookie,
      'content-type': `multipart/form-data; boundary=${BOUNDARY}`,
    };
    if (declaredLength !== undefined) headers['content-length'] = declaredLength;
    this.req = http.request({ host: hostname, port, path, method: 'POST', headers, agent: false });
    this.req.on('error', () => undefined); // EPIPE/ECONNRESET once the server hangs up
    this.closed = new Promise((resolve) => this.req.once('close', () => resolve()));
    this.answer = new Promise((resolve, reject) => {
      this.req.once('response', (res) => {
        this.answered = true;
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: JSON.parse(Buffer.concat(chunks).toString() || '{}'),
          }),
        );
      });
      this.req.once('close', () => {
        if (!this.answered) reject(new Error('connection closed without an answer'));
      });
    });
    this.answer.catch(() => undefined);
    this.req.flushHeaders();
  }

  /** Writes bytes, waiting for the socket to take them; false once the server has answered or hung up. */
  send(data: Buffer | string): Promise<boolean> {
    if (this.answered || this.req.destroyed) return Promise.resolve(false);
    this.sent += data.length;
    if (this.req.write(data)) return Promise.resolve(true);
    return new Promise((resolve) => {
      const onDrain = () => {
        this.req.off('close', onClose);
        resolve(!this.answered);
      };
      const onClose = () => {
        this.req.off('drain', onDrain);
        resolve(false);
      };
      this.req.once('drain', onDrain);
      this.req.once('close', onClose);
    });
  }

  filePart(name: string): string {
    return `--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"; filename="${name}.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`;
  }

  async field(name: string, value: string): Promise<boolean> {
    return this.send(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`);
  }

  /** Ends the body (after the last part's bytes). */
  async finish(): Promise<void> {
    if (await this.send(`\r\n--${BOUNDARY}--\r\n`)) this.req.end();
  }

  abort(): void {
    this.req.destroy();
  }
}

describe('tool uploads: refused before the body, streamed to disk, capped, cleaned up', () => {
  let t: TestApp;
  let rich: Client;
  let broke: Client;
  let uploadsDir: string;
  let png: Buffer;

  /** Names of the per-request upload folders, and every file inside them. */
  const tempEntries = async () => {
    const folders = await readdir(uploadsDir).catch(() => [] as string[]);
    const files: { path: string; size: number }[] = [];
    for (const folder of folders) {
      for (const name of await readdir(join(uploadsDir, folder)).catch(() => [] as string[])) {
        const path = join(uploadsDir, folder, name);
        files.push({ path, size: (await readFile(path).catch(() => Buffer.alloc(0))).length });
      }
    }
    return { folders, files };
  };
  const expectNoTempFiles = () =>
    eventually(async () => {
      const { folders } = await tempEntries();
      expect(folders).toEqual([]);
    });
  /** Waits until the server has streamed at least `bytes` of an upload into a temp file. */
  const waitForTempBytes = (bytes: number) =>
    eventually(async () => {
      const { files } = await tempEntries();
      expect(files.some((f) => f.size >= bytes)).toBe(true);
    });

  beforeAll(async () => {
    t = await startTestApp({ JOB_WAIT_MS: '0' });
    uploadsDir = join(t.config.STORAGE_DIR, '.uploads');
    rich = await signIn(t, uniqueName('uploader'));
    await grantCredits(t, rich.username, 50);
    broke = await signIn(t, uniqueName('broke'));
    png = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#3a6' } })
      .png()
      .toBuffer();
  }, 120_000);

  afterAll(async () => {
    await t?.close();
  });

  it('answers 403 for a disabled tool while the client is still sending, and hangs up', async () => {
    const upload = new RawUpload(t, '/api/faceSwapVideo', rich.cookie, 60 * MB);
    await upload.send(upload.filePart('SwapVideo0'));
    await upload.send(Buffer.alloc(64 * 1024, 1));
    const answer = await upload.answer;
    expect(answer.status).toBe(403);
    expect(answer.body.content).toBe(JobMessages.videoSwapOff);
    expect(answer.headers.connection).toBe('close');
    await upload.closed; // the server closed the connection instead of reading 60 MB
    expect(upload.sent).toBeLessThan(60 * MB);
  });

  it('answers 402 to a user without credits before the body', async () => {
    const upload = new RawUpload(t, '/api/generateNoise', broke.cookie, 20 * MB);
    await upload.send(upload.filePart('original'));
    await upload.send(Buffer.alloc(64 * 1024, 1));
    const answer = await upload.answer;
    expect(answer.status).toBe(402);
    expect(answer.body.content).toBe(Messages.notEnoughCredits);
    await upload.closed;
  });

  it('answers 402 as soon as the Clone parts so far cost more than the balance', async () => {
    const poor = await signIn(t, uniqueName('poor'));
    await grantCredits(t, poor.username, 2);
    const upload = new RawUpload(t, '/api/generateNoise', poor.cookie, 50 * MB);
    for (const name of ['Clone0', 'Clone1']) {
      await upload.send(upload.filePart(name));
      await upload.send(Buffer.alloc(256 * 1024, 2));
      await upload.send('\r\n');
    }
    // The third copy is one credit too many. (Its first bytes go too: the parser holds back the
    // header's last CRLF until it knows no boundary follows.)
    await upload.send(upload.filePart('Clone2'));
    await upload.send(Buffer.alloc(1024, 2));
    const answer = await upload.answer;
    expect(answer.status).toBe(402);
    expect(answer.body.content).toBe(Messages.notEnoughCredits);
    await upload.closed;
    await expectNoTempFiles();
    expect(await balanceOf(poor)).toBe(2);
  });

  it('answers 413 at once when the declared length is over the request cap', async () => {
    const upload = new RawUpload(t, '/api/generateNoise', rich.cookie, 200 * MB);
    await upload.send(upload.filePart('Clone0'));
    const answer = await upload.answer;
    expect(answer.status).toBe(413);
    expect(answer.body.content).toBe(JobMessages.uploadTooLarge);
    await upload.closed;
    await expectNoTempFiles();
  });

  it('stops a chunked body as soon as it passes the request cap, and keeps none of it', async () => {
    const upload = new RawUpload(t, '/api/generateNoise', rich.cookie); // no Content-Length
    const chunk = Buffer.alloc(MB, 7);
    let open = true;
    // 10 MB parts (under the 15 MB image limit), up to 300 MB in all: only the request cap stops it.
    for (let part = 0; open && part < 30; part += 1) {
      open = await upload.send(`${part === 0 ? '' : '\r\n'}${upload.filePart(`Clone${part}`)}`);
      for (let i = 0; open && i < 10; i += 1) open = await upload.send(chunk);
    }
    if (open) await upload.finish();
    const answer = await upload.answer;
    expect(answer.status).toBe(413);
    expect(answer.body.content).toBe(JobMessages.uploadTooLarge);
    expect(upload.sent).toBeLessThan(200 * MB);
    await expectNoTempFiles();
    expect(await balanceOf(rich)).toBe(50);
  });

  it('refuses a file field the tool does not take, and charges nothing', async () => {
    const before = await balanceOf(rich);
    const res = await rich.agent
      .post('/api/faceSwap')
      .field('author', rich.username)
      .field('consent', 'true')
      .attach('Swap0', png, 'face.png')
      .attach('Swap1', png, 'target.png')
      .attach('Swap2', png, 'extra.png');
    expect(res.status).toBe(400);
    expect(res.body.content).toBe(`${JobMessages.unexpectedFile} 'Swap2'`);
    expect(await balanceOf(rich)).toBe(before);
    await expectNoTempFiles();
  });

  /** Sends a file in two halves, checking between them that the first half sits in a temp file. */
  async function uploadInHalves(path: string, fields: Record<string, string>, name: string, data: Buffer) {
    const upload = new RawUpload(t, path, rich.cookie);
    for (const [field, value] of Object.entries(fields)) await upload.field(field, value);
    await upload.send(upload.filePart(name));
    const half = Math.floor(data.length / 2);
    await upload.send(data.subarray(0, half));
    await waitForTempBytes(half - 1024);
    await upload.send(data.subarray(half));
    await upload.finish();
    return upload.answer;
  }

  it('streams an upload to a temp file and removes it once the request succeeds', async () => {
    const noisy = await sharp({
      create: {
        width: 512,
        height: 512,
        channels: 3,
        background: '#000',
        noise: { type: 'gaussian', mean: 128, sigma: 40 },
      },
    })
      .png()
      .toBuffer();
    const answer = await uploadInHalves(
      '/api/generateNoise',
      { author: rich.username, amount: '1' },
      'original',
      noisy,
    );
    expect(answer.status).toBe(200);
    await expectNoTempFiles();
  });

  it('removes the temp file when the upload is refused after it arrived', async () => {
    const notAnImage = Buffer.alloc(512 * 1024, 9);
    const answer = await uploadInHalves('/api/generateNoise', { amount: '1' }, 'original', notAnImage);
    expect(answer.status).toBe(400);
    expect(answer.body.content).toBe(JobMessages.badImage);
    await expectNoTempFiles();
  });

  it('removes the temp file and frees the slot when the client walks away mid-upload', async () => {
    const upload = new RawUpload(t, '/api/generateNoise', rich.cookie, 10 * MB);
    await upload.send(upload.filePart('original'));
    await upload.send(Buffer.alloc(512 * 1024, 3));
    await waitForTempBytes(256 * 1024);
    upload.abort();
    await expectNoTempFiles();
  });

  it('lets one user hold only a few uploads at once (429), and frees a slot when one ends', async () => {
    const held: RawUpload[] = [];
    for (let i = 0; i < UPLOAD_REQUEST_LIMITS.concurrentPerUser; i += 1) {
      const upload = new RawUpload(t, '/api/generateNoise', rich.cookie, 10 * MB);
      await upload.send(upload.filePart('original'));
      await upload.send(Buffer.alloc(64 * 1024, 5));
      held.push(upload);
    }
    // Every held upload has passed the checks and is streaming into its own folder.
    await eventually(async () =>
      expect((await tempEntries()).folders).toHaveLength(UPLOAD_REQUEST_LIMITS.concurrentPerUser),
    );
    const extra = new RawUpload(t, '/api/generateNoise', rich.cookie, 10 * MB);
    await extra.send(extra.filePart('original'));
    const refused = await extra.answer;
    expect(refused.status).toBe(429);
    await extra.closed;

    held.pop()!.abort();
    await eventually(async () => {
      const res = await rich.agent
        .post('/api/generateNoise')
        .field('amount', '1')
        .attach('original', png, 'a.png');
      expect(res.status).toBe(200);
    });
    for (const upload of held) upload.abort();
    await expectNoTempFiles();
  });
});
