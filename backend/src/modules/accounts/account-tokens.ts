import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { createHash, randomBytes } from 'node:crypto';
import { ACCOUNT_TOKEN_TTL_MINUTES } from '@studio/contracts';
import { AccountToken, type TokenPurpose } from './account-token.schema';

const hashOf = (token: string) => createHash('sha256').update(token, 'utf8').digest('hex');

/** Tokens are base64url of 32 random bytes: 43 characters. Anything else is refused unread. */
const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

/** One-time tokens for mailed links: issued, then consumed at most once before they expire. */
@Injectable()
export class AccountTokens {
  constructor(@InjectModel(AccountToken.name) private readonly model: Model<AccountToken>) {}

  /**
   * A fresh token for the user, working for ACCOUNT_TOKEN_TTL_MINUTES[purpose]; earlier unused
   * tokens of the same purpose stop working (only the latest mail's link counts). Returns the
   * token, which is never stored.
   */
  async issue(userId: string, email: string, purpose: TokenPurpose): Promise<string> {
    await this.revokeAll(userId, purpose);
    const token = randomBytes(32).toString('base64url');
    await this.model.create({
      _id: hashOf(token),
      userId: new Types.ObjectId(userId),
      purpose,
      email,
      expiresAt: new Date(Date.now() + ACCOUNT_TOKEN_TTL_MINUTES[purpose] * 60_000),
    });
    return token;
  }

  /**
   * Uses a token: one atomic delete, so two requests with the same token cannot both succeed.
   * Null when unknown, used, of another purpose or expired.
   */
  async consume(token: string, purpose: TokenPurpose): Promise<{ userId: string; email: string } | null> {
    if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return null;
    const row = await this.model.findOneAndDelete({ _id: hashOf(token), purpose }).lean();
    if (!row || row.expiresAt.getTime() <= Date.now()) return null;
    return { userId: String(row.userId), email: row.email };
  }

  /** What `consume` would give, without using the token. */
  async peek(token: string, purpose: TokenPurpose): Promise<{ userId: string; email: string } | null> {
    if (typeof token !== 'string' || !TOKEN_PATTERN.test(token)) return null;
    const row = await this.model.findOne({ _id: hashOf(token), purpose }).lean();
    if (!row || row.expiresAt.getTime() <= Date.now()) return null;
    return { userId: String(row.userId), email: row.email };
  }

  async revokeAll(userId: string, purpose?: TokenPurpose): Promise<void> {
    await this.model.deleteMany({ userId: new Types.ObjectId(userId), ...(purpose ? { purpose } : {}) });
  }
}
