import { Inject, Injectable } from '@nestjs/common';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NoSuchKey,
  NotFound,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import type { Readable } from 'node:stream';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { isValidStorageKey, StoragePort, type ByteRange, type StoredObject } from './storage.port';

/** Content files in an S3-API bucket (AWS S3, MinIO, R2 ...), for production and scale-out. */
@Injectable()
export class S3Storage extends StoragePort {
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(@Inject(APP_CONFIG) config: AppConfig) {
    super();
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required when STORAGE_DRIVER=s3');
    this.bucket = config.S3_BUCKET;
    this.client = new S3Client({
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      credentials:
        config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
          : undefined,
    });
  }

  async put(key: string, data: Buffer): Promise<void> {
    await this.client.send(new PutObjectCommand({ Bucket: this.bucket, Key: checked(key), Body: data }));
  }

  async get(key: string, range?: ByteRange): Promise<StoredObject | null> {
    try {
      const object = await this.client.send(
        new GetObjectCommand({
          Bucket: this.bucket,
          Key: checked(key),
          Range: range ? `bytes=${range.start}-${range.end}` : undefined,
        }),
      );
      return { stream: object.Body as Readable, size: object.ContentLength ?? 0 };
    } catch (err) {
      if (err instanceof NoSuchKey || err instanceof NotFound) return null;
      throw err;
    }
  }

  async delete(key: string): Promise<void> {
    await this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: checked(key) }));
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: checked(key) }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (err instanceof NotFound || err instanceof NoSuchKey) return null;
      throw err;
    }
  }

  destroy(): void {
    this.client.destroy();
  }
}

function checked(key: string): string {
  if (!isValidStorageKey(key)) throw new Error(`invalid storage key: ${key}`);
  return key;
}
