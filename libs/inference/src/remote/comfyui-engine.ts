import { randomInt, randomUUID } from 'node:crypto';
import WebSocket from 'ws';
import {
  Capability,
  CapabilityUnavailableError,
  CloneRequest,
  EncodedImage,
  EngineInputError,
  EngineStatus,
  FaceSwapRequest,
  FaceSwapVideoRequest,
  GenerateRequest,
  InferenceEngine,
  InpaintRequest,
  RunContext,
  SuperResolveRequest,
} from '../engine.port';
import { EngineLogger, silentLogger } from '../logger';
import { errorDetail, isRecord } from './a1111-client';
import {
  COMFYUI_TOOLS,
  ComfyTool,
  ComfyWorkflow,
  DEFAULT_WORKFLOW_DIR,
  LoadedWorkflow,
} from './comfyui-workflow';
import {
  checkGenerateSize,
  FINISH_AS,
  prepareImage,
  prepareMask,
  roundTo8,
  upscaleFactor,
  refuseUnchanged,
} from './remote-images';
import {
  finishRemoteFaceSwap,
  finishRemoteImage,
  parseJson,
  RemoteAnswer,
  RemoteEngineError,
  RemoteHttp,
  sleep,
  statusError,
  untilAborted,
  failedReadiness,
} from './remote-http';

const ENGINE = 'ComfyUI';

export interface ComfyUIEngineOptions {
  /** e.g. http://gpu-box:8188 */
  baseUrl: string;
  /** Sent as `Authorization: Bearer <token>`, or raw in `authHeader` when that is set. */
  token?: string;
  /** Another header for the token (a proxy's `X-API-Key`, for example). */
  authHeader?: string;
  /** Folder of the workflow files (`<tool>.json`). Default: the studio's own. */
  workflowDir?: string;
  /** Which tools to offer. Default: all four. */
  capabilities?: readonly ComfyTool[];
  /** Per HTTP request (upload, prompt, history, image), ms. Default 30000. */
  requestTimeoutMs?: number;
  /** A whole job, from queueing to the last result, ms. Default 600000. */
  jobTimeoutMs?: number;
  /** How often /history is polled without the websocket, ms (and every 2× that with it). Default 1000. */
  pollIntervalMs?: number;
  /** Use the /ws socket for progress and completion. Default true. */
  websocket?: boolean;
  /** Inputs larger than this per side are scaled down before upload. Default 2048. */
  maxInputSide?: number;
  logger?: EngineLogger;
}

/** How a finished prompt ended, from the socket or from /history. */
type Outcome = { ok: true } | { ok: false; error: Error };

/**
 * The InferenceEngine on a ComfyUI server: each tool is an API-format workflow (see
 * comfyui-workflow.ts) with its inputs filled, images uploaded through /upload/image, queued with
 * POST /prompt, followed on the /ws socket (progress, executing, execution_error,
 * execution_interrupted) with /history/{id} polling as the fallback, and its images read from /view.
 */
export class ComfyUIEngine implements InferenceEngine {
  readonly name = 'comfyui';
  readonly capabilities: ReadonlySet<Capability>;
  private readonly http: RemoteHttp;
  private readonly workflows = new Map<ComfyTool, LoadedWorkflow>();
  private readonly logger: EngineLogger;
  private readonly jobTimeoutMs: number;
  private readonly pollIntervalMs: number;
  private readonly maxInputSide: number;
  /** Aborted by close(): runs in flight stop waiting (their polling would go on to the deadline). */
  private readonly closing = new AbortController();
  /** Whether the server's /interrupt reads a prompt_id (asked once per engine, see stopPrompt). */
  private targetedInterrupt?: Promise<{ honoured: boolean; version: string }>;

