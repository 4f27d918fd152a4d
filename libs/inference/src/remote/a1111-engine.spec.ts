import sharp from 'sharp';
import { CapabilityUnavailableError, EngineInputError } from '../engine.port';
import { AI_GENERATED_MARK } from '../provenance';
import { boxMask, gradientImage, rejection } from '../spec-helpers';
import { A1111EngineOptions, A1111Engine, NO_FACE_EITHER } from './a1111-engine';
import { A1111Error } from './a1111-client';
import { FakeA1111Server, RecordedRequest, startFakeA1111 } from './fake-a1111-server';

/** Real HTTP against the fake server on a random port. */
describe('A1111Engine', () => {
  let fake: FakeA1111Server;
  let photo: Buffer;

  beforeAll(async () => {
    fake = await startFakeA1111();
    photo = await gradientImage(320, 240);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const engineFor = (options: Partial<A1111EngineOptions> = {}) =>
    new A1111Engine({ baseUrl: fake.url, progressIntervalMs: 100, ...options });
  /** The requests that did work: progress polls left out. */
  const work = (): RecordedRequest[] =>
    fake.requests.filter((r) => r.path !== '/sdapi/v1/progress' && r.path !== '/internal/progress');
  const body = (r: RecordedRequest) => r.body as Record<string, unknown>;
  const pixel = async (image: Buffer, x: number, y: number) => {
    const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    const o = (y * info.width + x) * info.channels;
    return [data[o], data[o + 1], data[o + 2]];
  };

  describe('capabilities', () => {
    it('generate: txt2img with the prompt, size and settings; a marked PNG of the requested size', async () => {
      const progress: number[] = [];
      const image = await engineFor({ defaults: { steps: 30, negativePrompt: 'blurry' } }).generate(
        { prompt: 'a lighthouse at dusk', width: 320, height: 240 },
        { onProgress: (f) => progress.push(f) },
      );

      expect(work()).toHaveLength(1);
      const [request] = work();
      expect(request.method).toBe('POST');
      expect(request.path).toBe('/sdapi/v1/txt2img');
      expect(body(request)).toMatchObject({
        prompt: 'a lighthouse at dusk',
        negative_prompt: 'blurry',
        width: 320,
        height: 240,
        steps: 30,
        cfg_scale: 7,
        sampler_name: 'Euler a',
        batch_size: 1,
        save_images: false,
      });
      expect(image).toMatchObject({ format: 'png', width: 320, height: 240 });
      const meta = await sharp(image.data).metadata();
      expect(meta).toMatchObject({ format: 'png', width: 320, height: 240 });
      expect(meta.exif?.toString('latin1')).toContain(`${AI_GENERATED_MARK} image: image generation`);
      expect(progress.at(-1)).toBe(1);
    });

    it('generate: asks for multiples of 8 and returns exactly the requested size', async () => {
      const image = await engineFor().generate({ prompt: 'x', width: 500, height: 300 });
      expect(body(work()[0])).toMatchObject({ width: 504, height: 304 });
      expect(image).toMatchObject({ width: 500, height: 300 });
      expect(await sharp(image.data).metadata()).toMatchObject({ width: 500, height: 300 });
    });

    it('generate: refuses sizes out of range without calling the server', async () => {
      const error = await rejection(engineFor().generate({ prompt: 'x', width: 10_000, height: 512 }));
      expect(error).toBeInstanceOf(EngineInputError);
      expect(error).toMatchObject({ code: 'bad_request' });
      expect(fake.requests).toHaveLength(0);
    });

    it('inpaint: img2img with the image, the mask and inpainting settings; the result has the input size', async () => {
      // White (repaint) on the left half, black on the right.
      const mask = await boxMask(320, 240, { left: 0, top: 0, width: 160, height: 240 });
      const image = await engineFor().inpaint({ image: photo, mask, prompt: 'a red door' });

      const [request] = work();
      expect(request.path).toBe('/sdapi/v1/img2img');
      const sent = body(request);
      expect(sent).toMatchObject({
        prompt: 'a red door',
        inpainting_fill: 1,
        inpaint_full_res: true,
        denoising_strength: 0.75,
        mask_blur: 4,
        width: 768, // 320×240 fitted to the 768 working size
        height: 576,
      });
      expect(sent.init_images).toEqual([expect.stringMatching(/^iVBORw0KGgo/)]); // a PNG
      expect(sent.mask).toEqual(expect.stringMatching(/^iVBORw0KGgo/));
      expect(image).toMatchObject({ format: 'png', width: 320, height: 240 });
      expect(await pixel(image.data, 40, 120)).toEqual([255, 0, 255]); // the fake's paint
      expect(await pixel(image.data, 280, 120)).toEqual(await pixel(photo, 280, 120));
    });

    it('inpaint: an empty mask is refused without calling the server', async () => {
      const mask = await sharp({ create: { width: 320, height: 240, channels: 3, background: '#000' } })
        .png()
        .toBuffer();
      const error = await rejection(engineFor().inpaint({ image: photo, mask, prompt: 'x' }));
      expect(error).toMatchObject({ name: 'EngineInputError', code: 'bad_request' });
      expect(fake.requests).toHaveLength(0);
    });

    it('superResolve: extra-single-image with the factor and the upscaler', async () => {
      const engine = engineFor({ defaults: { upscaler: '4x-UltraSharp' } });
      const doubled = await engine.superResolve({ image: photo });
      const quadrupled = await engine.superResolve({ image: photo, scale: 4 });

      const [first, second] = work();
      expect(first.path).toBe('/sdapi/v1/extra-single-image');
      expect(body(first)).toMatchObject({ upscaling_resize: 2, upscaler_1: '4x-UltraSharp', resize_mode: 0 });
      expect(body(first).image).toEqual(expect.stringMatching(/^iVBORw0KGgo/));
      expect(body(second)).toMatchObject({ upscaling_resize: 4 });
      expect(doubled).toMatchObject({ format: 'png', width: 640, height: 480 });
      expect(quadrupled).toMatchObject({ width: 1280, height: 960 });
    });

    it('sends EXIF-rotated photos upright', async () => {
      const rotated = await sharp(photo).jpeg().withMetadata({ orientation: 6 }).toBuffer(); // 90° clockwise
      const result = await engineFor().superResolve({ image: rotated });
      expect(result).toMatchObject({ width: 480, height: 640 });
    });

    it('faceSwap: ReActor with both images and face indexes; a marked JPEG of the target size', async () => {
      const face = await gradientImage(200, 200);
      const swapped = await engineFor().faceSwap({ face, target: photo });

      // The swap without restoration (it alone shows whether a face was swapped), then the
      // configured restorer (CodeFormer) through extras at ×1.
      const [request, restore] = work();
      expect(request.path).toBe('/reactor/image');
      expect(body(request)).toMatchObject({
        source_faces_index: [0],
        face_index: [0],
        model: 'inswapper_128.onnx',
        face_restorer: 'None',
        scale: 1,
        save_to_file: 0,
      });
      expect(body(request).source_image).toEqual(expect.stringMatching(/^iVBORw0KGgo.*chars\)$/));
      expect(body(request).target_image).toEqual(expect.stringMatching(/^iVBORw0KGgo/));
      expect(restore.path).toBe('/sdapi/v1/extra-single-image');
      expect(body(restore)).toMatchObject({
        upscaling_resize: 1,
        upscaler_1: 'None',
        codeformer_visibility: 1,
        gfpgan_visibility: 0,
      });
      expect(swapped).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
      const meta = await sharp(swapped.data).metadata();
      expect(meta.exif?.toString('latin1')).toContain(`${AI_GENERATED_MARK} image: face swap`);
      const [r, g, b] = await pixel(swapped.data, 160, 120); // the fake's green "face", restored (lighter)
      expect(g).toBeGreaterThan(200);
      expect(Math.abs(r - 128)).toBeLessThan(20);
      expect(Math.abs(b - 128)).toBeLessThan(20);
    });

    it('faceSwap: a target restored but not swapped (restore-on-unswapped) fails as no_face_target, never delivered', async () => {
      // The swap is asked without restoration, so an unswapped target comes back unchanged; the
      // old request (face_restorer CodeFormer) got the restored target and delivered it.
      fake.noFace = true;
      fake.restoreUnswapped = true;
      const error = await rejection(engineFor().faceSwap({ face: photo, target: photo }));
      expect(error).toBeInstanceOf(EngineInputError);
      expect(error).toMatchObject({ code: 'no_face_target', message: NO_FACE_EITHER });
      expect(work().map((r) => r.path)).toEqual(['/reactor/image']); // nothing restored
      // Without a restorer configured: no extras request at all.
      fake.noFace = false;
      await engineFor({ defaults: { faceRestorer: 'None' } }).faceSwap({ face: photo, target: photo });
      expect(work().map((r) => r.path)).toEqual(['/reactor/image', '/reactor/image']);
    });

    it('faceSwap: the target returned unchanged (ReActor found no face) is no_face_target', async () => {
      fake.noFace = true;
      const error = await rejection(engineFor().faceSwap({ face: photo, target: photo }));
      expect(error).toBeInstanceOf(EngineInputError);
      expect(error).toMatchObject({ code: 'no_face_target', message: NO_FACE_EITHER });
    });

    it('faceSwap: a server message about a missing face maps to the matching code', async () => {
      const engine = engineFor();
      fake.failNext(200, { image: photo.toString('base64'), error: 'No source face(s) found' });
      expect(await rejection(engine.faceSwap({ face: photo, target: photo }))).toMatchObject({
        code: 'no_face_source',
      });
      fake.failNext(400, { detail: 'No face found in the target image' });
      expect(await rejection(engine.faceSwap({ face: photo, target: photo }))).toMatchObject({
        code: 'no_face_target',
      });
    });

    it('offers only the configured capabilities; clone and faceSwapVideo never', async () => {
      const engine = engineFor({ capabilities: ['superResolve'] });
      expect([...engine.capabilities]).toEqual(['superResolve']);
      await expect(engine.generate({ prompt: 'x', width: 64, height: 64 })).rejects.toBeInstanceOf(
        CapabilityUnavailableError,
      );
      await expect(engine.faceSwap({ face: photo, target: photo })).rejects.toBeInstanceOf(
        CapabilityUnavailableError,
      );
      expect([...engineFor().capabilities].sort()).toEqual([
        'faceSwap',
        'generate',
        'inpaint',
        'superResolve',
      ]);
      await expect(engineFor().clone({ image: photo, amount: 1 })).rejects.toBeInstanceOf(
        CapabilityUnavailableError,
      );
      await expect(
        engineFor().faceSwapVideo({ videoPath: '/tmp/in.mp4', face: photo, outputPath: '/tmp/out.mp4' }),
      ).rejects.toBeInstanceOf(CapabilityUnavailableError);
      expect(fake.requests).toHaveLength(0);
    });

    it('status(): reachable, authorised, the models the tools use present (else which), busy or idle', async () => {
      expect(await engineFor().status()).toEqual({
        reachable: true,
        readiness: 'ready',
        detail: 'answers, idle',
      });
      fake.missingModels.add('R-ESRGAN 4x+');
      fake.missingModels.add('ReActor');
      expect(await engineFor().status()).toEqual({
        reachable: true,
        readiness: 'models_missing',
        missing: [
          { capability: 'superResolve', what: 'upscaler R-ESRGAN 4x+' },
          { capability: 'faceSwap', what: 'the ReActor extension' },
        ],
        detail: 'answers, idle',
      });
      fake.missingModels.clear();
      fake.missingModels.add('inswapper_128.onnx');
      fake.missingModels.add('fake.safetensors');
      expect((await engineFor({ capabilities: ['generate', 'faceSwap'] }).status()).missing).toEqual([
        { capability: 'generate', what: 'a Stable Diffusion checkpoint' },
        { capability: 'faceSwap', what: 'ReActor model inswapper_128.onnx' },
      ]);
      const locked = await startFakeA1111({ auth: { token: 'right' } });
      try {
        const refused = await new A1111Engine({ baseUrl: locked.url, token: 'wrong' }).status();
        expect(refused).toMatchObject({ reachable: false, readiness: 'unauthorised' });
      } finally {
        await locked.close();
      }
      const gone = await new A1111Engine({ baseUrl: 'http://127.0.0.1:9' }).status();
      expect(gone).toMatchObject({ reachable: false, readiness: 'unreachable' });
    });

    it('warmup checks the server and ReActor', async () => {
      await engineFor().warmup();
      expect(work().map((r) => `${r.method} ${r.path}`)).toEqual([
        'GET /sdapi/v1/options',
        'GET /reactor/models',
      ]);
    });

    it('an unreadable input image is bad_image, without calling the server', async () => {
      const error = await rejection(engineFor().superResolve({ image: Buffer.from('not an image') }));
      expect(error).toMatchObject({ name: 'EngineInputError', code: 'bad_image' });
      expect(fake.requests).toHaveLength(0);
    });
  });

  describe('authentication', () => {
    let locked: FakeA1111Server;
    let tokened: FakeA1111Server;
    beforeAll(async () => {
      locked = await startFakeA1111({ auth: { username: 'operator', password: 's3cret-pass' } });
      tokened = await startFakeA1111({ auth: { token: 'tok-123' } });
    });
    afterAll(() => Promise.all([locked.close(), tokened.close()]));

    it('sends basic auth when configured', async () => {
      const engine = new A1111Engine({ baseUrl: locked.url, username: 'operator', password: 's3cret-pass' });
      await engine.generate({ prompt: 'x', width: 64, height: 64 });
      const expected = `Basic ${Buffer.from('operator:s3cret-pass').toString('base64')}`;
      expect(locked.requests.at(-1)?.headers.authorization).toBe(expected);
    });

    it('takes credentials out of the URL into basic auth', async () => {
      const url = locked.url.replace('http://', 'http://operator:s3cret-pass@');
      const engine = new A1111Engine({ baseUrl: url });
      expect(engine.url).toBe(locked.url);
      await expect(engine.generate({ prompt: 'x', width: 64, height: 64 })).resolves.toMatchObject({
        width: 64,
      });
    });

    it('sends a bearer token when configured', async () => {
      const engine = new A1111Engine({ baseUrl: tokened.url, token: 'tok-123' });
      await engine.superResolve({ image: photo });
      expect(tokened.requests.at(-1)?.headers.authorization).toBe('Bearer tok-123');
    });

    it('missing or wrong credentials are a retryable configuration error that names no secret', async () => {
      for (const options of [{}, { username: 'operator', password: 'wrong-pass' }, { token: 'nope' }]) {
        const engine = new A1111Engine({ baseUrl: locked.url, ...options });
        const error = await rejection(engine.generate({ prompt: 'x', width: 64, height: 64 }));
        expect(error).toBeInstanceOf(A1111Error);
        expect(error).not.toBeInstanceOf(EngineInputError);
        expect(error).toMatchObject({ kind: 'auth', status: 401 });
        expect((error as Error).message).toMatch(/credentials/);
        expect((error as Error).message).not.toMatch(/wrong-pass|nope|s3cret/);
      }
    });

    it('refuses a username and a token together', () => {
      expect(
        () => new A1111Engine({ baseUrl: locked.url, username: 'a', password: 'b', token: 'c' }),
      ).toThrow(/not both/);
    });
  });

  describe('progress, timeouts and cancellation', () => {
    it('follows its own task on /internal/progress during a slow call, reports rising fractions, stops when done', async () => {
      fake.delayMs = 1200;
      const progress: number[] = [];
      await engineFor().generate(
        { prompt: 'x', width: 64, height: 64 },
        { onProgress: (f) => progress.push(f) },
      );

      const taskId = body(fake.requestsTo('/sdapi/v1/txt2img')[0]).force_task_id;
      expect(taskId).toMatch(/^task\(studio-[0-9a-f-]{36}\)$/);
      const polls = fake.requestsTo('/internal/progress');
      expect(polls.length).toBeGreaterThan(2);
      expect(polls.every((p) => body(p).id_task === taskId)).toBe(true);
      const during = progress.slice(0, -1);
      expect(during.length).toBeGreaterThan(0);
      expect(during.every((f) => f > 0 && f < 1)).toBe(true);
      expect(during).toEqual([...during].sort((a, b) => a - b));
      expect(progress.at(-1)).toBe(1);

      const count = fake.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 400));
      expect(fake.requests.length).toBe(count);
    });

    it('upscaling polls the global /sdapi/v1/progress, and only with an onProgress callback', async () => {
      fake.delayMs = 400;
      await engineFor().superResolve({ image: photo });
      expect(fake.requestsTo('/sdapi/v1/progress')).toHaveLength(0);
      await engineFor().superResolve({ image: photo }, { onProgress: () => undefined });
      expect(fake.requestsTo('/sdapi/v1/progress').length).toBeGreaterThan(0);
    });

    /** An engine whose log lines are kept: the background stop of an abandoned request logs its end. */
    const logging = (options: Partial<A1111EngineOptions> = {}) => {
      const lines: string[] = [];
      const logger = { log: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
      return {
        engine: engineFor({ logger, ...options }),
        abandoned: () => waitFor(() => lines.some((l) => l.includes('abandoned'))),
      };
    };

    it('times out with a retryable error (and stops its run on the server)', async () => {
      fake.delayMs = 3000;
      const { engine, abandoned } = logging({ timeoutMs: 300 });
      const error = await rejection(engine.generate({ prompt: 'x', width: 64, height: 64 }));
      // Rejected while the server still works on it (stopped afterwards, in the background).
      expect(fake.runningLabel).toBeDefined();
      expect(error).toBeInstanceOf(A1111Error);
      expect(error).not.toBeInstanceOf(EngineInputError);
      expect(error).toMatchObject({ kind: 'timeout' });
      await abandoned();
      expect(fake.interrupted).toHaveLength(1);
    });

    it('aborts on the signal with its reason', async () => {
      fake.delayMs = 3000;
      const controller = new AbortController();
      setTimeout(() => controller.abort(), 200);
      const { engine, abandoned } = logging();
      const error = await rejection(
        engine.generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal }),
      );
      expect(fake.runningLabel).toBeDefined();
      expect(error).toMatchObject({ name: 'AbortError' });
      await abandoned();
    });

    it('an aborted signal stops the call before any request', async () => {
      const error = await rejection(
        engineFor().superResolve({ image: photo }, { signal: AbortSignal.abort(new Error('cancelled')) }),
      );
      expect(error).toMatchObject({ message: 'cancelled' });
      expect(fake.requests).toHaveLength(0);
    });

    it('close() aborts the calls in flight with a retryable error', async () => {
      fake.delayMs = 3000;
      const engine = engineFor();
      const call = rejection(engine.generate({ prompt: 'x', width: 64, height: 64 }));
      await new Promise((resolve) => setTimeout(resolve, 100));
      await engine.close();
      expect(await call).toBeInstanceOf(A1111Error);
      await expect(engine.superResolve({ image: photo })).rejects.toBeInstanceOf(A1111Error);
    });
  });

  describe('cancel stops this job and nobody else (the server runs one request at a time)', () => {
    const lines: string[] = [];
    const logger = { log: (m: string) => lines.push(m), warn: (m: string) => lines.push(m) };
    beforeEach(() => (lines.length = 0));
    const isOurs = (label: string | undefined) => label?.startsWith('task(studio-') === true;
    const cancelled = () => new Error('cancelled by the user');

    it('a running txt2img of this job is interrupted (it is the task running); rejects at once', async () => {
      fake.delayMs = 5000;
      const controller = new AbortController();
      const job = rejection(
        engineFor({ logger }).generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal }),
      );
      await waitFor(() => isOurs(fake.runningLabel));
      const ours = fake.runningLabel;
      controller.abort(cancelled());
      expect(await job).toMatchObject({ message: 'cancelled by the user' });
      // At once: the server still runs it until the interrupt below lands.
      expect(fake.runningLabel).toBe(ours);
      await waitFor(() => lines.some((l) => l.includes('abandoned')));
      expect(lines.find((l) => l.includes('abandoned'))).toMatch(/abandoned: interrupted/);
      expect(fake.interrupted).toEqual([ours]);
      expect(fake.requestsTo('/sdapi/v1/interrupt')).toHaveLength(1);
    });

    it('a waiting txt2img is not interrupted while another client runs; once it starts, it is', async () => {
      const other = await fake.queueOther(800);
      fake.delayMs = 5000;
      const controller = new AbortController();
      const job = rejection(
        engineFor({ logger }).generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal }),
      );
      await waitFor(() => fake.waitingLabels.some(isOurs));
      const [ours] = fake.waitingLabels;
      controller.abort(cancelled());
      expect(await job).toMatchObject({ message: 'cancelled by the user' });
      // The other client's request ran to its end, untouched, with its real image.
      const { images } = await other.answer;
      const { width } = await sharp(Buffer.from(images[0], 'base64')).metadata();
      expect(width).toBe(64);
      // Ours took the lock after it (A1111 works on a request whose client has gone): stopped then.
      await waitFor(() => lines.some((l) => l.includes('abandoned')));
      expect(lines.find((l) => l.includes('abandoned'))).toMatch(/abandoned: interrupted/);
      expect(fake.interrupted).toEqual([ours]);
    });

    it('a server that ignores force_task_id (before 1.6) is never interrupted: the request is abandoned', async () => {
      fake.trackTasks = false;
      fake.delayMs = 600;
      const controller = new AbortController();
      const job = rejection(
        engineFor({ logger }).generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal }),
      );
      await waitFor(() => fake.runningLabel !== undefined);
      controller.abort(cancelled());
      expect(await job).toMatchObject({ message: 'cancelled by the user' });
      await waitFor(() => lines.some((l) => l.includes('abandoned')) || fake.interrupted.length > 0);
      expect(lines.find((l) => l.includes('abandoned'))).toMatch(
        /left alone: the server does not report this task/,
      );
      expect(fake.requestsTo('/sdapi/v1/interrupt')).toHaveLength(0);
    });

    it('an upscale (no task id on that route) is abandoned, never interrupted', async () => {
      const other = await fake.queueOther(300);
      fake.delayMs = 300;
      const controller = new AbortController();
      const job = rejection(
        engineFor({ logger }).superResolve({ image: photo }, { signal: controller.signal }),
      );
      await waitFor(() => fake.waitingLabels.length === 1);
      controller.abort(cancelled());
      expect(await job).toMatchObject({ message: 'cancelled by the user' });
      await other.answer;
      // The server finishes the abandoned upscale too; nothing was interrupted on the way.
      await waitFor(() => fake.runningLabel === undefined && fake.waitingLabels.length === 0);
      expect(fake.requestsTo('/sdapi/v1/interrupt')).toHaveLength(0);
      expect(fake.interrupted).toEqual([]);
    });

    it("another client's global interrupt: the half-denoised answer is a retryable failure, never a result", async () => {
      fake.delayMs = 3000;
      const job = rejection(engineFor({ logger }).generate({ prompt: 'x', width: 64, height: 64 }));
      await waitFor(() => isOurs(fake.runningLabel));
      await fetch(`${fake.url}/sdapi/v1/interrupt`, { method: 'POST' });
      const error = await job;
      expect(error).toBeInstanceOf(A1111Error);
      expect(error).toMatchObject({
        kind: 'server',
        message: 'The A1111 generate run was interrupted on the server',
      });
    });

    it('time spent waiting behind another client does not count toward the request timeout', async () => {
      const other = await fake.queueOther(1000);
      fake.delayMs = 200;
      const started = Date.now();
      const image = await engineFor({ timeoutMs: 700 }).generate({ prompt: 'x', width: 64, height: 64 });
      expect(Date.now() - started).toBeGreaterThan(1000);
      expect(image).toMatchObject({ width: 64, height: 64 });
      await other.answer;
    });

    it('waiting longer than queueTimeoutMs is a retryable timeout (and the request is stopped once it starts)', async () => {
      const other = await fake.queueOther(900);
      fake.delayMs = 5000;
      const error = await rejection(
        engineFor({ logger, queueTimeoutMs: 300 }).generate({ prompt: 'x', width: 64, height: 64 }),
      );
      expect(error).toMatchObject({
        kind: 'timeout',
        message: expect.stringMatching(/waited more than 300 ms/),
      });
      await other.answer;
      await waitFor(() => lines.some((l) => l.includes('abandoned')));
      expect(fake.interrupted).toHaveLength(1);
      expect(isOurs(fake.interrupted[0])).toBe(true);
    });
  });

  describe('HTTP errors', () => {
    const generate = () => engineFor().generate({ prompt: 'x', width: 64, height: 64 });

    it('4xx is the request’s fault: EngineInputError with the server’s detail', async () => {
      fake.failNext(400, { error: 'HTTPException', detail: 'Sampler not found' });
      const error = await rejection(generate());
      expect(error).toBeInstanceOf(EngineInputError);
      expect(error).toMatchObject({ code: 'bad_request' });
      expect((error as Error).message).toContain('Sampler not found');

      fake.failNext(422, { detail: [{ loc: ['body', 'width'], msg: 'value is not a valid integer' }] });
      expect(((await rejection(generate())) as Error).message).toContain(
        'body.width: value is not a valid integer',
      );
    });

    it('5xx is retryable: a plain A1111Error', async () => {
      for (const status of [500, 502, 503]) {
        fake.failNext(status, { error: 'OutOfMemoryError', detail: 'CUDA out of memory' });
        const error = await rejection(generate());
        expect(error).toBeInstanceOf(A1111Error);
        expect(error).not.toBeInstanceOf(EngineInputError);
        expect(error).toMatchObject({ kind: 'server', status });
        expect((error as Error).message).toContain('CUDA out of memory');
      }
    });

    it("the error's message (`errors`) is reported, not its class name (`error`); a proxy's HTML page by its status", async () => {
      // modules/api/api.py handle_exception: {error: type(e).__name__, detail, body, errors: str(e)}
      fake.failNext(500, {
        error: 'OutOfMemoryError',
        detail: '',
        body: '',
        errors: 'CUDA out of memory. Tried to allocate 2.00 GiB',
      });
      expect(((await rejection(generate())) as Error).message).toBe(
        'A1111 POST /sdapi/v1/txt2img failed with HTTP 500: CUDA out of memory. Tried to allocate 2.00 GiB',
      );
      fake.failNext(502, 'html');
      const proxied = await rejection(generate());
      expect(proxied).toMatchObject({ name: 'A1111Error', kind: 'server', status: 502 });
      expect((proxied as Error).message).toBe(
        'A1111 POST /sdapi/v1/txt2img failed with HTTP 502: 502 Bad Gateway 502 Bad Gateway nginx/1.24.0',
      );
    });

    it('429 (busy) is retryable', async () => {
      fake.failNext(429, { detail: 'Too many requests' });
      expect(await rejection(generate())).toMatchObject({ kind: 'server', status: 429 });
    });

    it('a missing route makes the capability unavailable', async () => {
      fake.failNext(404, { detail: 'Not Found' });
      const error = await rejection(engineFor().faceSwap({ face: photo, target: photo }));
      expect(error).toBeInstanceOf(CapabilityUnavailableError);
      expect(error).toMatchObject({ capability: 'faceSwap' });
    });

    it('an answer without an image is a retryable protocol error', async () => {
      fake.failNext(200, { images: [] });
      expect(await rejection(generate())).toMatchObject({ name: 'A1111Error', kind: 'protocol' });
      fake.failNext(200, { images: ['bm90IGFuIGltYWdl'] });
      expect(await rejection(generate())).toMatchObject({ name: 'A1111Error', kind: 'protocol' });
    });

    it('an unreachable server is a retryable network error', async () => {
      const gone = await startFakeA1111();
      const url = gone.url;
      await gone.close();
      const error = await rejection(
        new A1111Engine({ baseUrl: url }).generate({ prompt: 'x', width: 64, height: 64 }),
      );
      expect(error).toMatchObject({ name: 'A1111Error', kind: 'network' });
      expect((error as Error).message).toContain('ECONNREFUSED');
    });

    it('a body over the server’s limit (413) is bad_image', async () => {
      const small = await startFakeA1111({ bodyLimitBytes: 2000 });
      try {
        const error = await rejection(new A1111Engine({ baseUrl: small.url }).superResolve({ image: photo }));
        expect(error).toMatchObject({ name: 'EngineInputError', code: 'bad_image' });
      } finally {
        await small.close();
      }
    });
  });

  describe('the fake server', () => {
    it('answers unknown routes with 404 and records truncated bodies', async () => {
      const response = await fetch(`${fake.url}/sdapi/v1/nothing`);
      expect(response.status).toBe(404);
      expect(await response.json()).toEqual({ detail: 'Not Found' });

      await engineFor().superResolve({ image: photo });
      const image = body(fake.requestsTo('/sdapi/v1/extra-single-image')[0]).image as string;
      expect(image.length).toBeLessThan(100);
      expect(image).toMatch(/…\(\d+ chars\)$/);
    });

    it('reports progress 0 when idle', async () => {
      const response = await fetch(`${fake.url}/sdapi/v1/progress`);
      expect(await response.json()).toMatchObject({ progress: 0, state: { job_count: 0 } });
    });
  });
});

async function waitFor(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
