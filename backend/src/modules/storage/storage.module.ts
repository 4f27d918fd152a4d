import { Global, Module } from '@nestjs/common';
import { LocalDiskStorage } from './local-disk.storage';
import { StoragePort } from './storage.port';

@Global()
@Module({
  providers: [{ provide: StoragePort, useClass: LocalDiskStorage }],
  exports: [StoragePort],
})
export class StorageModule {}
