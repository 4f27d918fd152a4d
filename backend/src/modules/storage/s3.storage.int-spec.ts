import { CreateBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { randomBytes } from 'node:crypto';
import { loadConfig } from '../../config/app-config';
import { S3Storage } from './s3.storage';
import { newStorageKey } from './storage.port';

/** The S3 adapter against an S3-compatible server (moto, started by `npm test`). */
describe('S3Storage', () => {
  const endpoint = process.env.TEST_S3_ENDPOINT;
  const bucket = `studio-${randomBytes(4).toString('hex')}`;
  let storage: S3Storage;
  const owner = '0123456789abcdef01234567';

  beforeAll(async () => {
    if (!endpoint) throw new Error('TEST_S3_ENDPOINT is not set: run the tests with `npm test`');
    const credentials = { accessKeyId: 'test', secretAccessKey: 'test' };
    const admin = new S3Client({ region: 'us-east-1', endpoint, forcePathStyle: true, credentials });
    await admin.send(new CreateBucketCommand({ Bucket: bucket }));
    admin.destroy();
    storage = new S3Storage(
      loadConfig({
        MONGODB_URI: 'mongodb://unused/x',
        REDIS_URL: 'redis://unused',
        STORAGE_DRIVER: 's3',
        S3_BUCKET: bucket,
        S3_ENDPOINT: endpoint,
        S3_FORCE_PATH_STYLE: 'true',
        S3_ACCESS_KEY_ID: 'test',
        S3_SECRET_ACCESS_KEY: 'test',
      }),
    );
  });
  afterAll(() => storage?.destroy());

  it('stores, reads, checks and deletes objects', async () => {
    const key = newStorageKey(owner, 'png');
    const data = randomBytes(2048);
    expect(await storage.exists(key)).toBe(false);
    expect(await storage.get(key)).toBeNull();
    await storage.put(key, data);
    expect(await storage.exists(key)).toBe(true);
    const object = (await storage.get(key))!;
    expect(object.size).toBe(2048);
    const chunks: Buffer[] = [];
    for await (const chunk of object.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(data)).toBe(true);
    await storage.delete(key);
    expect(await storage.exists(key)).toBe(false);
    await expect(storage.delete(key)).resolves.toBeUndefined();
  });

  it('reads a byte range and the size without the body (video seeking)', async () => {
    const key = newStorageKey(owner, 'mp4');
    const data = randomBytes(1000);
    expect(await storage.size(key)).toBeNull();
    await storage.put(key, data);
    expect(await storage.size(key)).toBe(1000);
    const part = (await storage.get(key, { start: 100, end: 199 }))!;
    expect(part.size).toBe(100);
    const chunks: Buffer[] = [];
    for await (const chunk of part.stream) chunks.push(chunk as Buffer);
    expect(Buffer.concat(chunks).equals(data.subarray(100, 200))).toBe(true);
    await storage.delete(key);
  });

  it('refuses keys it did not make', async () => {
    await expect(storage.put('../escape.png', Buffer.from('x'))).rejects.toThrow(/invalid storage key/);
    await expect(storage.get(`${owner}/../../etc/passwd`)).rejects.toThrow(/invalid storage key/);
  });
});
