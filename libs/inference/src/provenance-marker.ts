import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { createHash, randomUUID } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createInterface } from 'node:readline';
import { DECODE_LIMITS } from '@studio/contracts';
import { DecodeBudgetError } from './decoders';
import { AI_GENERATED_MARK, IPTC_TRAINED_ALGORITHMIC_MEDIA, IPTC_COMPOSITE_WITH_AI } from './provenance';

/** The child process's script (libs/inference/src/watermark; the same path from src and dist). */
export const PROVENANCE_SCRIPT = path.resolve(__dirname, '..', 'src', 'watermark', 'provenance_worker.py');

export type OutputFormat = 'png' | 'jpeg' | 'webp' | 'mp4';

export interface ProvenanceOptions {
  python: string;
  certChain: string;
  privateKey: string;
  alg?: string;
  /** Pixels an image to mark or inspect may declare; more is refused from the header. */
  maxPixels?: number;
  /**
   * Sign as before issue 39, with c2pa-rs's defaults: a claim thumbnail (a JPEG of the output at
   * 1024 px, 0.6-1 MB) and the chain as configured, root included. The provenance bench's baseline.
   */
  c2paDefaults?: boolean;
  /**
   * Encode and sign an image as before issue 54 (PNG at zlib's default strategy, the PSNR in
   * float64, c2pa writing the file itself): the marking bench's baseline.
   */
  asBefore54?: boolean;
  /** Pixels of one video frame; more is refused from ffprobe's answer, before decoding. */
  maxFramePixels?: number;
  /** The process's memory ceiling (address space, MB; the ffmpeg it starts get their own). */
  memoryMb?: number;
}

/** An input the output was made from: only its hash and kind go into the manifest. */
export interface IngredientInput {
  data: Buffer;
  format: string;
  /** parentOf: the image edited; componentOf: a part used (a face, a mask). */
  relationship: 'parentOf' | 'componentOf';
}

export interface MarkRequest {
  data: Buffer;
  format: OutputFormat;
  /** 32-bit id carried by the watermark (maps back to the output on the server). */
  markId: number;
  /** The tool's name shown to readers (softwareAgent). */
  tool: string;
  /** created: made from a prompt or noise; edited: an input was changed (face swap, inpaint …). */
  action: 'created' | 'edited';
  /** A face swap: the IPTC composite-with-AI source type. */
  composite?: boolean;
  when: Date;
  title: string;
  ingredients?: IngredientInput[];
  generator?: { name: string; version?: string };
}

export interface MarkResult {
  data: Buffer;
  /** Marked vs unmarked luminance (the worst frame for a video). */
  psnr: number | null;
  watermarkMs: number;
  signMs: number;
  /** Size of the C2PA manifest store written into the file. */
  manifestBytes: number;
  /**
   * Where the time went, ms: in the child process (decode, embed, psnr, encode, sign; a
   * video's watermark as `video`), and here: `manifest` (its definition, the inputs hashed),
   * `files` (the temporary files written and read back),
   * `roundTrip` (the request's wall time less the child's steps and the files: the pipe, the JSON
   * and waiting for the process's turn on the CPU).
   */
  steps: Record<string, number>;
  /** The child process's steps in its CPU time, ms (what they cost without the waits for a core). */
  cpu: Record<string, number>;
}

export type ManifestState = 'none' | 'valid' | 'tampered' | 'foreign';

export interface ManifestSummary {
  state: ManifestState;
  ours?: boolean;
  validationState?: string;
  failures?: string[];
  action?: string;
  digitalSourceType?: string;
  when?: string;
  tool?: string;
  generator?: string;
  signer?: { issuer?: string; commonName?: string };
}

export interface Inspection {
  manifest: ManifestSummary;
  watermark: { found: boolean; id: number | null; sync: number };
}

