/**
 * The folders module's face: folders and their content items (FoldersService), and their schemas.
 *
 * Above accounts, storage and realtime; below generation (whose jobs put their outputs in
 * folders) and account-data (profile, export and deletion read the owner's folders). The files of
 * deleted items are removed by storage on a domain event.
 */
export { ContentItem, ContentItemSchema, InpaintBatch, InpaintBatchSchema } from './content-item.schema';
export { Folder, FolderSchema } from './folder.schema';
export { FoldersModule } from './folders.module';
export { FoldersService } from './folders.service';