  constructor(private readonly options: ComfyUIEngineOptions) {
    const headers: Record<string, string> = {};
    if (options.token) {
      if (options.authHeader) headers[options.authHeader.toLowerCase()] = options.token;
      else headers.authorization = `Bearer ${options.token}`;
    }
    this.http = new RemoteHttp({
      engine: ENGINE,
      baseUrl: options.baseUrl,
      headers,
      timeoutMs: options.requestTimeoutMs ?? 30_000,
    });
    const tools = options.capabilities ?? COMFYUI_TOOLS;
    // Read now: a broken workflow file stops the process at boot, not a paid job later.
    for (const tool of tools) {
      this.workflows.set(tool, LoadedWorkflow.load(options.workflowDir ?? DEFAULT_WORKFLOW_DIR, tool));
    }
    this.capabilities = new Set<Capability>(tools);
    this.logger = options.logger ?? silentLogger;
    this.jobTimeoutMs = options.jobTimeoutMs ?? 600_000;
    this.pollIntervalMs = options.pollIntervalMs ?? 1000;
    this.maxInputSide = options.maxInputSide ?? 2048;
  }

  get url(): string {
    return this.http.url;
  }

  /**
   * GET /system_stats (answers, credentials, GPU name, free VRAM), GET /queue (every client's
   * prompts), and GET /object_info/{class} for each node class of the workflows: a node not
   * installed, or a model file (a combo input's value) the server does not list, is missing.
   * Never rejects.
   */
  async status(): Promise<EngineStatus> {
    try {
      const stats = await this.getJson('/system_stats', { timeoutMs: 5000 });
      const device = isRecord(stats) && Array.isArray(stats.devices) ? stats.devices[0] : undefined;
      const gpu = isRecord(device)
        ? {
            name: String(device.name ?? 'unknown device'),
            vramFreeBytes: Number(device.vram_free ?? 0),
            vramTotalBytes: Number(device.vram_total ?? 0),
          }
        : undefined;
      const queue = await this.getJson('/queue', { timeoutMs: 5000 }).then(
        (q) =>
          isRecord(q) && Array.isArray(q.queue_running) && Array.isArray(q.queue_pending)
            ? { running: q.queue_running.length, pending: q.queue_pending.length }
            : undefined,
        () => undefined,
      );
      const missing = await this.missingOnServer();
      const detail = gpu
        ? `${gpu.name}, ${gib(gpu.vramFreeBytes)} of ${gib(gpu.vramTotalBytes)} VRAM free`
        : 'answers (no device reported)';
      return {
        reachable: true,
        readiness: missing.length > 0 ? 'models_missing' : 'ready',
        ...(missing.length > 0 && { missing }),
        detail,
        gpu,
        queue,
      };
    } catch (error) {
      return {
        reachable: false,
        readiness: failedReadiness(error),
        detail: `ComfyUI at ${this.url} does not answer: ${(error as Error).message}`,
      };
    }
  }

  /** The workflows' node classes and model files the server does not have (/object_info/{class}). */
  private async missingOnServer(): Promise<{ capability: Capability; what: string }[]> {
    const infos = new Map<string, Promise<Record<string, unknown> | undefined>>();
    const info = (cls: string) => {
      if (!infos.has(cls)) {
        infos.set(
          cls,
          this.getJson(`/object_info/${encodeURIComponent(cls)}`, { timeoutMs: 5000 }).then(
            (answer) => (isRecord(answer) && isRecord(answer[cls]) ? answer[cls] : undefined),
            (error: unknown) => {
              // A server without the route (or a proxy refusing it) cannot tell: not "missing".
              if (error instanceof EngineInputError) return {};
              throw error;
            },
          ),
        );
      }
      return infos.get(cls)!;
    };
    const missing: { capability: Capability; what: string }[] = [];
    for (const [tool, workflow] of this.workflows) {
      for (const node of workflow.nodes) {
        const spec = await info(node.class_type);
        if (!spec) {
          missing.push({ capability: tool, what: `node ${node.class_type} (not installed)` });
          continue;
        }
        if (node.class_type === 'LoadImage' || node.class_type === 'LoadImageMask') continue; // the uploads
        const input = isRecord(spec.input) ? spec.input : {};
        const inputs = {
          ...(isRecord(input.optional) ? input.optional : {}),
          ...(isRecord(input.required) ? input.required : {}),
        };
        for (const [name, value] of Object.entries(node.inputs)) {
          const options = comboOptions(inputs[name]);
          if (typeof value === 'string' && options && !options.includes(value)) {
            missing.push({ capability: tool, what: `${node.class_type} ${name} ${value}` });
          }
        }
      }
    }
    return missing;
  }