interface Pending {
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

/** The C2PA manifest definition of one output (c2pa-rs ManifestDefinition as JSON). */
export function manifestFor(request: MarkRequest) {
  const ingredients = (request.ingredients ?? []).map((input, i) => {
    const sha = createHash('sha256').update(input.data).digest('hex');
    // by hash only: no file, no thumbnail, no name the user chose
    return {
      title: `input ${i + 1} sha256:${sha}`,
      format: input.format,
      relationship: input.relationship,
      instance_id: `xmp:iid:sha256-${sha}`,
    };
  });
  const parent =
    request.action === 'edited' ? ingredients.find((i) => i.relationship === 'parentOf') : undefined;
  const main = {
    action: parent ? 'c2pa.edited' : 'c2pa.created',
    digitalSourceType: request.composite ? IPTC_COMPOSITE_WITH_AI : IPTC_TRAINED_ALGORITHMIC_MEDIA,
    softwareAgent: { name: request.tool },
    when: request.when.toISOString(),
    description: `${AI_GENERATED_MARK}: ${request.tool}`,
  };
  // C2PA 2.2 (18.14.2, 18.15.3): the first action is created or opened (an edit opens its
  // parent), and each component (a face, a mask) is recorded as placed.
  const placed = ingredients
    .filter((i) => i.relationship === 'componentOf')
    .map((i) => ({ action: 'c2pa.placed', parameters: { ingredientIds: [i.instance_id] } }));
  const actions = parent
    ? [{ action: 'c2pa.opened', parameters: { ingredientIds: [parent.instance_id] } }, ...placed, main]
    : [main, ...placed];
  return {
    claim_generator_info: [request.generator ?? { name: 'AI Studio', version: '1' }],
    title: request.title,
    ingredients,
    assertions: [{ label: 'c2pa.actions.v2', data: { actions } }],
  };
}

/**
 * The provenance child process (Python: c2pa-python and the watermark, see watermark/): one
 * long-lived process per API or worker, so the CPU work of marking and reading never runs on the
 * event loop. Requests go one at a time in order; a process that dies is started again on the
 * next request, and the requests it held fail.
 */
export class ProvenanceMarker {
  private child?: ChildProcessWithoutNullStreams;
  private ready?: Promise<void>;
  private readonly pending = new Map<string, Pending>();
  private stderr = '';
  private tempDir?: Promise<string>;
  private readonly removals = new Set<Promise<void>>();

  constructor(private readonly options: ProvenanceOptions) {}

