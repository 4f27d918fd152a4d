import { Global, Module, OnApplicationShutdown } from '@nestjs/common';
import type Redis from 'ioredis';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import { LocalDiskStorage } from './local-disk.storage';
import { S3Storage } from './s3.storage';
import { StorageHealth, WatchedStorage } from './storage-health';
import { StoragePort } from './storage.port';

/** The storage adapter chosen by STORAGE_DRIVER: local disk (default) or an S3-API bucket. */
@Global()
@Module({
  providers: [
    {
      provide: StorageHealth,
      inject: [REDIS, APP_CONFIG],
      useFactory: (redis: Redis, config: AppConfig) => new StorageHealth(redis, config.REDIS_PREFIX),
    },
    {
      provide: StoragePort,
      inject: [APP_CONFIG, StorageHealth],
      useFactory: (config: AppConfig, health: StorageHealth) =>
        new WatchedStorage(
          config.STORAGE_DRIVER === 's3' ? new S3Storage(config) : new LocalDiskStorage(config),
          health,
        ),
    },
  ],
  exports: [StoragePort, StorageHealth],
})
export class StorageModule implements OnApplicationShutdown {
  constructor(private readonly storage: StoragePort) {}

  /** The S3 client's open sockets end with the app. */
  onApplicationShutdown(): void {
    (this.storage as WatchedStorage).destroy();
  }
}