  async warmup(): Promise<void> {
    const status = await this.status();
    if (!status.reachable) throw new RemoteEngineError('network', status.detail);
    this.logger.log(`ComfyUI ${this.url}: ${status.detail}`);
  }

  async generate(request: GenerateRequest, context: RunContext = {}): Promise<EncodedImage> {
    const workflow = this.workflow('generate');
    const { width, height } = request;
    checkGenerateSize(width, height);
    const graph = workflow.fill({
      prompt: request.prompt,
      seed: randomSeed(),
      size: { width: roundTo8(width), height: roundTo8(height) },
    });
    const { output: bytes } = await this.run(workflow, graph, context);
    return this.done(await finishRemoteImage(ENGINE, bytes, FINISH_AS.generated(width, height)), context);
  }

  async inpaint(request: InpaintRequest, context: RunContext = {}): Promise<EncodedImage> {
    const workflow = this.workflow('inpaint');
    const image = await prepareImage(request.image, this.maxInputSide);
    const mask = await prepareMask(request.mask, image.width, image.height);
    const [imageName, maskName] = await Promise.all([
      this.upload(Buffer.from(image.base64, 'base64'), context.signal),
      this.upload(Buffer.from(mask.base64, 'base64'), context.signal),
    ]);
    const graph = workflow.fill({
      prompt: request.prompt,
      seed: randomSeed(),
      image: imageName,
      mask: maskName,
    });
    const { output: bytes } = await this.run(workflow, graph, context);
    return this.done(await finishRemoteImage(ENGINE, bytes, FINISH_AS.inpainted(image)), context);
  }

  async superResolve(request: SuperResolveRequest, context: RunContext = {}): Promise<EncodedImage> {
    const workflow = this.workflow('superResolve');
    const scale = upscaleFactor(request.scale);
    const image = await prepareImage(request.image, this.maxInputSide);
    const name = await this.upload(Buffer.from(image.base64, 'base64'), context.signal);
    const { output: bytes } = await this.run(workflow, workflow.fill({ image: name }), context);
    return this.done(await finishRemoteImage(ENGINE, bytes, FINISH_AS.upscaled(image, scale)), context);
  }

  async faceSwap(request: FaceSwapRequest, context: RunContext = {}): Promise<EncodedImage> {
    const workflow = this.workflow('faceSwap');
    const [face, target] = await Promise.all([
      prepareImage(request.face, this.maxInputSide),
      prepareImage(request.target, this.maxInputSide),
    ]);
    const [faceName, targetName] = await Promise.all([
      this.upload(Buffer.from(face.base64, 'base64'), context.signal),
      this.upload(Buffer.from(target.base64, 'base64'), context.signal),
    ]);
    const { output, swapped } = await this.run(
      workflow,
      workflow.fill({ image: targetName, face: faceName }),
      context,
      workflow.nodesMarked('swapped'),
    );
    if (!swapped) {
      // A workflow without studio:swapped: only the result to compare (see the README).
      return this.done(await finishRemoteFaceSwap(ENGINE, output, target.base64), context);
    }
    // The swap before restoration decides: restoration alone changes an unswapped face.
    await refuseUnchanged(swapped, target.base64);
    return this.done(await finishRemoteImage(ENGINE, output, FINISH_AS.faceSwapped), context);
  }

  async clone(_request: CloneRequest, _context?: RunContext): Promise<EncodedImage[]> {
    throw new CapabilityUnavailableError('clone');
  }

  async faceSwapVideo(_request: FaceSwapVideoRequest, _context?: RunContext): Promise<void> {
    throw new CapabilityUnavailableError('faceSwapVideo');
  }

  async close(): Promise<void> {
    this.closing.abort();
    this.http.close();
  }

  private workflow(tool: ComfyTool): LoadedWorkflow {
    const workflow = this.workflows.get(tool);
    if (!workflow) throw new CapabilityUnavailableError(tool);
    return workflow;
  }

