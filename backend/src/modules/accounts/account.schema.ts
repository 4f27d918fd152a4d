import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import { HydratedDocument } from 'mongoose';
import { ROLES, type Role } from '@studio/contracts';

@Schema({ collection: 'accounts', timestamps: true })
export class Account {
  /** As the person typed it; shown on screens. */
  @Prop({ required: true })
  username!: string;

  /** Lower-cased copy: names are unique regardless of letter case. */
  @Prop({ required: true, unique: true })
  usernameKey!: string;

  @Prop({ required: true, unique: true })
  email!: string;

  @Prop({ required: true })
  passwordHash!: string;

  @Prop({ type: String, enum: ROLES, default: 'user' })
  role!: Role;

  @Prop({ default: false })
  verified!: boolean;

  @Prop({ default: false })
  early!: boolean;

  /** Coin balance. Changed only through the billing ledger (a later module). */
  @Prop({ default: 0, min: 0 })
  balance!: number;

  /** When the person confirmed being 18 or older (the adult-content gate). */
  @Prop({ required: true })
  adultConfirmedAt!: Date;

  @Prop()
  lastLoginAt?: Date;

  createdAt?: Date;
}

export type AccountDocument = HydratedDocument<Account>;
export const AccountSchema = SchemaFactory.createForClass(Account);
