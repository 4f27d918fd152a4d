import { Inject, Injectable } from '@nestjs/common';
import { createReadStream } from 'node:fs';
import { randomUUID } from 'node:crypto';
import { mkdir, rename, rm, stat, unlink, writeFile } from 'node:fs/promises';
import { dirname, join, resolve, sep } from 'node:path';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import {
  diskFullError,
  isValidStorageKey,
  StorageFaultError,
  StoragePort,
  type ByteRange,
  type StoredObject,
} from './storage.port';

/** Errors that say the disk failed, not the request (a full disk: diskFullError). */
const BROKEN = new Set(['EIO', 'EROFS']);

/** Content files on the local disk, under STORAGE_DIR. */
@Injectable()
export class LocalDiskStorage extends StoragePort {
  private readonly root: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super();
    this.root = resolve(config.STORAGE_DIR);
  }

  /**
   * Writes the whole object under a temporary name, then renames it into place: a reader never
   * sees half a file, and putting a key again (a job's rerun storing the same output) replaces
   * it, as an S3 put does. The folder is made only when the write finds it missing: it is there
   * for every put but a user's first, and each file call costs a thread hand-off.
   */
  async put(key: string, data: Buffer): Promise<void> {
    const path = this.pathOf(key);
    const temporary = `${path}.${randomUUID()}.part`;
    try {
      await writeFile(temporary, data, { flag: 'wx' }).catch(async (err: NodeJS.ErrnoException) => {
        if (err.code !== 'ENOENT') throw err;
        await mkdir(dirname(path), { recursive: true });
        await writeFile(temporary, data, { flag: 'wx' });
      });
      await rename(temporary, path);
    } catch (err) {
      // The half-written file goes whatever happened: a full disk must not keep its parts.
      await rm(temporary, { force: true }).catch(() => undefined);
      const full = diskFullError(err, 'storage put');
      if (full) throw full;
      const code = (err as NodeJS.ErrnoException).code ?? '';
      if (BROKEN.has(code))
        throw new StorageFaultError('unavailable', `storage disk failed (${code})`, { cause: err });
      throw err;
    }
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    const path = this.pathOf(key);
    try {
      const info = await stat(path);
      if (!range) return { stream: createReadStream(path), size: info.size };
      return { stream: createReadStream(path, range), size: range.end - range.start + 1 };
    } catch {
      return null;
    }
  }

  /** Removes the file; a key with no file is already gone. (One unlink: rm would lstat first.) */
  async delete(key: string): Promise<void> {
    await unlink(this.pathOf(key)).catch((err: NodeJS.ErrnoException) => {
      if (err.code !== 'ENOENT') throw err;
    });
  }

  async size(key: string): Promise<number | null> {
    try {
      return (await stat(this.pathOf(key))).size;
    } catch {
      return null;
    }
  }

  /** The file of a key, refusing anything that is not a key we made or that leaves the root. */
  private pathOf(key: string): string {
    if (!isValidStorageKey(key)) throw new Error(`invalid storage key: ${key}`);
    const path = resolve(join(this.root, key));
    if (!path.startsWith(this.root + sep)) throw new Error(`storage key escapes the root: ${key}`);
    return path;
  }
}
