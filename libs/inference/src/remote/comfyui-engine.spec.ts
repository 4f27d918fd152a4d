import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { EngineInputError } from '../engine.port';
import { AI_GENERATED_MARK } from '../provenance';
import { boxMask, gradientImage, rejection } from '../spec-helpers';
import { NO_FACE_EITHER } from './a1111-engine';
import { ComfyUIEngine, ComfyUIEngineOptions } from './comfyui-engine';
import { DEFAULT_WORKFLOW_DIR } from './comfyui-workflow';
import { FakeComfyUIServer, startFakeComfyUI } from './fake-comfyui-server';
import { RemoteEngineError } from './remote-http';

/** Real HTTP and a real websocket against the fake ComfyUI on a random port. */
describe('ComfyUIEngine', () => {
  let fake: FakeComfyUIServer;
  let photo: Buffer;
  const TOKEN = 'comfy-secret';

  beforeAll(async () => {
    fake = await startFakeComfyUI({ token: TOKEN });
    photo = await gradientImage(320, 240);
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());

  const engineFor = (options: Partial<ComfyUIEngineOptions> = {}) =>
    new ComfyUIEngine({ baseUrl: fake.url, token: TOKEN, pollIntervalMs: 50, ...options });
  const nodeTitled = (prompt: Record<string, { inputs: Record<string, unknown> }>, title: string) => {
    const workflow = JSON.parse(readFileSync(join(DEFAULT_WORKFLOW_DIR, 'generate.json'), 'utf8')) as Record<
      string,
      { _meta: { title: string } }
    >;
    const id = Object.keys(workflow).find((k) => workflow[k]._meta.title === title)!;
    return prompt[id].inputs;
  };

  it('generate: fills prompt, seed and size, follows /ws progress, reads the result from /view', async () => {
    fake.delayMs = 200;
    const progress: number[] = [];
    const image = await engineFor().generate(
      { prompt: 'a lighthouse at dusk', width: 500, height: 300 },
      { onProgress: (f) => progress.push(f) },
    );
    const [prompt] = fake.prompts();
    expect(nodeTitled(prompt, 'studio:prompt').text).toBe('a lighthouse at dusk');
    expect(nodeTitled(prompt, 'studio:size')).toMatchObject({ width: 504, height: 304 });
    expect(typeof nodeTitled(prompt, 'studio:seed').seed).toBe('number');
    expect(fake.requestsTo('/prompt')[0].headers.authorization).toBe(`Bearer ${TOKEN}`);
    expect(fake.requestsTo('/view')).toHaveLength(1);
    // Progress came from the socket's `progress` messages (4 steps, the last held below 1), then 1.
    expect(progress).toEqual([0.25, 0.5, 0.75, 0.99, 1]);
    expect(image).toMatchObject({ format: 'png', width: 500, height: 300 });
    const meta = await sharp(image.data).metadata();
    expect(meta.exif?.toString('latin1')).toContain(`${AI_GENERATED_MARK} image: image generation`);
    // Closed after the job: the server hears the close a moment after the engine sends it.
    await waitFor(() => fake.openSockets === 0);
  });

  it('falls back to polling /history when the socket is refused', async () => {
    fake.websocket = false;
    fake.delayMs = 100;
    const image = await engineFor().generate({ prompt: 'x', width: 64, height: 64 });
    expect(image).toMatchObject({ width: 64, height: 64 });
    expect(fake.requests.filter((r) => r.path.startsWith('/history/')).length).toBeGreaterThan(1);
  });

  it('inpaint: uploads image and mask, fills the LoadImage nodes, repaints only the mask', async () => {
    const mask = await boxMask(320, 240, { left: 10, top: 10, width: 40, height: 40 });
    const image = await engineFor().inpaint({ image: photo, mask, prompt: 'a red hat' });
    expect(fake.requestsTo('/upload/image')).toHaveLength(2);
    const [prompt] = fake.prompts();
    const loads = Object.values(prompt).filter((n) => n.class_type.startsWith('LoadImage'));
    expect(loads.every((n) => fake.uploads.has(String(n.inputs.image)))).toBe(true);
    const { data, info } = await sharp(image.data).raw().toBuffer({ resolveWithObject: true });
    const at = (x: number, y: number) => [
      ...data.subarray((y * info.width + x) * info.channels, (y * info.width + x) * info.channels + 3),
    ];
    expect(at(20, 20)).toEqual([255, 0, 255]);
    expect(at(200, 200)).not.toEqual([255, 0, 255]);
  });

  it('superResolve and faceSwap run their workflows (upscale model ×4 brought to ×2; ReActor)', async () => {
    const upscaled = await engineFor().superResolve({ image: photo, scale: 2 });
    expect(upscaled).toMatchObject({ width: 640, height: 480 });
    const swapped = await engineFor().faceSwap({ face: photo, target: photo });
    expect(swapped).toMatchObject({ format: 'jpeg', width: 320, height: 240 });
    const swap = Object.values(fake.prompts()[1]).find((n) => n.class_type === 'ReActorFaceSwap');
    expect(swap).toBeDefined();
  });

  it('faceSwap: ReActor returning the target unchanged means no face (no charge kept)', async () => {
    fake.noFace = true;
    try {
      const error = await rejection(engineFor().faceSwap({ face: photo, target: photo }));
      expect(error).toMatchObject({ code: 'no_face_target', message: NO_FACE_EITHER });
    } finally {
      fake.noFace = false;
    }
  });

  it('faceSwap: a target restored but not swapped (ReActor restores regardless) fails as no face', async () => {
    // The node restores whether or not it swapped (nodes.py reactor.execute): the result differs
    // from the target either way; studio:swapped (before ReActorRestoreFace) shows no swap.
    fake.noFace = true;
    fake.restoreUnswapped = true;
    const error = await rejection(engineFor().faceSwap({ face: photo, target: photo }));
    expect(error).toMatchObject({ code: 'no_face_target', message: NO_FACE_EITHER });
    // A swap: the restored image is the result, read from studio:output (not the preview).
    fake.noFace = false;
    fake.requests.length = 0;
    const swapped = await engineFor().faceSwap({ face: photo, target: photo });
    const views = fake.requestsTo('/view').map((r) => r.query.get('type'));
    expect(views.sort()).toEqual(['output', 'temp']);
    const { data, info } = await sharp(swapped.data).raw().toBuffer({ resolveWithObject: true });
    const o = (120 * info.width + 160) * info.channels;
    expect([data[o], data[o + 1], data[o + 2]].map((v) => Math.round(v / 16))).toEqual([8, 16, 8]);
  });

  it('node_errors from POST /prompt become a clear permanent failure', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'comfy-wf-'));
    try {
      cpSync(DEFAULT_WORKFLOW_DIR, dir, { recursive: true });
      const file = join(dir, 'generate.json');
      const graph = JSON.parse(readFileSync(file, 'utf8'));
      graph['4'].class_type = 'CheckpointLoaderFancy';
      writeFileSync(file, JSON.stringify(graph));
      const error = await rejection(
        engineFor({ workflowDir: dir, capabilities: ['generate'] }).generate({
          prompt: 'x',
          width: 64,
          height: 64,
        }),
      );
      expect(error).toBeInstanceOf(EngineInputError);
      expect((error as Error).message).toBe(
        "ComfyUI refused the generate workflow: Cannot execute because node CheckpointLoaderFancy does not exist.: Node ID '#4'",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a proxy's HTML error page on POST /prompt is a retryable server error with its status", async () => {
    fake.htmlErrorNext('POST /prompt', 502);
    const error = await rejection(engineFor().generate({ prompt: 'x', width: 64, height: 64 }));
    expect(error).toBeInstanceOf(RemoteEngineError);
    expect(error).toMatchObject({ kind: 'server', status: 502 });
    expect((error as Error).message).toBe(
      'ComfyUI POST /prompt failed with HTTP 502: 502 Bad Gateway 502 Bad Gateway nginx/1.24.0',
    );
  });

  it('an execution_error names the node and the exception, without retries', async () => {
    fake.failExecution = { nodeId: '3', message: 'CUDA out of memory. Tried to allocate 2.00 GiB' };
    const error = await rejection(engineFor().generate({ prompt: 'x', width: 64, height: 64 }));
    expect(error).toBeInstanceOf(EngineInputError);
    expect((error as Error).message).toBe(
      'The ComfyUI workflow failed in node 3 (KSampler): torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB',
    );
  });

  it('an execution_error is found by polling too', async () => {
    fake.websocket = false;
    fake.failExecution = { nodeId: '3', message: 'boom' };
    const error = await rejection(engineFor().generate({ prompt: 'x', width: 64, height: 64 }));
    expect((error as Error).message).toMatch(/failed in node 3 \(KSampler\).*boom/);
  });

  it('a job over its deadline times out (retryable) and is interrupted on the server', async () => {
    fake.hang = true;
    const error = await rejection(
      engineFor({ jobTimeoutMs: 300 }).generate({ prompt: 'x', width: 64, height: 64 }),
    );
    expect(error).toBeInstanceOf(RemoteEngineError);
    expect((error as RemoteEngineError).kind).toBe('timeout');
    await waitFor(() => fake.interrupted.length === 1);
    expect(fake.requestsTo('/interrupt')[0].body).toEqual({ prompt_id: fake.interrupted[0] });
  });

  describe('cancel stops this job and nobody else', () => {
    /** An engine whose log lines are kept (what stopPrompt did). */
    const logged = () => {
      const lines: string[] = [];
      const engine = engineFor({ logger: { log: (m) => lines.push(m), warn: (m) => lines.push(m) } });
      return { engine, lines };
    };
    const cancelled = () => new Error('cancelled by the user');

    it.each([['0.3.60'], ['0.3.40'], [undefined]])(
      'a waiting prompt is deleted from the queue; the running prompt of another client goes on (ComfyUI %s)',
      async (version) => {
        fake.version = version;
        const other = await fake.queueOther({ hang: true });
        const { engine, lines } = logged();
        const controller = new AbortController();
        const job = engine.generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal });
        await waitFor(() => fake.pendingIds.length === 1);
        const [ours] = fake.pendingIds;
        controller.abort(cancelled());
        await expect(job).rejects.toThrow('cancelled by the user');
        // Done when the engine says so, or at once should anything be interrupted.
        await waitFor(() => lines.some((l) => l.includes('abandoned')) || fake.interrupted.length > 0);
        expect(fake.deleted).toEqual([ours]);
        expect(fake.pendingIds).toEqual([]);
        expect(fake.interrupted).toEqual([]);
        expect(fake.requestsTo('/interrupt')).toHaveLength(0);
        expect(fake.runningId).toBe(other);
      },
    );

    it("a running prompt is interrupted by its prompt_id; the next client's prompt then runs", async () => {
      fake.hang = true;
      const controller = new AbortController();
      const job = engineFor().generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal });
      await waitFor(() => fake.runningId !== undefined);
      const ours = fake.runningId!;
      const other = await fake.queueOther({ hang: true });
      controller.abort(cancelled());
      await expect(job).rejects.toThrow('cancelled by the user');
      await waitFor(() => fake.interrupted.length === 1);
      expect(fake.interrupted).toEqual([ours]);
      expect(fake.requestsTo('/interrupt').map((r) => r.body)).toEqual([{ prompt_id: ours }]);
      expect(fake.runningId).toBe(other);
      expect(fake.deleted).toEqual([]);
    });

    it.each([['0.3.56'], [undefined]])(
      'on ComfyUI %s (/interrupt is global) a running prompt is left to finish, never interrupted',
      async (version) => {
        fake.version = version;
        fake.delayMs = 400;
        const { engine, lines } = logged();
        const controller = new AbortController();
        const job = engine.generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal });
        await waitFor(() => fake.runningId !== undefined);
        const ours = fake.runningId!;
        const other = await fake.queueOther({ hang: true });
        controller.abort(cancelled());
        await expect(job).rejects.toThrow('cancelled by the user');
        // Done when the engine says so, or at once should anything be interrupted.
        await waitFor(() => lines.some((l) => l.includes('abandoned')) || fake.interrupted.length > 0);
        expect(lines.find((l) => l.includes('abandoned'))).toMatch(
          /left running: ComfyUI .* ignores the prompt id/,
        );
        expect(fake.requestsTo('/interrupt')).toHaveLength(0);
        // Ours ran to its end, then the other client's prompt started, untouched.
        await waitFor(() => fake.runningId === other);
        expect(fake.interrupted).toEqual([]);
        expect(ours).not.toBe(other);
      },
    );
  });

  it('a history entry written 2 s after execution_success is waited for: the job succeeds', async () => {
    fake.historyDelayMs = 2000;
    const started = Date.now();
    const image = await engineFor().generate({ prompt: 'x', width: 64, height: 64 });
    expect(image).toMatchObject({ width: 64, height: 64 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(2000);
  });

  it('a prompt the server lost (restart) fails over within seconds, retryable', async () => {
    fake.hang = true;
    const job = rejection(
      engineFor({ pollIntervalMs: 500 }).generate({ prompt: 'x', width: 64, height: 64 }),
    );
    await waitFor(() => fake.runningId !== undefined);
    const lost = Date.now();
    fake.restart();
    const error = await job;
    expect(error).toBeInstanceOf(RemoteEngineError);
    expect(error).toMatchObject({ kind: 'server', message: expect.stringMatching(/lost prompt/) });
    expect(Date.now() - lost).toBeLessThan(10_000);
  });

  it('a job cancelled while its prompt is being queued still interrupts that prompt', async () => {
    fake.hang = true;
    fake.queueLatencyMs = 1500;
    const controller = new AbortController();
    const job = engineFor().generate({ prompt: 'x', width: 64, height: 64 }, { signal: controller.signal });
    // ComfyUI has queued the prompt but its answer (the prompt_id) is still on the way.
    await waitFor(() => fake.requestsTo('/prompt').length === 1);
    const aborted = Date.now();
    controller.abort(new Error('cancelled by the user'));
    await expect(job).rejects.toThrow('cancelled by the user');
    // At once, not when the creation's answer comes.
    expect(Date.now() - aborted).toBeLessThan(500);
    await waitFor(() => fake.interrupted.length === 1);
  });

  it('close() ends the runs in flight at once (no polling until the deadline) and drops their sockets', async () => {
    fake.hang = true;
    const engine = engineFor();
    const job = engine.generate({ prompt: 'x', width: 64, height: 64 });
    await waitFor(() => fake.requestsTo('/prompt').length === 1 && fake.openSockets === 1);
    await engine.close();
    await expect(job).rejects.toMatchObject({ kind: 'network', message: 'The ComfyUI engine is closed' });
    await waitFor(() => fake.openSockets === 0);
  });

  it('wrong token: a retryable auth error; status() reports GPU, VRAM and queue', async () => {
    const error = await rejection(
      engineFor({ token: 'wrong' }).generate({ prompt: 'x', width: 64, height: 64 }),
    );
    expect(error).toMatchObject({ kind: 'auth', status: 401 });
    await expect(engineFor().status()).resolves.toEqual({
      reachable: true,
      readiness: 'ready',
      detail: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync, 20.0 GiB of 24.0 GiB VRAM free',
      gpu: {
        name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync',
        vramFreeBytes: 21_474_836_480,
        vramTotalBytes: 25_757_220_864,
      },
      queue: { running: 0, pending: 0 },
    });
    const down = await new ComfyUIEngine({ baseUrl: 'http://127.0.0.1:9' }).status();
    expect(down.reachable).toBe(false);
    expect(down.readiness).toBe('unreachable');
    expect(await engineFor({ token: 'wrong' }).status()).toMatchObject({
      reachable: false,
      readiness: 'unauthorised',
    });
    expect(down.detail).toMatch(/^ComfyUI at http:\/\/127.0.0.1:9 does not answer/);
  });

  it('status(): a node not installed or a model file not on the server is models_missing, per tool', async () => {
    fake.missingNodes.add('ReActorRestoreFace');
    fake.missingModels.add('RealESRGAN_x4plus.pth');
    const status = await engineFor().status();
    expect(status).toMatchObject({ reachable: true, readiness: 'models_missing' });
    expect(status.missing).toEqual([
      { capability: 'superResolve', what: 'UpscaleModelLoader model_name RealESRGAN_x4plus.pth' },
      { capability: 'faceSwap', what: 'node ReActorRestoreFace (not installed)' },
    ]);
    // Each node class asked once.
    const asked = fake.requests.filter((r) => r.path.startsWith('/object_info/')).map((r) => r.path);
    expect(new Set(asked).size).toBe(asked.length);
  });

  it('a workflow file without the studio markers is refused when the engine is made', () => {
    const dir = mkdtempSync(join(tmpdir(), 'comfy-wf-'));
    try {
      writeFileSync(
        join(dir, 'generate.json'),
        JSON.stringify({ 1: { class_type: 'KSampler', inputs: {} } }),
      );
      expect(
        () => new ComfyUIEngine({ baseUrl: fake.url, workflowDir: dir, capabilities: ['generate'] }),
      ).toThrow(/has no node titled "studio:prompt", "studio:seed", "studio:size", "studio:output"/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

async function waitFor(check: () => boolean, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await new Promise((r) => setTimeout(r, 10));
  }
}
