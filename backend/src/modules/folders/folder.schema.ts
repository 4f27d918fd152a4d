import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument, Types } from 'mongoose';

@Schema({ collection: 'folders', timestamps: true })
export class Folder {
  @Prop({ type: Types.ObjectId, required: true, index: true })
  owner!: Types.ObjectId;

  @Prop({ required: true })
  title!: string;
}

export type FolderDocument = HydratedDocument<Folder>;
export const FolderSchema = SchemaFactory.createForClass(Folder);
