import { Module } from '@nestjs/common';
import { MongooseModule } from '@nestjs/mongoose';
import { ContentController } from './content.controller';
import { ContentItem, ContentItemSchema, InpaintBatch, InpaintBatchSchema } from './content-item.schema';
import { RealtimeModule } from '../realtime';
import { Folder, FolderSchema } from './folder.schema';
import { FoldersController } from './folders.controller';
import { FoldersService } from './folders.service';

@Module({
  imports: [
    MongooseModule.forFeature([
      { name: Folder.name, schema: FolderSchema },
      { name: ContentItem.name, schema: ContentItemSchema },
      { name: InpaintBatch.name, schema: InpaintBatchSchema },
    ]),
    RealtimeModule,
  ],
  controllers: [FoldersController, ContentController],
  providers: [FoldersService],
  exports: [FoldersService],
})
export class FoldersModule {}
