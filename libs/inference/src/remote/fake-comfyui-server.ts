import { randomUUID } from 'node:crypto';
import { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import sharp from 'sharp';
import { WebSocket, WebSocketServer } from 'ws';
import {
  closeServer,
  gradientPng,
  listenLocally,
  paintMaskPng,
  patchFacePng,
  readBody,
  restoreFacePng,
  sendHtmlError,
} from './fake-server-kit';

/**
 * A stand-in for a ComfyUI server in tests: the routes, JSON shapes and socket messages of
 * ComfyUI's server.py/execution.py, with images made by sharp instead of models.
 *
 * - POST /upload/image (multipart `image`, `type`, `subfolder`): {name, subfolder, type}
 * - POST /prompt {prompt, client_id}: validates the graph like ComfyUI (unknown class_type → 400
 *   invalid_prompt; a LoadImage/LoadImageMask whose file was never uploaded → 400 with
 *   node_errors), then {prompt_id, number, node_errors: {}} and runs it: `execution_start`,
 *   `executing` per node, `progress` (`steps` steps over `delayMs`), `executed`, `executing`
 *   with node null, `execution_success` on /ws to the prompt's client_id
 * - the result by the graph's nodes: EmptyLatentImage → a gradient of its size; VAEEncodeForInpaint
 *   → the image with the mask's white area magenta; ImageUpscaleWithModel → ×4; ReActorFaceSwap →
 *   a green patch on the target's middle third
 * - one prompt runs at a time, the others wait in the queue (execution.py's PromptQueue):
 *   GET /queue {queue_running, queue_pending} as [number, prompt_id, prompt, extra_data, outputs]
 * - POST /queue {delete: [ids]} removes those prompts while they wait, {clear: true} all waiting
 *   ones (server.py post_queue; a running prompt is not touched)
 * - POST /interrupt: with `version` 0.3.57 or later, a `prompt_id` in the body interrupts only
 *   that prompt and only while it runs (PR #9607); older servers ignore the body and interrupt
 *   whatever runs, whoever queued it (issue #2566)
 * - GET /history/{id} ({} until finished, and `historyDelayMs` after `execution_success`, as the
 *   prompt worker writes it after the executor's last message), GET /view, GET /prompt,
 *   GET /system_stats (`system.comfyui_version` = `version`, absent when undefined)
 *
 * Test knobs: `failExecution` (the next prompt raises in that node), `hang` (prompts queued while
 * it is set never finish until interrupted), `websocket` (false: /ws answers 404), `token`,
 * `version`, `historyDelayMs`, `queueOther()` (another client's prompt), `restart()` (the server
 * restarts: queue and history gone), `reset()`.
 */
export interface FakeComfyUIOptions {
  port?: number;
  /** Bearer token every route wants (401 otherwise). */
  token?: string;
}

export interface ComfyRecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  body: unknown;
  headers: IncomingHttpHeaders;
}

interface Job {
  id: string;
  number: number;
  clientId?: string;
  prompt: Record<string, { class_type: string; inputs: Record<string, unknown>; _meta?: { title?: string } }>;
  timers: NodeJS.Timeout[];
  /** Queued while `hang` was set: runs until interrupted. */
  hang: boolean;
  finish?: (how: 'interrupted') => void;
}

const KNOWN = new Set([
  'CheckpointLoaderSimple',
  'EmptyLatentImage',
  'CLIPTextEncode',
  'KSampler',
  'VAEDecode',
  'VAEEncodeForInpaint',
  'SaveImage',
  'PreviewImage',
  'LoadImage',
  'LoadImageMask',
  'UpscaleModelLoader',
  'ImageUpscaleWithModel',
  'ReActorFaceSwap',
  'ReActorRestoreFace',
]);

/** The model files the fake "has", per node class and combo input (as /object_info lists them). */
const MODEL_CHOICES: Record<string, Record<string, string[]>> = {
  CheckpointLoaderSimple: {
    ckpt_name: ['v1-5-pruned-emaonly.safetensors', '512-inpainting-ema.safetensors'],
  },
  UpscaleModelLoader: { model_name: ['RealESRGAN_x4plus.pth'] },
  ReActorFaceSwap: {
    swap_model: ['inswapper_128.onnx'],
    facedetection: ['retinaface_resnet50', 'retinaface_mobile0.25', 'YOLOv5l', 'YOLOv5n'],
    face_restore_model: ['none', 'codeformer-v0.1.0.pth', 'GFPGANv1.4.pth'],
  },
  ReActorRestoreFace: {
    facedetection: ['retinaface_resnet50', 'retinaface_mobile0.25', 'YOLOv5l', 'YOLOv5n'],
    model: ['none', 'codeformer-v0.1.0.pth', 'GFPGANv1.4.pth'],
  },
};

