import { Global, Module } from '@nestjs/common';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { LocalDiskStorage } from './local-disk.storage';
import { S3Storage } from './s3.storage';
import { StoragePort } from './storage.port';

/** The storage adapter chosen by STORAGE_DRIVER: local disk (default) or an S3-API bucket. */
@Global()
@Module({
  providers: [
    {
      provide: StoragePort,
      inject: [APP_CONFIG],
      useFactory: (config: AppConfig) =>
        config.STORAGE_DRIVER === 's3' ? new S3Storage(config) : new LocalDiskStorage(config),
    },
  ],
  exports: [StoragePort],
})
export class StorageModule {}
