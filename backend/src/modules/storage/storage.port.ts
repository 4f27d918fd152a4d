import { ServiceUnavailableException } from '@nestjs/common';
import { createHash } from 'node:crypto';
import { JobMessages } from '@studio/contracts';
import type { Readable } from 'node:stream';

export interface StoredObject {
  stream: Readable;
  /** Bytes in `stream`: the whole object, or the range asked for. */
  size: number;
}

/** Inclusive byte offsets within an object (HTTP Range), already checked against its size. */
export interface ByteRange {
  start: number;
  end: number;
}

/**
 * The store itself failed, not the request: the disk is full ('full': ENOSPC, a quota), or the
 * store did not answer in time or answered with its own error ('unavailable': S3 5xx, a stall, a
 * refused connection, a disk I/O error). A 503 with the plain message where a request meets it (an
 * upload: nothing is charged yet); the job pipeline fails the job with the same message, refunded.
 * `detail` (and `cause`) say what the store answered, for the log.
 */
export class StorageFaultError extends ServiceUnavailableException {
  constructor(
    readonly fault: 'full' | 'unavailable',
    readonly detail: string,
    options?: { cause?: unknown },
  ) {
    super(fault === 'full' ? JobMessages.storageFull : JobMessages.storageUnavailable, {
      cause: options?.cause,
      description: detail,
    });
    this.name = 'StorageFaultError';
  }
}

/** A write to the local disk that found it full (ENOSPC, a quota): its StorageFaultError, else undefined. */
export function diskFullError(err: unknown, where: string): StorageFaultError | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  if (code !== 'ENOSPC' && code !== 'EDQUOT') return undefined;
  return new StorageFaultError('full', `${where}: disk full (${code})`, { cause: err });
}

/**
 * Where content files live. Keys are made by the server (never taken from a client); the local
 * disk adapter is the default, an S3-API adapter follows the same contract.
 */
export abstract class StoragePort {
  abstract put(key: string, data: Buffer): Promise<void>;
  /** Null when there is no such object. With `range`, only those bytes (video seeking). */
  abstract get(key: string, range?: ByteRange): Promise<StoredObject | null>;
  /** The object's size in bytes; null when there is no such object. */
  abstract size(key: string): Promise<number | null>;
  /** Removing a missing object is not an error. */
  abstract delete(key: string): Promise<void>;
  async exists(key: string): Promise<boolean> {
    return (await this.size(key)) !== null;
  }

  /**
   * The same store for work a person waits on (a submission storing its inputs, a file served to
   * the browser): a store that stalls or fails is given up on within REQUEST_STORE_WAIT_MS (plus
   * the time a put's bytes need), once, so the request answers 503 in time, instead of the jobs'
   * long timeout and tries. A store with nothing to wait for (the local disk) is its own.
   */
  forRequest(): StoragePort {
    return this;
  }

  /** The whole object in memory (engine inputs); null when missing. */
  async read(key: string): Promise<Buffer | null> {
    const object = await this.get(key);
    if (!object) return null;
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

/**
 * How long a request waits for the store to answer (connect, send, the answer's first byte) before
 * it answers 503: within the 2 s a request that needs a missing part has (issue 53), with room for
 * the work before and after it.
 */
export const REQUEST_STORE_WAIT_MS = 1_200;
/**
 * What a put may add to that wait for its bytes: the upload rate a healthy store is assumed to
 * take at least (16 MB/s, about 60 ms per MB), so a large video is not cut off while it streams.
 */
export const REQUEST_STORE_BYTES_PER_MS = 16_000;

/** The wait for one request-path call that sends `bytes`. */
export function requestStoreWaitMs(bytes = 0): number {
  return REQUEST_STORE_WAIT_MS + Math.ceil(bytes / REQUEST_STORE_BYTES_PER_MS);
}

/**
 * A storage key: `<owner>/<uuid>.<ext>`, with an extension from a fixed list. The uuid is random,
 * or derived from `seed` when the same work must land on the same key when it is repeated.
 */
export function newStorageKey(
  ownerId: string,
  extension: 'png' | 'jpg' | 'webp' | 'mp4',
  seed?: string,
): string {
  const id = seed === undefined ? globalThis.crypto.randomUUID() : uuidFromSeed(seed);
  return `${ownerId}/${id}.${extension}`;
}

function uuidFromSeed(seed: string): string {
  const hex = createHash('sha256').update(seed).digest('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`;
}

const KEY_PATTERN = /^[a-f0-9]{24}\/[a-f0-9-]{36}\.(png|jpg|webp|mp4)$/;

/** Only keys this server makes are accepted (no `..`, no absolute paths, no other names). */
export function isValidStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}
