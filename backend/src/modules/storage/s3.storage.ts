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
import {
  isValidStorageKey,
  requestStoreWaitMs,
  StorageFaultError,
  StoragePort,
  type ByteRange,
  type StoredObject,
} from './storage.port';

/** Tries per call of the jobs (the SDK's own retry with back-off on 5xx, throttling and timeouts). */
const S3_ATTEMPTS = 3;

/** Content files in an S3-API bucket (AWS S3, MinIO, R2 ...), for production and scale-out. */
@Injectable()
export class S3Storage extends StoragePort {
  private readonly client: S3Client;
  private readonly bucket: string;
  private requestView?: S3Storage;

  /**
   * `forPeople`: the client of calls a person waits on (forRequest): one try, the answer's first
   * byte within requestStoreWaitMs; the jobs' calls get S3_TIMEOUT_MS and S3_ATTEMPTS.
   */
  constructor(
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly forPeople = false,
  ) {
    super();
    if (!config.S3_BUCKET) throw new Error('S3_BUCKET is required when STORAGE_DRIVER=s3');
    this.bucket = config.S3_BUCKET;
    const waitMs = this.waitMs();
    this.client = new S3Client({
      region: config.S3_REGION,
      endpoint: config.S3_ENDPOINT,
      forcePathStyle: config.S3_FORCE_PATH_STYLE,
      credentials:
        config.S3_ACCESS_KEY_ID && config.S3_SECRET_ACCESS_KEY
          ? { accessKeyId: config.S3_ACCESS_KEY_ID, secretAccessKey: config.S3_SECRET_ACCESS_KEY }
          : undefined,
      maxAttempts: forPeople ? 1 : S3_ATTEMPTS,
      // The SDK has no timeout by default: a bucket that takes the connection and never answers
      // would hold a job (and its reservation) forever. requestTimeout (until the answer's first
      // byte, the body sent) only warns unless throwOnRequestTimeout; socketTimeout, a silence,
      // also ends a body that stops midway.
      requestHandler: {
        connectionTimeout: Math.min(5000, waitMs),
        requestTimeout: waitMs,
        throwOnRequestTimeout: true,
        socketTimeout: config.S3_TIMEOUT_MS,
      },
    });
  }

  /** How long a call that sends `bytes` waits for the answer's first byte: never past S3_TIMEOUT_MS. */
  private waitMs(bytes = 0): number {
    const timeout = this.config.S3_TIMEOUT_MS;
    return this.forPeople ? Math.min(requestStoreWaitMs(bytes), timeout) : timeout;
  }

  override forRequest(): StoragePort {
    if (this.forPeople) return this;
    this.requestView ??= new S3Storage(this.config, true);
    return this.requestView;
  }

  async put(key: string, data: Buffer): Promise<void> {
    const command = new PutObjectCommand({ Bucket: this.bucket, Key: checked(key), Body: data });
    // A person waiting on a large put: its bytes need their time too.
    const options = this.forPeople ? { requestTimeout: this.waitMs(data.length) } : {};
    await this.client.send(command, options).catch(storeFault('put'));
  }

  /** A body that stalls or breaks off midway is the store's fault too. */
  override async read(key: string): Promise<Buffer | null> {
    return super.read(key).catch(storeFault('read'));
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
      return storeFault('get')(err);
    }
  }

  async delete(key: string): Promise<void> {
    const command = new DeleteObjectCommand({ Bucket: this.bucket, Key: checked(key) });
    await this.client.send(command).catch(storeFault('delete'));
  }

  async size(key: string): Promise<number | null> {
    try {
      const head = await this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: checked(key) }));
      return head.ContentLength ?? 0;
    } catch (err) {
      if (err instanceof NotFound || err instanceof NoSuchKey) return null;
      return storeFault('size')(err);
    }
  }

  destroy(): void {
    this.client.destroy();
    this.requestView?.destroy();
  }
}

/**
 * The store's own failures (5xx after the SDK's tries, a timeout, a refused or broken connection)
 * become StorageFaultError('unavailable'); the request's (4xx, a bad key) are thrown as they are.
 */
function storeFault(what: string): (err: unknown) => never {
  return (err) => {
    if (err instanceof StorageFaultError) throw err;
    const e = err as {
      $metadata?: { httpStatusCode?: number };
      name?: string;
      code?: unknown;
      message?: string;
    };
    const status = e.$metadata?.httpStatusCode;
    const storeFailed =
      status !== undefined ? status >= 500 : e.name === 'TimeoutError' || typeof e.code === 'string';
    if (!storeFailed) throw err;
    throw new StorageFaultError(
      'unavailable',
      `S3 ${what} failed: ${e.name ?? ''} ${e.message ?? ''}`.trim(),
      {
        cause: err,
      },
    );
  };
}

function checked(key: string): string {
  if (!isValidStorageKey(key)) throw new Error(`invalid storage key: ${key}`);
  return key;
}