  /** POST /upload/image (multipart, type input); the name a LoadImage node takes. */
  private async upload(png: Buffer, signal?: AbortSignal): Promise<string> {
    const form = new FormData();
    form.append('image', new Blob([png], { type: 'image/png' }), `studio-${randomUUID()}.png`);
    form.append('type', 'input');
    form.append('overwrite', 'true');
    const answer = await this.http.send('POST', '/upload/image', { form, signal });
    const body = this.expectOk(answer, 'POST /upload/image');
    if (!isRecord(body) || typeof body.name !== 'string' || !body.name) {
      throw new RemoteEngineError('protocol', 'ComfyUI /upload/image answered without a file name');
    }
    const subfolder = typeof body.subfolder === 'string' ? body.subfolder : '';
    return subfolder ? `${subfolder}/${body.name}` : body.name;
  }

  /**
   * Queues the workflow and waits for it: progress and the end from the socket when it connects,
   * /history polling always (slower with the socket) so a lost socket never hangs the job. Returns
   * the bytes of the first image of the output node.
   */
  private async run(
    workflow: LoadedWorkflow,
    graph: ComfyWorkflow,
    context: RunContext,
    swappedNodes: string[] = [],
  ): Promise<{ output: Buffer; swapped?: Buffer }> {
    const { signal } = context;
    signal?.throwIfAborted();
    const clientId = randomUUID();
    const started = Date.now();
    const socket = this.options.websocket === false ? undefined : await this.openSocket(clientId);
    let promptId: string | undefined;
    const stop = new AbortController();
    let onClose: (() => void) | undefined;
    try {
      // The request itself is not aborted: once ComfyUI has the prompt it runs, and only the
      // prompt_id in the answer lets a cancelled job stop it. A cancel meanwhile rejects at once
      // and stops the prompt when the answer names it.
      const queueing = this.queuePrompt(workflow, graph, clientId);
      try {
        promptId = await untilAborted(queueing, signal);
      } catch (error) {
        if (signal?.aborted) {
          queueing.then(
            (id) => this.abandon(id),
            () => undefined,
          );
        }
        throw error;
      }
      const id = promptId;

      const ended = new Promise<Outcome>((resolve) => {
        onClose = () =>
          resolve({ ok: false, error: new RemoteEngineError('network', 'The ComfyUI engine is closed') });
        if (this.closing.signal.aborted) return onClose();
        this.closing.signal.addEventListener('abort', onClose, { once: true });
        socket?.follow(id, context.onProgress, resolve);
        void this.pollHistory(
          id,
          socket ? this.pollIntervalMs * 2 : this.pollIntervalMs,
          stop.signal,
          resolve,
        );
      });
      const outcome = await withDeadline(ended, this.jobTimeoutMs, signal);
      if (!outcome.ok) throw outcome.error;
      const entry = await withDeadline(
        this.finishedEntry(id, stop.signal),
        Math.max(1000, started + this.jobTimeoutMs - Date.now()),
        signal,
      );
      const image = await this.resultImage(workflow, entry, signal);
      const swapped =
        swappedNodes.length > 0 ? await this.firstImage(swappedNodes, entry, signal) : undefined;
      if (swappedNodes.length > 0 && !swapped) {
        throw new EngineInputError(
          'bad_request',
          `The ComfyUI workflow for ${workflow.tool} produced no image in its "studio:swapped" node`,
        );
      }
      this.logger.log(`ComfyUI ${workflow.tool} done in ${Date.now() - started} ms`);
      return { output: image, swapped };
    } catch (error) {
      const abandoned = signal?.aborted || (error instanceof RemoteEngineError && error.kind === 'timeout');
      if (abandoned && promptId) this.abandon(promptId);
      if (!signal?.aborted)
        this.logger.warn(
          `ComfyUI ${workflow.tool} failed after ${Date.now() - started} ms: ${String(error)}`,
        );
      throw error;
    } finally {
      if (onClose) this.closing.signal.removeEventListener('abort', onClose);
      stop.abort();
      socket?.close();
    }
  }

  /** POST /prompt; the prompt_id, or why ComfyUI refused it. */
  private async queuePrompt(
    workflow: LoadedWorkflow,
    graph: ComfyWorkflow,
    clientId: string,
  ): Promise<string> {
    const queued = await this.http.send('POST', '/prompt', { json: { prompt: graph, client_id: clientId } });
    // The status first: a proxy's error page (502 HTML) is a server failure, not a garbled answer.
    if (queued.status === 400 && isJson(queued)) {
      throw promptRefused(workflow, parseJson(ENGINE, queued, 'POST /prompt'));
    }
    const answer = this.expectOk(queued, 'POST /prompt');
    if (!isRecord(answer) || typeof answer.prompt_id !== 'string') {
      throw new RemoteEngineError('protocol', 'ComfyUI /prompt answered without a prompt_id');
    }
    return answer.prompt_id;
  }

