import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument, Types } from 'mongoose';

@Schema({ collection: 'folders', timestamps: true })
export class Folder {
  @Prop({ type: Types.ObjectId, required: true, index: true })
  owner!: Types.ObjectId;

  @Prop({ required: true })
  title!: string;

  /** Number of items in the folder, kept by the content module as items come and go. */
  @Prop({ default: 0, min: 0 })
  amount!: number;
}

export type FolderDocument = HydratedDocument<Folder>;
export const FolderSchema = SchemaFactory.createForClass(Folder);
