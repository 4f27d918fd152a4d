import {
  ForbiddenException,
  HttpException,
  HttpStatus,
  Inject,
  Injectable,
  NotFoundException,
} from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { createHash, randomBytes } from 'node:crypto';
import type Redis from 'ioredis';
import { isValidObjectId, Model, Types } from 'mongoose';
import {
  API_KEY_LIMITS,
  API_KEY_PREFIX,
  ApiKeyMessages,
  spendMonth,
  type ApiKeyScope,
  type ApiKeyView,
  type CreatedApiKey,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { REDIS } from '../../infrastructure/redis.module';
import type { ApiKeyCaller, ApiKeyDirectory, AuthUser } from '../auth';
import { ApiKey, ApiKeySpend } from './api-key.schema';

/** lastUsedAt is written at most this often per key (not on every request). */
const LAST_USED_EVERY_MS = 60_000;
/** The secret's random part: 32 bytes, base64url. */
const SECRET_BYTES = 32;
const SECRET_PATTERN = new RegExp(`^${API_KEY_PREFIX}[A-Za-z0-9_-]{43}$`);

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

export interface NewKeyRequest {
  name: string;
  scopes: ApiKeyScope[];
  monthlyCap?: number;
  revokeOnPasswordChange?: boolean;
}

/** A key found live but over its per-minute budget: seconds until the next minute. */
export class KeyRateExceeded extends HttpException {
  constructor(readonly retryAfterSeconds: number) {
    super(
      {
        message: ApiKeyMessages.tooManyRequests(retryAfterSeconds),
        extra: { retryAfterSeconds },
      },
      HttpStatus.TOO_MANY_REQUESTS,
    );
  }
}

/** Personal API keys: made, listed and revoked by their owner; found by auth for Bearer requests. */
@Injectable()
export class ApiKeysService implements ApiKeyDirectory {
  constructor(
    @InjectModel(ApiKey.name) private readonly keys: Model<ApiKey>,
    @InjectModel(ApiKeySpend.name) private readonly spends: Model<ApiKeySpend>,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  /** A new key for the signed-in owner; its secret is in the answer and nowhere else. */
  async create(user: AuthUser, credentialsVersion: number, request: NewKeyRequest): Promise<CreatedApiKey> {
    if (user.role !== 'user') throw new ForbiddenException(ApiKeyMessages.staffNoKeys);
    const owner = new Types.ObjectId(user.id);
    const live = await this.keys.countDocuments({ owner, revokedAt: { $exists: false } });
    if (live >= API_KEY_LIMITS.perAccount)
      throw new HttpException(ApiKeyMessages.tooMany, HttpStatus.CONFLICT);
    const secret = API_KEY_PREFIX + randomBytes(SECRET_BYTES).toString('base64url');
    const created = await this.keys.create({
      owner,
      name: request.name.trim(),
      secretHash: hashOf(secret),
      preview: secret.slice(0, API_KEY_PREFIX.length + 4),
      scopes: [...new Set(request.scopes)],
      ...(request.monthlyCap !== undefined ? { monthlyCap: request.monthlyCap } : {}),
      ...(request.revokeOnPasswordChange ? { credentialsVersion } : {}),
    });
    return { key: await this.viewWithSpend(created.toObject()), secret };
  }

  /** The owner's keys, live first, newest first. */
  async list(user: AuthUser): Promise<ApiKeyView[]> {
    const rows = await this.keys
      .find({ owner: new Types.ObjectId(user.id) })
      .sort({ createdAt: -1 })
      .lean();
    // This month's spend of every key in one read (revoked keys stay listed, so there may be many).
    const month = spendMonth();
    const spends = await this.spends
      .find({ _id: { $in: rows.map((row) => `${String(row._id)}:${month}`) } }, { coins: 1 })
      .lean();
    const spent = new Map(spends.map((spend) => [spend._id, spend.coins]));
    const views = rows.map((row) => viewOf(row, spent.get(`${String(row._id)}:${month}`) ?? 0));
    return [...views.filter((v) => !v.revokedAt), ...views.filter((v) => v.revokedAt)];
  }

  /** Revokes one of the owner's keys at once (the next request with it is refused). Idempotent. */
  async revoke(user: AuthUser, keyId: string): Promise<ApiKeyView> {
    if (!isValidObjectId(keyId)) throw new NotFoundException(ApiKeyMessages.notFound);
    const filter = { _id: new Types.ObjectId(keyId), owner: new Types.ObjectId(user.id) };
    await this.keys.updateOne(
      { ...filter, revokedAt: { $exists: false } },
      { $set: { revokedAt: new Date() } },
    );
    const row = await this.keys.findOne(filter).lean();
    if (!row) throw new NotFoundException(ApiKeyMessages.notFound);
    return this.viewWithSpend(row);
  }

  /** Every key of an account goes with it (account deletion). */
  async forgetAccount(userId: string): Promise<void> {
    if (!isValidObjectId(userId)) return;
    const keys = await this.keys.find({ owner: new Types.ObjectId(userId) }, { _id: 1 }).lean();
    await this.keys.deleteMany({ owner: new Types.ObjectId(userId) });
    if (keys.length) {
      await this.spends.deleteMany({ _id: { $regex: `^(${keys.map((k) => String(k._id)).join('|')}):` } });
    }
  }

  /** ApiKeyDirectory: the live key of this secret, counted against its per-minute budget. */
  async resolve(secret: string): Promise<ApiKeyCaller | null> {
    if (!SECRET_PATTERN.test(secret)) return null;
    const row = await this.keys.findOne({ secretHash: hashOf(secret), revokedAt: { $exists: false } }).lean();
    if (!row) return null;
    await this.countRequest(String(row._id));
    const now = Date.now();
    if (!row.lastUsedAt || now - row.lastUsedAt.getTime() > LAST_USED_EVERY_MS) {
      await this.keys.updateOne({ _id: row._id }, { $set: { lastUsedAt: new Date(now) } });
    }
    return {
      keyId: String(row._id),
      userId: String(row.owner),
      scopes: row.scopes,
      monthlyCap: row.monthlyCap ?? undefined,
      credentialsVersion: row.credentialsVersion ?? undefined,
    };
  }

  /** One counter per key for a minute from its first request, shared by every API instance. */
  private async countRequest(keyId: string): Promise<void> {
    const counter = `${this.config.REDIS_PREFIX}:api-key-rate:${keyId}`;
    const [[, count], , [, ttl]] = (await this.redis
      .multi()
      .incr(counter)
      .pexpire(counter, 60_000, 'NX')
      .pttl(counter)
      .exec()) as [[unknown, number], [unknown, number], [unknown, number]];
    if (count > this.config.API_KEY_RATE_PER_MINUTE) {
      throw new KeyRateExceeded(Math.max(1, Math.ceil(ttl / 1000)));
    }
  }

  /** One key as its owner sees it, with this month's spend read. */
  private async viewWithSpend(row: ApiKeyRow): Promise<ApiKeyView> {
    const spend = await this.spends.findById(`${String(row._id)}:${spendMonth()}`, { coins: 1 }).lean();
    return viewOf(row, spend?.coins ?? 0);
  }
}

type ApiKeyRow = ApiKey & { _id: Types.ObjectId };

function viewOf(row: ApiKeyRow, spentThisMonth: number): ApiKeyView {
  return {
    id: String(row._id),
    name: row.name,
    scopes: row.scopes,
    preview: row.preview,
    ...(row.monthlyCap !== undefined && row.monthlyCap !== null ? { monthlyCap: row.monthlyCap } : {}),
    spentThisMonth,
    revokeOnPasswordChange: row.credentialsVersion !== undefined && row.credentialsVersion !== null,
    createdAt: row.createdAt.toISOString(),
    ...(row.lastUsedAt ? { lastUsedAt: row.lastUsedAt.toISOString() } : {}),
    ...(row.revokedAt ? { revokedAt: row.revokedAt.toISOString() } : {}),
  };
}
