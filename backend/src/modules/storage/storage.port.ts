import type { Readable } from 'node:stream';

export interface StoredObject {
  stream: Readable;
  size: number;
}

/**
 * Where content files live. Keys are made by the server (never taken from a client); the local
 * disk adapter is the default, an S3-API adapter follows the same contract.
 */
export abstract class StoragePort {
  abstract put(key: string, data: Buffer): Promise<void>;
  /** Null when there is no such object. */
  abstract get(key: string): Promise<StoredObject | null>;
  /** Removing a missing object is not an error. */
  abstract delete(key: string): Promise<void>;
  abstract exists(key: string): Promise<boolean>;
}

/** A fresh storage key: `<owner>/<random>.<ext>`, with an extension from a fixed list. */
export function newStorageKey(ownerId: string, extension: 'png' | 'jpg' | 'webp' | 'mp4'): string {
  const random = globalThis.crypto.randomUUID();
  return `${ownerId}/${random}.${extension}`;
}

const KEY_PATTERN = /^[a-f0-9]{24}\/[a-f0-9-]{36}\.(png|jpg|webp|mp4)$/;

/** Only keys this server makes are accepted (no `..`, no absolute paths, no other names). */
export function isValidStorageKey(key: string): boolean {
  return KEY_PATTERN.test(key);
}
