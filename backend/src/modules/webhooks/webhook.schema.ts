import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Types } from 'mongoose';
import { WEBHOOK_EVENT_TYPES, type WebhookDeliveryStatus, type WebhookEventType } from '@studio/contracts';

/**
 * A webhook endpoint. Its signing secret is kept as it is (`whsec_…`): the server signs every
 * delivery with it, so unlike an API key it cannot be a hash. It is never sent back after it is made.
 */
@Schema({
  collection: 'webhook_endpoints',
  versionKey: false,
  timestamps: { createdAt: true, updatedAt: false },
})
export class WebhookEndpoint {
  @Prop({ type: Types.ObjectId, required: true, index: true })
  owner!: Types.ObjectId;

  @Prop({ required: true })
  url!: string;

  @Prop({ type: [String], enum: WEBHOOK_EVENT_TYPES, required: true })
  events!: WebhookEventType[];

  @Prop({ required: true })
  secret!: string;

  @Prop({ required: true, default: true })
  enabled!: boolean;

  /** The first failed attempt since the last delivered one (unset while deliveries succeed). */
  @Prop({ type: Date })
  failingSince?: Date;

  @Prop({ type: Date })
  disabledAt?: Date;

  @Prop()
  disabledReason?: string;

  createdAt!: Date;
}

export const WebhookEndpointSchema = SchemaFactory.createForClass(WebhookEndpoint);

/**
 * One message to one endpoint (`_id` is its `webhook-id`, the same on every attempt and replay).
 * `body` is kept as sent, so every attempt signs the same bytes. Deliveries of one job to one
 * endpoint share `orderKey` and go out one at a time in `occurredAt` order.
 */
@Schema({
  collection: 'webhook_deliveries',
  versionKey: false,
  timestamps: { createdAt: true, updatedAt: false },
})
export class WebhookDelivery {
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Types.ObjectId, required: true })
  endpoint!: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true })
  owner!: Types.ObjectId;

  /** The domain event it was made from. */
  @Prop({ required: true })
  eventId!: string;

  @Prop({ type: String, enum: WEBHOOK_EVENT_TYPES, required: true })
  type!: WebhookEventType;

  @Prop({ required: true })
  body!: string;

  @Prop({ required: true })
  occurredAt!: Date;

  /** `job:<jobId>` for a job's deliveries (ordered); absent for the others. */
  @Prop()
  orderKey?: string;

  @Prop()
  jobId?: string;

  @Prop({ type: String, required: true, default: 'pending' })
  status!: WebhookDeliveryStatus;

  /** Attempts since it was recorded or last replayed. */
  @Prop({ required: true, default: 0 })
  attempts!: number;

  /** Replays so far (part of each attempt's queue job id). */
  @Prop({ required: true, default: 0 })
  round!: number;

  @Prop({ type: Date })
  firstAttemptAt?: Date;

  @Prop({ type: Date })
  lastAttemptAt?: Date;

  @Prop({ type: Date })
  nextAttemptAt?: Date;

  /** An attempt in progress holds the delivery until then (a second copy of its queue job waits). */
  @Prop({ type: Date })
  leaseUntil?: Date;

  @Prop()
  lastStatusCode?: number;

  @Prop()
  lastError?: string;

  @Prop({ type: Date })
  deliveredAt?: Date;

  createdAt!: Date;
}

export const WebhookDeliverySchema = SchemaFactory.createForClass(WebhookDelivery);
WebhookDeliverySchema.index({ owner: 1, createdAt: -1 });
WebhookDeliverySchema.index({ endpoint: 1, orderKey: 1, status: 1, occurredAt: 1 });
WebhookDeliverySchema.index({ status: 1, nextAttemptAt: 1 });