  /** Stops an abandoned prompt in the background: the job has rejected already. */
  private abandon(promptId: string): void {
    this.stopPrompt(promptId).then(
      (how) => this.logger.log(`ComfyUI prompt ${promptId} abandoned: ${how}`),
      (err: unknown) => this.logger.warn(`ComfyUI could not stop prompt ${promptId}: ${String(err)}`),
    );
  }

  /**
   * Stops this job's prompt and never another client's:
   * - POST /queue {delete: [id]} takes it out of the queue if it still waits (server.py
   *   post_queue → PromptQueue.delete_queue_item matches the pending items' prompt_id; a running
   *   prompt is not touched);
   * - then, if GET /queue shows it running, POST /interrupt {prompt_id}, which ComfyUI honours
   *   since v0.3.57 (PR #9607: it interrupts only when that prompt is the one running). Older
   *   servers ignore the body and interrupt whatever runs (issue #2566), which may already be the
   *   next client's prompt: there the prompt is left to finish, its result unread.
   * Resolves with what was done, for the log.
   */
  private async stopPrompt(promptId: string): Promise<string> {
    const options = { timeoutMs: 10_000 };
    const deleted = await this.http.send('POST', '/queue', { ...options, json: { delete: [promptId] } });
    this.expectEmptyOk(deleted, 'POST /queue');
    const queue = await this.getJson('/queue', options);
    const listed = (key: string) =>
      isRecord(queue) &&
      Array.isArray(queue[key]) &&
      queue[key].some((item) => Array.isArray(item) && item[1] === promptId);
    if (!listed('queue_running')) {
      return listed('queue_pending') ? 'still queued after the delete' : 'taken out of the queue (or done)';
    }
    const { honoured, version } = await this.interruptByPromptId();
    if (!honoured) {
      return `left running: ComfyUI ${version} ignores the prompt id of /interrupt (before 0.3.57) and would stop whatever runs`;
    }
    const interrupted = await this.http.send('POST', '/interrupt', {
      ...options,
      json: { prompt_id: promptId },
    });
    this.expectEmptyOk(interrupted, 'POST /interrupt');
    return 'interrupted';
  }

  /** ComfyUI's version from /system_stats (`system.comfyui_version`; older servers have none). */
  private interruptByPromptId(): Promise<{ honoured: boolean; version: string }> {
    this.targetedInterrupt ??= this.getJson('/system_stats', { timeoutMs: 10_000 }).then((stats) => {
      const system = isRecord(stats) && isRecord(stats.system) ? stats.system : {};
      const version = typeof system.comfyui_version === 'string' ? system.comfyui_version : 'unknown';
      return { honoured: versionAtLeast(version, [0, 3, 57]), version };
    });
    // A failed look-up is asked again next time.
    this.targetedInterrupt.catch(() => (this.targetedInterrupt = undefined));
    return this.targetedInterrupt;
  }

  /** POST /queue and /interrupt answer an empty 200 (aiohttp web.Response(status=200)). */
  private expectEmptyOk(answer: RemoteAnswer, where: string): void {
    if (answer.status >= 200 && answer.status < 300) return;
    this.expectOk(answer, where);
  }

  /**
   * Follows the prompt through /history/{id}, and notices a prompt the server lost (restarted,
   * queue cleared): neither in the history nor in GET /queue on two polls in a row (two, because
   * it may finish between the history read and the queue read).
   */
  private async pollHistory(
    promptId: string,
    intervalMs: number,
    stop: AbortSignal,
    resolve: (outcome: Outcome) => void,
  ): Promise<void> {
    let missing = 0;
    while (!stop.aborted) {
      try {
        await sleep(intervalMs, stop);
        const entry = await this.historyEntry(promptId, stop);
        const outcome = entry && historyOutcome(entry);
        if (outcome) return resolve(outcome);
        if (entry || (await this.queued(promptId, stop))) {
          missing = 0;
        } else if (++missing >= 2) {
          return resolve({
            ok: false,
            error: new RemoteEngineError(
              'server',
              `The ComfyUI server lost prompt ${promptId} (restarted or its queue cleared)`,
            ),
          });
        }
      } catch {
        // a failed poll is retried; the job's deadline ends the wait
      }
    }
  }

