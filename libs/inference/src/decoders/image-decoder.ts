import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { DECODE_LIMITS } from '@studio/contracts';
import { DecodeBudgetError } from '../decoders';

/** The child's script (plain CommonJS, the same path from src and dist). */
const CHILD_SCRIPT = path.resolve(__dirname, '..', '..', 'src', 'decoders', 'image-decoder-child.cjs');

export interface ImageDecodeRequest {
  /** An upload's temp file, or its bytes. */
  input: string | Buffer;
  /** Pixels the input may declare (sharp's limitInputPixels, a second line behind the header check). */
  maxPixels: number;
  /** Fit within this side (never enlarged)... */
  maxSide?: number;
  /** ...or fill exactly this size (a mask brought to its image's size). */
  fill?: { width: number; height: number };
}

export interface DecodedImage {
  /** PNG */
  data: Buffer;
  width: number;
  height: number;
}

/** The file could not be decoded (corrupt, truncated, not an image): the sender's fault. */
export class UnreadableImageError extends Error {
  override readonly name = 'UnreadableImageError';
}

export interface ImageDecoderOptions {
  /** Address space of the process, MB (DECODER_MEMORY_MB; Node and libvips map about 1 GB idle). */
  memoryMb?: number;
  /** Images decoded at once (each on one libvips thread). */
  concurrency?: number;
}

interface Queued {
  id: number;
  request: ImageDecodeRequest;
  resolve: (image: DecodedImage) => void;
  reject: (err: Error) => void;
}

type Answer =
  | { ready: true }
  | { id: number; ok: true; data: Uint8Array; width: number; height: number }
  | { id: number; ok: false; error: string };

/**
 * Decodes untrusted images in a child process with a memory ceiling (`ulimit -v`), a few at a
 * time, so a decompression bomb that passed the header checks costs that process, not the API's
 * memory or its event loop. A process that dies (its ceiling reached) fails the decodes it held as
 * over budget and is started again for the next ones. Idle, it holds no reference on the event
 * loop; it ends when its parent does.
 */
export class ImageDecoder {
  private child?: ChildProcess;
  private readonly queue: Queued[] = [];
  private readonly running = new Map<number, Queued>();
  private nextId = 1;

  constructor(private readonly options: ImageDecoderOptions = {}) {}

  decode(request: ImageDecodeRequest): Promise<DecodedImage> {
    return new Promise<DecodedImage>((resolve, reject) => {
      this.queue.push({ id: this.nextId++, request, resolve, reject });
      this.pump();
    });
  }

  /** Ends the process; decodes still queued or running fail. */
  close(): void {
    const child = this.child;
    this.child = undefined;
    this.failAll(new Error('image decoder closed'), true);
    child?.kill();
  }

  private get concurrency(): number {
    return this.options.concurrency ?? DECODE_LIMITS.imageDecoderConcurrency;
  }

  private pump(): void {
    while (this.queue.length > 0 && this.running.size < this.concurrency) {
      const child = this.child ?? this.start();
      const next = this.queue.shift()!;
      this.running.set(next.id, next);
      child.send({ id: next.id, ...next.request });
    }
    this.holdEventLoop(this.running.size > 0);
  }

  private start(): ChildProcess {
    const memoryMb =
      this.options.memoryMb ?? (Number(process.env.DECODER_MEMORY_MB) || DECODE_LIMITS.ffmpegMemoryMb);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      // few malloc arenas and threads: the address space then goes to pixels, not reservations
      MALLOC_ARENA_MAX: '2',
      UV_THREADPOOL_SIZE: String(this.concurrency),
      VIPS_CONCURRENCY: '1',
    };
    delete env.NODE_OPTIONS; // the app's preloads (ts-node) have no business here
    const child = spawn(
      '/bin/sh',
      [
        '-c',
        'ulimit -v "$1" || exit 70; exec "$0" "$2"',
        process.execPath,
        String(memoryMb * 1024),
        CHILD_SCRIPT,
      ],
      { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], serialization: 'advanced', env },
    );
    this.child = child;
    child.on('message', (answer: Answer) => {
      if ('ready' in answer) return;
      const waiting = this.running.get(answer.id);
      if (!waiting) return;
      this.running.delete(answer.id);
      if (answer.ok) {
        const data = Buffer.from(answer.data.buffer, answer.data.byteOffset, answer.data.byteLength);
        waiting.resolve({ data, width: answer.width, height: answer.height });
      } else {
        waiting.reject(new UnreadableImageError(answer.error));
      }
      this.pump();
    });
    const ended = (why: string) => {
      if (this.child !== child) return;
      this.child = undefined;
      // what it held made it die (or hit its ceiling): over budget; the queue goes to a new process
      for (const [id, waiting] of this.running) {
        this.running.delete(id);
        waiting.reject(new DecodeBudgetError(`image decoder ended (${why}): over its memory budget`));
      }
      this.pump();
    };
    child.on('exit', (code, signal) => ended(String(signal ?? code)));
    child.on('error', (err) => {
      ended(err.message);
      this.failAll(err, false);
    });
    return child;
  }

  private failAll(err: Error, running: boolean): void {
    const victims = [...this.queue.splice(0), ...(running ? [...this.running.values()] : [])];
    if (running) this.running.clear();
    for (const waiting of victims) waiting.reject(err);
  }

  private holdEventLoop(busy: boolean): void {
    const child = this.child;
    if (!child) return;
    const channel = child.channel as { ref(): void; unref(): void } | undefined;
    if (busy) {
      child.ref();
      channel?.ref();
    } else {
      child.unref();
      channel?.unref();
    }
  }
}
