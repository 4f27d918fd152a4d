import { Injectable } from '@nestjs/common';
import { InjectModel, Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';

/**
 * A checkout session this server created, kept from the moment the provider gave its id: the
 * webhook credits only these, to this user and for these packs, whatever a signed event claims
 * (its metadata is ours to write, but a leaked webhook secret would let anyone sign any). Kept
 * without expiry: an asynchronous payment (a bank debit) can succeed days after the checkout.
 */
@Schema({ collection: 'checkout_sessions', versionKey: false })
export class CheckoutSession {
  /** The provider's checkout session id (cs_...). */
  @Prop({ type: String, required: true })
  _id!: string;

  @Prop({ type: Types.ObjectId, required: true, index: true })
  userId!: Types.ObjectId;

  @Prop({ required: true })
  packs!: number;

  @Prop({ required: true, default: () => new Date() })
  createdAt!: Date;
}
export const CheckoutSessionSchema = SchemaFactory.createForClass(CheckoutSession);

export interface CheckoutRecord {
  sessionId: string;
  userId: string;
  packs: number;
}

/** The checkouts this server started: written at checkout, read by the webhook and the pages. */
@Injectable()
export class CheckoutRecords {
  constructor(@InjectModel(CheckoutSession.name) private readonly sessions: Model<CheckoutSession>) {}

  async record(checkout: CheckoutRecord): Promise<void> {
    await this.sessions.create({
      _id: checkout.sessionId,
      userId: new Types.ObjectId(checkout.userId),
      packs: checkout.packs,
      createdAt: new Date(),
    });
  }

  /** The checkout this server started under that id, whoever started it; null for any other id. */
  async find(sessionId: string): Promise<CheckoutRecord | null> {
    const row = await this.sessions.findById(sessionId).lean();
    return row ? { sessionId: row._id, userId: String(row.userId), packs: row.packs } : null;
  }

  /** The checkout only when `userId` started it: one answer for unknown ids and other users' ids. */
  async ownedBy(userId: string, sessionId: string): Promise<CheckoutRecord | null> {
    const record = await this.find(sessionId);
    return record?.userId === userId ? record : null;
  }
}