  /** Whether GET /queue lists the prompt, running or waiting. */
  private async queued(promptId: string, signal?: AbortSignal): Promise<boolean> {
    const queue = await this.getJson('/queue', { signal });
    return (
      isRecord(queue) &&
      [queue.queue_running, queue.queue_pending].some(
        (list) => Array.isArray(list) && list.some((item) => Array.isArray(item) && item[1] === promptId),
      )
    );
  }

  /**
   * The prompt's finished history entry. ComfyUI's prompt worker writes it (main.py: task_done
   * after execute returns) after the executor has sent `execution_success`, so it can be missing
   * for a moment after that message.
   */
  private async finishedEntry(promptId: string, signal: AbortSignal): Promise<Record<string, unknown>> {
    for (let wait = 50; ; wait = Math.min(wait * 2, this.pollIntervalMs)) {
      const entry = await this.historyEntry(promptId, signal);
      const outcome = entry && historyOutcome(entry);
      if (outcome && !outcome.ok) throw outcome.error;
      if (entry && outcome) return entry;
      await sleep(wait, signal);
    }
  }

  private async historyEntry(
    promptId: string,
    signal?: AbortSignal,
  ): Promise<Record<string, unknown> | undefined> {
    const history = await this.getJson(`/history/${encodeURIComponent(promptId)}`, { signal });
    const entry = isRecord(history) ? history[promptId] : undefined;
    return isRecord(entry) ? entry : undefined;
  }

  /** The output node's first image, read through /view. */
  private async resultImage(
    workflow: LoadedWorkflow,
    entry: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Buffer> {
    const image = await this.firstImage(workflow.outputNodes, entry, signal);
    if (image) return image;
    throw new EngineInputError(
      'bad_request',
      `The ComfyUI workflow for ${workflow.tool} produced no image in its "studio:output" node`,
    );
  }

  /** The first image of the first of `nodes` that has one in the history entry, through /view. */
  private async firstImage(
    nodes: string[],
    entry: Record<string, unknown>,
    signal?: AbortSignal,
  ): Promise<Buffer | undefined> {
    const outputs = isRecord(entry.outputs) ? entry.outputs : {};
    for (const node of nodes) {
      const output = outputs[node];
      const images = isRecord(output) && Array.isArray(output.images) ? output.images : [];
      const first = images.find((image) => isRecord(image) && typeof image.filename === 'string');
      if (!isRecord(first)) continue;
      const query = new URLSearchParams({
        filename: String(first.filename),
        subfolder: typeof first.subfolder === 'string' ? first.subfolder : '',
        type: typeof first.type === 'string' ? first.type : 'output',
      });
      const answer = await this.http.send('GET', `/view?${query}`, { signal });
      if (answer.status !== 200) {
        throw (
          statusError(ENGINE, answer.status, 'GET /view', undefined) ??
          new RemoteEngineError('protocol', `ComfyUI /view answered HTTP ${answer.status} for its own result`)
        );
      }
      return answer.body;
    }
    return undefined;
  }

  private async getJson(
    path: string,
    opts: { signal?: AbortSignal; timeoutMs?: number } = {},
  ): Promise<unknown> {
    const answer = await this.http.send('GET', path, opts);
    return this.expectOk(answer, `GET ${path.split('?')[0]}`);
  }

  private expectOk(answer: RemoteAnswer, where: string): unknown {
    if (answer.status >= 200 && answer.status < 300) return parseJson(ENGINE, answer, where);
    const detail = errorDetail(answer.body.toString('utf8'));
    throw (
      statusError(ENGINE, answer.status, where, detail, answer.headers) ??
      new EngineInputError(
        'bad_request',
        `The image server rejected the request${detail ? `: ${detail}` : ` (HTTP ${answer.status})`}`,
      )
    );
  }

  /** Connects /ws?clientId=…; undefined when it cannot (polling alone then). */
  private openSocket(clientId: string): Promise<ComfySocket | undefined> {
    const url = `${this.url.replace(/^http/, 'ws')}/ws?clientId=${encodeURIComponent(clientId)}`;
    return new Promise((resolve) => {
      const ws = new WebSocket(url, { headers: this.http.headers, handshakeTimeout: 5000 });
      const fail = (error: unknown) => {
        this.logger.warn(`ComfyUI websocket unavailable, polling /history instead: ${String(error)}`);
        ws.removeAllListeners();
        ws.on('error', () => undefined);
        ws.terminate();
        resolve(undefined);
      };
      ws.once('open', () => {
        ws.off('error', fail);
        ws.on('error', () => undefined); // a later drop leaves the polling in charge
        resolve(new ComfySocket(ws));
      });
      ws.once('error', fail);
      ws.once('unexpected-response', (_req, res) => fail(new Error(`HTTP ${res.statusCode}`)));
    });
  }

  private done(image: EncodedImage, context: RunContext): EncodedImage {
    context.onProgress?.(1);
    return image;
  }
}

/** One job's view of the ComfyUI socket: its progress and its end. */
class ComfySocket {
  private promptId?: string;
  private onProgress?: (fraction: number) => void;
  private resolve?: (outcome: Outcome) => void;
  private best = 0;
  /** Messages that came before the prompt id was known (a fast server). */
  private early: { type: string; data: Record<string, unknown> }[] = [];