export class FakeComfyUIServer {
  readonly requests: ComfyRecordedRequest[] = [];
  /** How long a prompt runs, ms. */
  delayMs = 0;
  /** Progress messages per prompt. */
  steps = 4;
  /** The next prompt raises this error in this node while running. */
  failExecution?: { nodeId: string; message: string };
  /** Prompts queued from now on never finish (until interrupted). */
  hang = false;
  /** What /system_stats reports; 0.3.57 and later interrupt by prompt_id, older ones globally. */
  version: string | undefined = '0.3.60';
  /** How long after `execution_success` the history entry appears, ms. */
  historyDelayMs = 0;
  /** How long the answer to POST /prompt takes; the prompt is queued (and runs) from the start. */
  queueLatencyMs = 0;
  /** ReActor finds no face: the target comes back unchanged (but see restoreUnswapped). */
  noFace = false;
  /**
   * As the real ReActorFaceSwap node (nodes.py `reactor.execute`): its face_restore_model runs
   * whether or not a face was swapped, so with `noFace` the target comes back restored, not
   * unchanged. Off: an unswapped target comes back unchanged, as before.
   */
  restoreUnswapped = false;
  /**
   * Requests ('POST /prompt') answered once by a reverse proxy's HTML error page with this status
   * (nginx's 502 while ComfyUI restarts), as `htmlErrorNext` sets them.
   */
  private readonly htmlErrors = new Map<string, number>();
  /** Node classes not installed (custom nodes missing): /object_info/{class} answers {}. */
  readonly missingNodes = new Set<string>();
  /** Model files not on the server: left out of /object_info's combo choices. */
  readonly missingModels = new Set<string>();
  /** false: /ws refuses the upgrade (404), clients must poll /history. */
  websocket = true;
  /** The ids of prompts that were interrupted. */
  readonly interrupted: string[] = [];
  /** The ids of waiting prompts removed by POST /queue. */
  readonly deleted: string[] = [];
  readonly uploads = new Map<string, Buffer>();
  private readonly outputs = new Map<string, Buffer>();
  private readonly history = new Map<string, Record<string, unknown>>();
  private current?: Job;
  private readonly pending: Job[] = [];
  private readonly sockets = new Map<string, WebSocket>();
  private readonly wss = new WebSocketServer({ noServer: true });
  private counter = 0;