  private start(): Promise<void> {
    if (this.ready) return this.ready;
    const args = [
      PROVENANCE_SCRIPT,
      this.options.certChain,
      this.options.privateKey,
      this.options.alg ?? 'es256',
      String(this.options.maxPixels ?? 40_000_000),
      String(this.options.maxFramePixels ?? DECODE_LIMITS.videoFramePixels),
      String(this.options.memoryMb ?? DECODE_LIMITS.provenanceMemoryMb),
      ...(this.options.c2paDefaults ? ['--c2pa-defaults'] : []),
      ...(this.options.asBefore54 ? ['--as-before-54'] : []),
    ];
    const child = spawn(this.options.python, args, { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child = child;
    this.stderr = '';
    child.stderr.on('data', (chunk: Buffer) => {
      this.stderr = (this.stderr + chunk.toString()).slice(-4000);
    });
    this.ready = new Promise<void>((resolve, reject) => {
      const lines = createInterface({ input: child.stdout });
      let started = false;
      lines.on('line', (line) => {
        let message: {
          ready?: boolean;
          id?: string;
          ok?: boolean;
          result?: unknown;
          error?: string;
          overBudget?: boolean;
        };
        try {
          message = JSON.parse(line) as typeof message;
        } catch {
          // an answer that is not JSON cannot be matched to its request: end this process (its
          // pending requests fail, the next one starts a new process) rather than the caller's
          child.kill();
          return;
        }
        if (message.ready) {
          started = true;
          resolve();
          return;
        }
        const waiting = message.id ? this.pending.get(message.id) : undefined;
        if (!waiting) return;
        this.pending.delete(message.id!);
        if (message.ok) waiting.resolve(message.result);
        else if (message.overBudget) waiting.reject(new DecodeBudgetError(`provenance: ${message.error}`));
        else waiting.reject(new Error(`provenance: ${message.error}`));
      });
      const fail = (err: Error) => {
        if (this.child === child) {
          this.child = undefined;
          this.ready = undefined;
        }
        const error = new Error(`provenance process ended: ${err.message} ${this.stderr.trim()}`);
        if (!started) reject(error);
        for (const [id, waiting] of this.pending) {
          this.pending.delete(id);
          waiting.reject(error);
        }
      };
      child.on('error', fail);
      child.on('exit', (code, signal) => fail(new Error(`exit ${code ?? signal}`)));
    });
    // a failed start is reported to its caller; the next request tries again
    this.ready.catch(() => undefined);
    return this.ready;
  }

  /**
   * Starts the child process: resolves once it has signed and read back a test picture with the
   * configured certificate (the tool is installed, and the chain and key work together).
   */
  selfCheck(): Promise<void> {
    return this.start();
  }

  private async ask<T>(request: Record<string, unknown>): Promise<T> {
    await this.start();
    const id = randomUUID();
    const answer = new Promise<T>((resolve, reject) =>
      this.pending.set(id, { resolve: resolve as (value: unknown) => void, reject }),
    );
    this.child!.stdin.write(`${JSON.stringify({ ...request, id })}\n`);
    return answer;
  }

  /**
   * The folder of this marker's temporary files, made once: a folder per output (mkdtemp, then
   * rm -r) cost more round trips to libuv's threads than the transfer itself.
   */
  private folder(): Promise<string> {
    if (!this.tempDir) {
      const made = mkdtemp(path.join(tmpdir(), 'provenance-'));
      // a folder that could not be made is tried again by the next request
      made.catch(() => this.tempDir === made && (this.tempDir = undefined));
      this.tempDir = made;
    }
    return this.tempDir;
  }

  /** Watermarks and signs one output; the bytes come back marked. */
  mark(request: MarkRequest): Promise<MarkResult> {
    return this.markOnce(request, false);
  }

  private async markOnce(request: MarkRequest, folderMadeAgain: boolean): Promise<MarkResult> {
    const started = performance.now();
    const name = path.join(await this.folder(), randomUUID());
    const input = `${name}.in.${request.format}`;
    const output = `${name}.out.${request.format}`;
    try {
      try {
        await writeFile(input, request.data);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT' || folderMadeAgain) throw err;
        this.tempDir = undefined; // the folder was removed (a tmp cleaner): made again, once
        return await this.markOnce(request, true);
      }
      const written = performance.now();
      const manifest = manifestFor(request); // the inputs hashed
      const asked = performance.now();
      const result = await this.ask<Omit<MarkResult, 'data'>>({
        op: 'mark',
        input,
        output,
        format: request.format,
        markId: request.markId,
        manifest,
      });
      const answered = performance.now();
      const data = await readFile(output);
      const files = written - started + (performance.now() - answered);
      const inChild = Object.values(result.steps ?? {}).reduce((sum, ms) => sum + ms, 0);
      const roundTrip = Math.max(0, answered - asked - inChild);
      const steps = { ...result.steps, manifest: asked - written, files, roundTrip };
      return { ...result, steps, data };
    } finally {
      // removed behind the answer (close() waits for it); `.part`: a mark that failed half way
      const removal = Promise.all(
        [input, output, `${output}.part`].map((file) => rm(file, { force: true })),
      ).then(
        () => undefined,
        () => undefined,
      );
      this.removals.add(removal);
      void removal.then(() => this.removals.delete(removal));
    }
  }

  /** Reads the manifest and looks for the watermark in a file on disk. */
  inspect(file: string, kind: 'image' | 'video', mime?: string): Promise<Inspection> {
    return this.ask<Inspection>({ op: 'inspect', input: file, kind, mime });
  }

  /** The manifest alone, as c2pa reads it. */
  readManifest(file: string, mime?: string): Promise<ManifestSummary> {
    return this.ask<ManifestSummary>({ op: 'read', input: file, mime });
  }

  async close(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.ready = undefined;
    if (child) {
      const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.stdin.end();
      await exited;
    }
    await Promise.all(this.removals);
    const folder = await this.tempDir?.catch(() => undefined);
    this.tempDir = undefined;
    if (folder) await rm(folder, { recursive: true, force: true });
  }
}
