/**
 * The storage module's face: the port for stored files (local disk or S3), the key scheme, and
 * the listener that removes the files of deleted content.
 *
 * Near the bottom: it imports only events, whose domain events tell it which files to remove, so
 * that folders, generation and account-data (above it) never have to be called back.
 */
export { StorageCleanupListener } from './storage-cleanup.listener';
export { StorageHealth } from './storage-health';
export { StorageModule } from './storage.module';
export type { ByteRange, StoredObject } from './storage.port';
export {
  diskFullError,
  isValidStorageKey,
  newStorageKey,
  StorageFaultError,
  StoragePort,
} from './storage.port';