  private constructor(
    private readonly server: Server,
    private readonly options: FakeComfyUIOptions,
    readonly url: string,
  ) {
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      this.handle(req, res).catch((error: unknown) => send(res, 500, { error: String(error) }));
    });
    server.on('upgrade', (req, socket, head) => {
      const url = new URL(req.url ?? '/', 'http://fake');
      if (url.pathname !== '/ws' || !this.websocket || !this.authorized(req.headers.authorization)) {
        socket.end(`HTTP/1.1 ${this.websocket ? 401 : 404} Refused\r\n\r\n`);
        return;
      }
      this.wss.handleUpgrade(req, socket, head, (ws) => {
        const sid = url.searchParams.get('clientId') || randomUUID().replace(/-/g, '');
        this.sockets.set(sid, ws);
        ws.on('close', () => this.sockets.delete(sid));
        ws.send(JSON.stringify({ type: 'status', data: { status: this.queueInfo(), sid } }));
      });
    });
  }

  static async start(options: FakeComfyUIOptions = {}): Promise<FakeComfyUIServer> {
    const { server, url } = await listenLocally(options.port);
    return new FakeComfyUIServer(server, options, url);
  }

  requestsTo(path: string): ComfyRecordedRequest[] {
    return this.requests.filter((r) => r.path === path);
  }

  /** The prompts queued, newest last. */
  prompts(): Record<string, { class_type: string; inputs: Record<string, unknown> }>[] {
    return this.requestsTo('/prompt')
      .filter((r) => r.method === 'POST')
      .map((r) => (r.body as { prompt: never }).prompt);
  }

  get openSockets(): number {
    return this.sockets.size;
  }

  /** The prompt running now, if any. */
  get runningId(): string | undefined {
    return this.current?.id;
  }

  /** The ids of the prompts waiting, first to run first. */
  get pendingIds(): string[] {
    return this.pending.map((job) => job.id);
  }

  /** Queues a small prompt as another client would (through POST /prompt); its prompt_id. */
  async queueOther(options: { hang?: boolean } = {}): Promise<string> {
    const hang = this.hang;
    this.hang = options.hang ?? hang;
    try {
      const answer = await fetch(`${this.url}/prompt`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          ...(this.options.token ? { authorization: `Bearer ${this.options.token}` } : {}),
        },
        body: JSON.stringify({
          client_id: 'another-client',
          prompt: {
            '1': { class_type: 'EmptyLatentImage', inputs: { width: 64, height: 64, batch_size: 1 } },
            '2': { class_type: 'SaveImage', inputs: { filename_prefix: 'other', images: ['1', 0] } },
          },
        }),
      });
      return ((await answer.json()) as { prompt_id: string }).prompt_id;
    } finally {
      this.hang = hang;
    }
  }

  /** The server restarts: every waiting and running prompt, and the history, are gone. */
  restart(): void {
    for (const job of [...this.pending, ...(this.current ? [this.current] : [])]) {
      job.timers.forEach(clearTimeout);
    }
    this.pending.length = 0;
    this.current = undefined;
    this.history.clear();
    for (const ws of this.sockets.values()) ws.terminate();
  }

  /** The next `route` request ('POST /prompt') gets a proxy's HTML error page with `status`. */
  htmlErrorNext(route: string, status = 502): void {
    this.htmlErrors.set(route, status);
  }

  /** Between tests: nothing queued or running, knobs back to their defaults, records emptied. */
  reset(): void {
    this.pending.length = 0;
    if (this.current) {
      this.current.timers.forEach(clearTimeout);
      this.current = undefined;
    }
    this.requests.length = 0;
    this.interrupted.length = 0;
    this.deleted.length = 0;
    this.htmlErrors.clear();
    this.missingNodes.clear();
    this.missingModels.clear();
    Object.assign(this, {
      delayMs: 0,
      hang: false,
      websocket: true,
      queueLatencyMs: 0,
      version: '0.3.60',
      historyDelayMs: 0,
      failExecution: undefined,
      noFace: false,
      restoreUnswapped: false,
    });
  }

  async close(): Promise<void> {
    for (const job of [...this.pending, ...(this.current ? [this.current] : [])]) {
      job.timers.forEach(clearTimeout);
    }
    for (const ws of this.sockets.values()) ws.terminate();
    this.wss.close();
    await closeServer(this.server);
  }

  private authorized(header: string | undefined): boolean {
    return !this.options.token || header === `Bearer ${this.options.token}`;
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://fake');
    const method = req.method ?? 'GET';
    const raw = await readBody(req);
    const type = req.headers['content-type'] ?? '';
    let body: unknown;
    let form: FormData | undefined;
    if (type.startsWith('multipart/form-data')) {
      form = await new Response(raw, { headers: { 'content-type': type } }).formData();
      body = Object.fromEntries(
        [...form.keys()].map((k) => [k, typeof form!.get(k) === 'string' ? form!.get(k) : '(file)']),
      );
    } else if (raw.length > 0) {
      try {
        body = JSON.parse(raw.toString('utf8'));
      } catch {
        return send(res, 400, { error: 'invalid json' });
      }
    }
    this.requests.push({ method, path: url.pathname, query: url.searchParams, body, headers: req.headers });
    if (!this.authorized(req.headers.authorization)) return send(res, 401, { error: 'Unauthorized' });
    const htmlError = this.htmlErrors.get(`${method} ${url.pathname}`);
    if (htmlError) {
      this.htmlErrors.delete(`${method} ${url.pathname}`);
      return sendHtmlError(res, htmlError);
    }

    const objectInfo = /^\/object_info\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && objectInfo) {
      // server.py: {} for a class that is not in NODE_CLASS_MAPPINGS.
      const cls = decodeURIComponent(objectInfo[1]);
      if (!KNOWN.has(cls) || this.missingNodes.has(cls)) return send(res, 200, {});
      const required = Object.fromEntries(
        Object.entries(MODEL_CHOICES[cls] ?? {}).map(([name, choices]) => [
          name,
          [choices.filter((c) => !this.missingModels.has(c)), {}],
        ]),
      );
      return send(res, 200, { [cls]: { input: { required }, name: cls, output_node: false } });
    }
    const history = /^\/history\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && history) {
      const entry = this.history.get(history[1]);
      return send(res, 200, entry ? { [history[1]]: entry } : {});
    }
    switch (`${method} ${url.pathname}`) {
      case 'POST /upload/image':
        return this.upload(res, form);
      case 'POST /prompt':
        return this.queuePrompt(res, isRecord(body) ? body : {});
      case 'GET /prompt':
        return send(res, 200, this.queueInfo());
      case 'GET /queue':
        return send(res, 200, {
          queue_running: this.current ? [queueItem(this.current)] : [],
          queue_pending: this.pending.map(queueItem),
        });
      case 'POST /queue': {
        const request = isRecord(body) ? body : {};
        if (request.clear === true) this.deleted.push(...this.pending.splice(0).map((job) => job.id));
        if (Array.isArray(request.delete)) {
          for (const id of request.delete) {
            const index = this.pending.findIndex((job) => job.id === id);
            if (index >= 0) this.deleted.push(...this.pending.splice(index, 1).map((job) => job.id));
          }
        }
        return send(res, 200, undefined);
      }
      case 'POST /interrupt':
        return this.interrupt(res, isRecord(body) ? body : {});
      case 'GET /system_stats':
        return send(res, 200, {
          system: {
            os: 'posix',
            ram_total: 64e9,
            ram_free: 32e9,
            ...(this.version === undefined ? {} : { comfyui_version: this.version }),
            python_version: '3.12',
            pytorch_version: '2.5',
            embedded_python: false,
            argv: ['main.py'],
          },
          devices: [
            {
              name: 'cuda:0 NVIDIA GeForce RTX 4090 : cudaMallocAsync',
              type: 'cuda',
              index: 0,
              vram_total: 25_757_220_864,
              vram_free: 21_474_836_480,
              torch_vram_total: 0,
              torch_vram_free: 0,
            },
          ],
        });
      case 'GET /view': {
        const key = `${url.searchParams.get('type')}/${url.searchParams.get('subfolder')}/${url.searchParams.get('filename')}`;
        const bytes = this.outputs.get(key);
        if (!bytes) return send(res, 404, undefined);
        res.writeHead(200, { 'content-type': 'image/png', 'content-length': bytes.length });
        res.end(bytes);
        return;
      }
      default:
        return send(res, 404, undefined);
    }
  }

  private upload(res: ServerResponse, form: FormData | undefined): void {
    const image = form?.get('image');
    if (!(image instanceof Blob) || !(image as File).name) return send(res, 400, undefined);
    const name = (image as File).name;
    const subfolder = String(form?.get('subfolder') ?? '');
    const kind = String(form?.get('type') ?? 'input');
    void image.arrayBuffer().then((buffer) => {
      this.uploads.set(subfolder ? `${subfolder}/${name}` : name, Buffer.from(buffer));
      send(res, 200, { name, subfolder, type: kind });
    });
  }

  private queuePrompt(res: ServerResponse, body: Record<string, unknown>): void {
    const prompt = body.prompt;
    if (!isRecord(prompt)) return send(res, 400, { error: 'no prompt', node_errors: [] });
    const nodeErrors: Record<string, unknown> = {};
    for (const [id, node] of Object.entries(prompt)) {
      if (
        !isRecord(node) ||
        typeof node.class_type !== 'string' ||
        !KNOWN.has(node.class_type) ||
        this.missingNodes.has(node.class_type)
      ) {
        const type = isRecord(node) ? String(node.class_type) : '?';
        return send(res, 400, {
          error: {
            type: 'invalid_prompt',
            message: `Cannot execute because node ${type} does not exist.`,
            details: `Node ID '#${id}'`,
            extra_info: {},
          },
          node_errors: {},
        });
      }
      const inputs = isRecord(node.inputs) ? node.inputs : {};
      if (
        (node.class_type === 'LoadImage' || node.class_type === 'LoadImageMask') &&
        !this.uploads.has(String(inputs.image))
      ) {
        nodeErrors[id] = {
          errors: [
            {
              type: 'custom_validation_failed',
              message: 'Custom validation failed for node',
              details: `image - Invalid image file: ${String(inputs.image)}`,
              extra_info: {},
            },
          ],
          dependent_outputs: [],
          class_type: node.class_type,
        };
      }
    }
    if (Object.keys(nodeErrors).length > 0) {
      return send(res, 400, {
        error: {
          type: 'prompt_outputs_failed_validation',
          message: 'Prompt outputs failed validation',
          details: '',
          extra_info: {},
        },
        node_errors: nodeErrors,
      });
    }
    const job: Job = {
      id: randomUUID(),
      number: this.counter++,
      clientId: typeof body.client_id === 'string' ? body.client_id : undefined,
      prompt: prompt as Job['prompt'],
      timers: [],
      hang: this.hang,
    };
    const answer = { prompt_id: job.id, number: job.number, node_errors: {} };
    if (this.queueLatencyMs > 0) {
      setTimeout(() => send(res, 200, answer), this.queueLatencyMs).unref();
    } else {
      send(res, 200, answer);
    }
    this.pending.push(job);
    this.pump();
  }

  /** Starts the next waiting prompt when nothing runs. */
  private pump(): void {
    if (this.current) return;
    const next = this.pending.shift();
    if (next) this.execute(next);
  }

  private execute(job: Job): void {
    this.current = job;
    const emit = (type: string, data: Record<string, unknown>) => {
      const ws = job.clientId ? this.sockets.get(job.clientId) : undefined;
      ws?.send(JSON.stringify({ type, data }));
    };
    const messages: unknown[] = [];
    const record = (type: string, data: Record<string, unknown>) => {
      messages.push([type, data]);
      emit(type, data);
    };
    const end = (status: 'success' | 'error', outputs: Record<string, unknown>) => {
      job.timers.forEach(clearTimeout);
      if (this.current !== job) return; // the server restarted meanwhile
      const entry = {
        prompt: [job.number, job.id, job.prompt, {}, Object.keys(outputs)],
        outputs,
        status: { status_str: status, completed: status === 'success', messages },
        meta: {},
      };
      // main.py prompt_worker: execute() (its last message execution_success), then task_done()
      // writes the history, then `executing` with node null.
      const done = () => {
        if (this.current !== job) return;
        this.history.set(job.id, entry);
        if (status === 'success') emit('executing', { node: null, prompt_id: job.id });
        this.current = undefined;
        this.pump();
      };
      if (this.historyDelayMs > 0 && status === 'success') {
        setTimeout(done, this.historyDelayMs).unref();
      } else {
        done();
      }
    };
    record('execution_start', { prompt_id: job.id, timestamp: Date.now() });
    const failure = this.failExecution;
    this.failExecution = undefined;
    const sampler =
      Object.keys(job.prompt).find((id) => job.prompt[id].class_type === 'KSampler') ??
      Object.keys(job.prompt)[0];
    job.finish = () => {
      record('execution_interrupted', {
        prompt_id: job.id,
        node_id: sampler,
        node_type: job.prompt[sampler].class_type,
        executed: [],
      });
      end('error', {});
    };
    if (job.hang) return;
    const step = this.delayMs / Math.max(1, this.steps);
    for (let i = 1; i <= this.steps; i++) {
      job.timers.push(
        setTimeout(
          () => {
            if (i === 1) emit('executing', { node: sampler, display_node: sampler, prompt_id: job.id });
            emit('progress', { value: i, max: this.steps, prompt_id: job.id, node: sampler });
          },
          step * (i - 0.5),
        ),
      );
    }
    job.timers.push(
      setTimeout(() => {
        if (failure) {
          const node = job.prompt[failure.nodeId];
          record('execution_error', {
            prompt_id: job.id,
            node_id: failure.nodeId,
            node_type: node?.class_type ?? 'unknown',
            executed: [],
            exception_message: failure.message,
            exception_type: 'torch.OutOfMemoryError',
            traceback: ['Traceback (most recent call last):', '...'],
            current_inputs: {},
            current_outputs: {},
          });
          end('error', {});
          return;
        }
        void this.render(job).then(
          (outputs) => {
            for (const [node, output] of Object.entries(outputs)) {
              emit('executed', { node, display_node: node, output, prompt_id: job.id });
            }
            if (this.current !== job) return;
            record('execution_success', { prompt_id: job.id, timestamp: Date.now() });
            end('success', outputs);
          },
          (error: unknown) => {
            record('execution_error', {
              prompt_id: job.id,
              node_id: sampler,
              node_type: 'LoadImage',
              executed: [],
              exception_message: String(error),
              exception_type: 'PIL.UnidentifiedImageError',
              traceback: [],
              current_inputs: {},
              current_outputs: {},
            });
            end('error', {});
          },
        );
      }, this.delayMs),
    );
  }

  /** The images of the graph's SaveImage/PreviewImage nodes, stored for /view. */
  private async render(job: Job): Promise<Record<string, unknown>> {
    const nodes = Object.values(job.prompt);
    const find = (cls: string) => nodes.find((n) => n.class_type === cls);
    const loaded = (ref: unknown) => {
      const id = Array.isArray(ref) ? String(ref[0]) : '';
      return this.uploads.get(String(job.prompt[id]?.inputs.image)) ?? Buffer.alloc(0);
    };
    let image: Buffer;
    /** Images by the node that made them (face swap, restoration), for the save nodes fed by them. */
    const byNode = new Map<string, Buffer>();
    const latent = find('EmptyLatentImage');
    const inpaint = find('VAEEncodeForInpaint');
    const upscale = find('ImageUpscaleWithModel');
    const swap = find('ReActorFaceSwap');
    if (latent) {
      image = await gradientPng(Number(latent.inputs.width), Number(latent.inputs.height));
    } else if (inpaint) {
      image = await paintMaskPng(loaded(inpaint.inputs.pixels), loaded(inpaint.inputs.mask));
    } else if (upscale) {
      const input = loaded(upscale.inputs.image);
      const { width = 0, height = 0 } = await sharp(input).metadata();
      image = await sharp(input)
        .resize(width * 4, height * 4, { fit: 'fill' })
        .png()
        .toBuffer();
    } else if (swap) {
      const target = loaded(swap.inputs.input_image);
      image = this.noFace ? await sharp(target).png().toBuffer() : await patchFacePng(target);
      const restoresInNode = String(swap.inputs.face_restore_model ?? 'none') !== 'none';
      if (restoresInNode && (!this.noFace || this.restoreUnswapped)) image = await restoreFacePng(image);
      const swapId = Object.keys(job.prompt).find((id) => job.prompt[id] === swap)!;
      byNode.set(swapId, image);
      // ReActorRestoreFace nodes: restoration of their input, the swap's image.
      for (const [id, node] of Object.entries(job.prompt)) {
        if (node.class_type !== 'ReActorRestoreFace') continue;
        const from = Array.isArray(node.inputs.image) ? String(node.inputs.image[0]) : '';
        if (byNode.has(from)) byNode.set(id, await restoreFacePng(byNode.get(from)!));
      }
      image = byNode.get([...byNode.keys()].at(-1)!)!;
    } else {
      image = await gradientPng(64, 64);
    }
    const outputs: Record<string, unknown> = {};
    for (const [id, node] of Object.entries(job.prompt)) {
      if (node.class_type !== 'SaveImage' && node.class_type !== 'PreviewImage') continue;
      const type = node.class_type === 'SaveImage' ? 'output' : 'temp';
      const prefix = String(node.inputs.filename_prefix ?? 'ComfyUI');
      const subfolder = prefix.includes('/') ? prefix.slice(0, prefix.lastIndexOf('/')) : '';
      const filename = `${prefix.split('/').pop()}_${String(this.counter).padStart(5, '0')}_.png`;
      const from = Array.isArray(node.inputs.images) ? String(node.inputs.images[0]) : '';
      this.outputs.set(`${type}/${subfolder}/${filename}`, byNode.get(from) ?? image);
      outputs[id] = { images: [{ filename, subfolder, type }] };
    }
    return outputs;
  }

  private interrupt(res: ServerResponse, body: Record<string, unknown>): void {
    const job = this.current;
    const targeted = typeof body.prompt_id === 'string' && body.prompt_id && honoursPromptId(this.version);
    if (job && (!targeted || body.prompt_id === job.id)) {
      this.interrupted.push(job.id);
      job.finish?.('interrupted');
    }
    send(res, 200, undefined);
  }

  private queueInfo() {
    return { exec_info: { queue_remaining: this.pending.length + (this.current ? 1 : 0) } };
  }
}

export function startFakeComfyUI(options: FakeComfyUIOptions = {}): Promise<FakeComfyUIServer> {
  return FakeComfyUIServer.start(options);
}

function send(res: ServerResponse, status: number, body: unknown): void {
  if (res.headersSent || res.destroyed) return;
  // aiohttp's web.Response(status=…) has an empty text body
  const text = body === undefined ? '' : JSON.stringify(body);
  res.writeHead(status, {
    'content-type': body === undefined ? 'text/plain' : 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  res.end(text);
}

function queueItem(job: Job): unknown[] {
  return [job.number, job.id, job.prompt, { client_id: job.clientId }, []];
}

/** POST /interrupt reads `prompt_id` since ComfyUI v0.3.57 (PR #9607). */
function honoursPromptId(version: string | undefined): boolean {
  const [major = 0, minor = 0, patch = 0] = (version ?? '0').split(/[.-]/).map(Number);
  return major > 0 || minor > 3 || (minor === 3 && patch >= 57);
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