  constructor(private readonly ws: WebSocket) {
    ws.on('message', (raw, binary) => {
      if (binary) return; // preview images
      let message: unknown;
      try {
        message = JSON.parse(String(raw));
      } catch {
        return;
      }
      if (!isRecord(message) || typeof message.type !== 'string' || !isRecord(message.data)) return;
      if (this.promptId === undefined) this.early.push({ type: message.type, data: message.data });
      else this.handle(message.type, message.data);
    });
  }

  follow(
    promptId: string,
    onProgress: ((f: number) => void) | undefined,
    resolve: (o: Outcome) => void,
  ): void {
    this.promptId = promptId;
    this.onProgress = onProgress;
    this.resolve = resolve;
    for (const { type, data } of this.early.splice(0)) this.handle(type, data);
  }

  close(): void {
    this.ws.removeAllListeners('message');
    this.ws.close();
  }

  private handle(type: string, data: Record<string, unknown>): void {
    if (data.prompt_id !== undefined && data.prompt_id !== this.promptId) return;
    switch (type) {
      case 'progress': {
        const value = Number(data.value);
        const max = Number(data.max);
        if (max > 0 && Number.isFinite(value)) {
          const fraction = Math.min(0.99, Math.max(0, value / max));
          if (fraction > this.best) {
            this.best = fraction;
            this.onProgress?.(fraction);
          }
        }
        return;
      }
      case 'executing':
        // `node: null` for this prompt: it has finished.
        if (data.node === null && data.prompt_id === this.promptId) this.resolve?.({ ok: true });
        return;
      case 'execution_success':
        this.resolve?.({ ok: true });
        return;
      case 'execution_error':
        this.resolve?.({ ok: false, error: executionError(data) });
        return;
      case 'execution_interrupted':
        this.resolve?.({ ok: false, error: interrupted(data) });
        return;
    }
  }
}

/** A finished history entry's outcome, or undefined while it runs. */
function historyOutcome(entry: Record<string, unknown>): Outcome | undefined {
  const status = isRecord(entry.status) ? entry.status : undefined;
  const messages = status && Array.isArray(status.messages) ? status.messages : [];
  for (const message of messages) {
    if (!Array.isArray(message) || !isRecord(message[1])) continue;
    if (message[0] === 'execution_error') return { ok: false, error: executionError(message[1]) };
    if (message[0] === 'execution_interrupted') return { ok: false, error: interrupted(message[1]) };
  }
  if (status?.status_str === 'error') {
    return { ok: false, error: new EngineInputError('bad_request', 'The ComfyUI workflow failed') };
  }
  if (status ? status.completed === true : isRecord(entry.outputs)) return { ok: true };
  return undefined;
}

/** A node raised an error while running: the workflow or its inputs cannot work, a clear failure. */
function executionError(data: Record<string, unknown>): EngineInputError {
  const node = data.node_id !== undefined ? ` in node ${String(data.node_id)}` : '';
  const type = typeof data.node_type === 'string' ? ` (${data.node_type})` : '';
  const what = [data.exception_type, data.exception_message]
    .filter((x) => typeof x === 'string' && x)
    .join(': ');
  return new EngineInputError(
    'bad_request',
    clip(`The ComfyUI workflow failed${node}${type}${what ? `: ${what}` : ''}`),
  );
}

/** Someone interrupted the prompt (not this job's cancellation): worth another try. */
function interrupted(data: Record<string, unknown>): RemoteEngineError {
  const node = data.node_id !== undefined ? ` at node ${String(data.node_id)}` : '';
  return new RemoteEngineError('server', `The ComfyUI job was interrupted${node}`);
}

/** POST /prompt answered 400: the workflow does not validate on that server. */
/** A combo input's choices in /object_info: [[…choices], {…}] or, newer, ['COMBO', {options: […]}]. */
function comboOptions(spec: unknown): unknown[] | undefined {
  if (!Array.isArray(spec)) return undefined;
  if (Array.isArray(spec[0])) return spec[0] as unknown[];
  if (spec[0] === 'COMBO' && isRecord(spec[1]) && Array.isArray(spec[1].options)) return spec[1].options;
  return undefined;
}

function isJson(answer: RemoteAnswer): boolean {
  try {
    JSON.parse(answer.body.toString('utf8'));
    return true;
  } catch {
    return false;
  }
}

function promptRefused(workflow: LoadedWorkflow, answer: unknown): EngineInputError {
  const parts: string[] = [];
  const body = isRecord(answer) ? answer : {};
  const error = body.error;
  if (isRecord(error)) {
    parts.push([error.message, error.details].filter((x) => typeof x === 'string' && x).join(': '));
  } else if (typeof error === 'string') {
    parts.push(error);
  }
  if (isRecord(body.node_errors)) {
    for (const [id, nodeError] of Object.entries(body.node_errors)) {
      if (!isRecord(nodeError)) continue;
      const errors = Array.isArray(nodeError.errors) ? nodeError.errors.filter(isRecord) : [];
      const text = errors
        .map((e) => [e.message, e.details].filter((x) => typeof x === 'string' && x).join(': '))
        .join('; ');
      parts.push(
        `node ${id}${typeof nodeError.class_type === 'string' ? ` (${nodeError.class_type})` : ''}: ${text}`,
      );
    }
  }
  const detail = parts.filter(Boolean).join('; ');
  return new EngineInputError(
    'bad_request',
    clip(`ComfyUI refused the ${workflow.tool} workflow${detail ? `: ${detail}` : ''}`),
  );
}

/**
 * Rejects with a timeout after `ms`, or with the signal's reason on cancellation. Whichever comes
 * first clears the others: the wait a cancelled job abandons never settles, and its timer must
 * not outlive it.
 */
function withDeadline<T>(work: Promise<T>, ms: number, signal?: AbortSignal): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const settle = () => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', abort);
    };
    const timer = setTimeout(() => {
      settle();
      reject(new RemoteEngineError('timeout', `The ComfyUI job did not finish within ${ms} ms`));
    }, ms);
    const abort = () => {
      settle();
      reject(signal?.reason);
    };
    if (signal?.aborted) return abort();
    signal?.addEventListener('abort', abort, { once: true });
    work.then(
      (value) => {
        settle();
        resolve(value);
      },
      (error: unknown) => {
        settle();
        reject(error);
      },
    );
  });
}

/** `0.3.60`, `v0.3.60`, `0.3.60-dev+abc` ≥ `min`; anything unreadable is not. */
export function versionAtLeast(version: string, min: readonly number[]): boolean {
  const match = /^v?(\d+)\.(\d+)\.(\d+)/.exec(version.trim());
  if (!match) return false;
  const parts = match.slice(1, 4).map(Number);
  for (let i = 0; i < 3; i++) {
    if (parts[i] !== min[i]) return parts[i] > min[i];
  }
  return true;
}

function randomSeed(): number {
  return randomInt(0, 2 ** 48 - 1);
}

function gib(bytes: number): string {
  return `${(bytes / 1024 ** 3).toFixed(1)} GiB`;
}

function clip(text: string, max = 300): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}
