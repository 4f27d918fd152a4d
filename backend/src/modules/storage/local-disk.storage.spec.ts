import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppConfig } from '../../config/app-config';
import { LocalDiskStorage } from './local-disk.storage';
import { isValidStorageKey, newStorageKey } from './storage.port';

describe('LocalDiskStorage', () => {
  let dir: string;
  let storage: LocalDiskStorage;
  const owner = '0123456789abcdef01234567';

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'storage-'));
    storage = new LocalDiskStorage({ STORAGE_DIR: dir } as AppConfig);
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  it('stores, reads and deletes under generated keys', async () => {
    const key = newStorageKey(owner, 'png');
    await storage.put(key, Buffer.from('image bytes'));
    expect(await readFile(join(dir, key), 'utf8')).toBe('image bytes');
    const object = await storage.get(key);
    expect(object?.size).toBe(11);
    const chunks: Buffer[] = [];
    for await (const chunk of object!.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).toString()).toBe('image bytes');
    await storage.delete(key);
    expect(await storage.get(key)).toBeNull();
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('puts a key again as a replacement, as S3 does (a rerun storing the same output)', async () => {
    const key = newStorageKey(owner, 'png', 'job:output:0');
    await storage.put(key, Buffer.from('first run'));
    await storage.put(key, Buffer.from('second run'));
    expect(await readFile(join(dir, key), 'utf8')).toBe('second run');
    await Promise.all([1, 2, 3].map((i) => storage.put(key, Buffer.from(`run ${i}`))));
    expect(await readFile(join(dir, key), 'utf8')).toMatch(/^run [123]$/);
    expect((await readdir(join(dir, owner))).filter((name) => name.endsWith('.part'))).toEqual([]);
  });

  it("makes the owner's folder again when it was removed since the last put", async () => {
    await storage.put(newStorageKey(owner, 'png'), Buffer.from('first'));
    await rm(join(dir, owner), { recursive: true });
    const key = newStorageKey(owner, 'png');
    await storage.put(key, Buffer.from('after removal'));
    expect(await readFile(join(dir, key), 'utf8')).toBe('after removal');
  });

  it('refuses keys it did not make, traversal above all', async () => {
    for (const key of [
      '../etc/passwd',
      '/etc/passwd',
      `${owner}/../../x.png`,
      `${owner}/a.png`,
      'http://evil/x.png',
    ]) {
      expect(isValidStorageKey(key)).toBe(false);
      await expect(storage.get(key)).rejects.toThrow(/invalid storage key/);
    }
  });
});
