import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import type { ContentCheck, ModerationDecision, SafetyReason } from '@studio/contracts';
import { Types } from 'mongoose';
import type { ContentKind } from '@studio/contracts';

/** A generated image or video in a folder; the file itself is in storage under storageKey. */
@Schema({ collection: 'content_items', versionKey: false })
export class ContentItem {
  @Prop({ type: Types.ObjectId, required: true, index: true })
  owner!: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true, index: true })
  folder!: Types.ObjectId;

  @Prop({ required: true })
  storageKey!: string;

  @Prop({ type: String, required: true })
  kind!: ContentKind;

  @Prop({ required: true })
  contentType!: string;

  @Prop()
  title?: string;

  /** Set to false to hide the item (takedowns); absent means visible. */
  @Prop()
  visible?: boolean;

  @Prop()
  jobId?: string;

  /** An admin's takedown: the reason the owner reads, and whether the file was deleted. */
  @Prop({ type: Object })
  takedown?: { reason: string; mode: 'hide' | 'delete'; by: string; at: Date };

  /** What the content check saw (nsfwjs' class scores, each face's age estimate). */
  @Prop({ type: Object })
  check?: ContentCheck;

  /**
   * Held for a moderator (a generated face the age model put under 18): not listed, not served,
   * not counted until released; removed ones stay as the record of the decision.
   */
  @Prop({ type: Object })
  moderation?: {
    state: 'held' | ModerationDecision;
    reason: SafetyReason;
    at: Date;
    /** The moderator who decided, and why. */
    by?: string;
    note?: string;
  };

  @Prop({ required: true, default: () => new Date() })
  createdAt!: Date;
}

export const ContentItemSchema = SchemaFactory.createForClass(ContentItem);

/** A bulk inpaint batch in a folder: its title (or 'STATUS: ...' line) and size. */
@Schema({ collection: 'inpaint_batches', versionKey: false })
export class InpaintBatch {
  @Prop({ type: Types.ObjectId, required: true, index: true })
  owner!: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true, index: true })
  folder!: Types.ObjectId;

  @Prop({ required: true })
  title!: string;

  @Prop({ required: true, min: 1 })
  amount!: number;

  @Prop({ required: true, default: () => new Date() })
  createdAt!: Date;
}

export const InpaintBatchSchema = SchemaFactory.createForClass(InpaintBatch);
