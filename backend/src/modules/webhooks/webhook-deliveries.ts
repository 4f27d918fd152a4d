import { InjectQueue } from '@nestjs/bull';
import { Inject, Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Queue } from 'bull';
import { createHash } from 'node:crypto';
import { Model, Types } from 'mongoose';
import {
  webhookNextAttemptAt,
  webhookWindowText,
  WebhookMessages,
  type WebhookEventData,
  type WebhookEventType,
  type WebhookMessage,
  type WebhookRetrySettings,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AccountsRepository } from '../accounts';
import { MailService, MailTemplates } from '../mail';
import type { AddressPolicy } from './address-guard';
import { webhookHeaders } from './webhook-signer';
import { sendWebhook, type AttemptResult } from './webhook-sender';
import { WebhookDelivery, WebhookEndpoint } from './webhook.schema';

export const WEBHOOK_QUEUE = 'webhook-deliveries';

/** A queue job: make the next attempt of one delivery. */
export interface DeliveryJob {
  deliveryId: string;
}

/** An event ready to be sent: whose, its type and data, and the job it belongs to (its order). */
export interface WebhookEvent<T extends WebhookEventType = WebhookEventType> {
  eventId: string;
  userId: string;
  type: T;
  occurredAt: Date;
  data: WebhookEventData[T];
  jobId?: string;
}

/** The address policy of this deployment (loopback only outside production, when asked). */
export const addressPolicyOf = (config: AppConfig): AddressPolicy => ({
  allowLoopback: config.WEBHOOK_ALLOW_LOOPBACK && config.NODE_ENV !== 'production',
});

/** The `webhook-id` of an event's delivery to an endpoint: the same however often it is recorded. */
const messageIdOf = (endpointId: string, eventId: string) =>
  'msg_' + createHash('sha256').update(`${endpointId}:${eventId}`).digest('base64url').slice(0, 27);

/** A lease longer than any attempt can take, so a second copy of a queue job never sends at once. */
const leaseMs = (config: AppConfig) => config.WEBHOOK_TIMEOUT_MS + 15_000;

type DeliveryRow = WebhookDelivery & { createdAt: Date };
type EndpointRow = WebhookEndpoint & { _id: Types.ObjectId };

/**
 * Webhook deliveries, at least once and in order per job: each event becomes one delivery per
 * subscribed endpoint (recorded before it is queued; the sweep queues again what a crash left),
 * attempts follow the retry schedule of libs/contracts, and a job's later delivery waits until
 * its earlier one is delivered or given up. An endpoint whose deliveries have failed for a whole
 * window is switched off and its owner mailed.
 */
@Injectable()
export class WebhookDeliveries {
  private readonly logger = new Logger(WebhookDeliveries.name);
  readonly policy: AddressPolicy;
  readonly retry: WebhookRetrySettings;

  constructor(
    @InjectModel(WebhookEndpoint.name) private readonly endpoints: Model<WebhookEndpoint>,
    @InjectModel(WebhookDelivery.name) private readonly deliveries: Model<WebhookDelivery>,
    @InjectQueue(WEBHOOK_QUEUE) private readonly queue: Queue<DeliveryJob>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly accounts: AccountsRepository,
    private readonly mail: MailService,
  ) {
    this.policy = addressPolicyOf(config);
    this.retry = {
      firstDelayMs: config.WEBHOOK_RETRY_FIRST_DELAY_MS,
      windowMs: config.WEBHOOK_RETRY_WINDOW_MS,
    };
  }

  /** Records the event's delivery to each of the owner's endpoints that takes it, and queues them. */
  async record(event: WebhookEvent): Promise<number> {
    if (!Types.ObjectId.isValid(event.userId)) return 0;
    const owner = new Types.ObjectId(event.userId);
    const targets = await this.endpoints
      .find({ owner, enabled: true, events: event.type }, { _id: 1 })
      .lean();
    const message: WebhookMessage = {
      type: event.type,
      timestamp: event.occurredAt.toISOString(),
      data: event.data,
    };
    const body = JSON.stringify(message);
    for (const target of targets) {
      const _id = messageIdOf(String(target._id), event.eventId);
      // Recorded once, however often the event is handled (the domain bus delivers at least once).
      await this.deliveries.updateOne(
        { _id },
        {
          $setOnInsert: {
            endpoint: target._id,
            owner,
            eventId: event.eventId,
            type: event.type,
            body,
            occurredAt: event.occurredAt,
            ...(event.jobId ? { orderKey: `job:${event.jobId}`, jobId: event.jobId } : {}),
            status: 'pending',
            attempts: 0,
            round: 0,
            nextAttemptAt: new Date(),
          },
        },
        { upsert: true },
      );
      const row = await this.deliveries.findById(_id).lean();
      if (row?.status === 'pending') await this.enqueue(row);
    }
    return targets.length;
  }

  /**
   * Queues the delivery's next attempt (a no-op when that attempt is queued already). `wake` names
   * a later reason to look at the same attempt again (the delivery before it settled, a sweep), as
   * the queue keeps a finished job's id for a while and would take the plain id for a repeat.
   */
  async enqueue(
    row: Pick<DeliveryRow, '_id' | 'round' | 'attempts' | 'nextAttemptAt'>,
    wake?: string,
  ): Promise<void> {
    const delay = Math.max(0, (row.nextAttemptAt?.getTime() ?? 0) - Date.now());
    await this.queue.add(
      { deliveryId: row._id },
      {
        jobId: `${row._id}:${row.round}:${row.attempts}${wake ? `:${wake}` : ''}`,
        delay,
        attempts: 5,
        backoff: { type: 'exponential', delay: 1000 },
        removeOnComplete: { age: 3600, count: 5000 },
        removeOnFail: { age: 24 * 3600, count: 5000 },
      },
    );
  }

  /**
   * One attempt of a delivery (the queue's processor): skipped when it is no longer pending, when
   * an earlier delivery of its job to the same endpoint is still pending (that one queues it when
   * it settles) or while another copy holds its lease.
   */
  async attempt(deliveryId: string): Promise<void> {
    const row = await this.deliveries.findById(deliveryId).lean<DeliveryRow>();
    if (!row || row.status !== 'pending') return;
    if (await this.waitsForEarlier(row)) return;
    const now = new Date();
    const claimed = await this.deliveries
      .findOneAndUpdate(
        {
          _id: row._id,
          status: 'pending',
          attempts: row.attempts,
          round: row.round,
          $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lte: now } }],
        },
        { $set: { leaseUntil: new Date(now.getTime() + leaseMs(this.config)) } },
        { new: true },
      )
      .lean<DeliveryRow>();
    if (!claimed) return;
    const endpoint = await this.endpoints.findById(claimed.endpoint).lean<EndpointRow>();
    if (!endpoint || !endpoint.enabled) {
      await this.giveUp(claimed, { error: WebhookMessages.endpointOff });
      return;
    }
    const result = await sendWebhook(
      endpoint.url,
      webhookHeaders(endpoint.secret, claimed._id, claimed.body),
      claimed.body,
      {
        policy: this.policy,
        timeoutMs: this.config.WEBHOOK_TIMEOUT_MS,
      },
    );
    await this.settleAttempt(claimed, endpoint, result, now);
  }

  /** Sends a delivered or given-up delivery again, as a new round of attempts (same webhook-id). */
  async replay(row: DeliveryRow): Promise<DeliveryRow> {
    const updated = await this.deliveries
      .findOneAndUpdate(
        { _id: row._id, status: { $ne: 'pending' } },
        {
          $set: { status: 'pending', attempts: 0, nextAttemptAt: new Date() },
          $inc: { round: 1 },
          $unset: { firstAttemptAt: 1, deliveredAt: 1, leaseUntil: 1, lastError: 1, lastStatusCode: 1 },
        },
        { new: true },
      )
      .lean<DeliveryRow>();
    if (!updated) return row;
    await this.enqueue(updated);
    return updated;
  }

  /**
   * Queues again the pending deliveries whose attempt is overdue (a queue job lost to a crash
   * between the record and the queue); the queue job ids make a repeat harmless. Returns how many.
   */
  async sweep(overdueMs = leaseMs(this.config)): Promise<number> {
    const cutoff = new Date(Date.now() - overdueMs);
    const overdue = await this.deliveries
      .find({
        status: 'pending',
        nextAttemptAt: { $lte: cutoff },
        $or: [{ leaseUntil: { $exists: false } }, { leaseUntil: { $lte: new Date() } }],
      })
      .sort({ occurredAt: 1 })
      .limit(500)
      .lean<DeliveryRow[]>();
    const sweep = `sweep-${Math.floor(Date.now() / overdueMs)}`;
    for (const row of overdue) {
      if (!(await this.waitsForEarlier(row))) await this.enqueue(row, sweep);
    }
    return overdue.length;
  }

  /** Every pending delivery to an endpoint is given up (it was switched off or deleted). */
  async dropPending(endpointId: Types.ObjectId, reason: string): Promise<void> {
    await this.deliveries.updateMany(
      { endpoint: endpointId, status: 'pending' },
      { $set: { status: 'failed', lastError: reason }, $unset: { nextAttemptAt: 1, leaseUntil: 1 } },
    );
  }

  private async waitsForEarlier(row: DeliveryRow): Promise<boolean> {
    if (!row.orderKey) return false;
    const earlier = await this.deliveries.exists({
      endpoint: row.endpoint,
      orderKey: row.orderKey,
      status: 'pending',
      _id: { $ne: row._id },
      $or: [{ occurredAt: { $lt: row.occurredAt } }, { occurredAt: row.occurredAt, _id: { $lt: row._id } }],
    });
    return earlier !== null;
  }

  private async settleAttempt(row: DeliveryRow, endpoint: EndpointRow, result: AttemptResult, at: Date) {
    const attempts = row.attempts + 1;
    const firstAttemptAt = row.firstAttemptAt ?? at;
    const common = {
      attempts,
      firstAttemptAt,
      lastAttemptAt: at,
      ...(result.statusCode !== undefined ? { lastStatusCode: result.statusCode } : {}),
    };
    const same = { _id: row._id, round: row.round, attempts: row.attempts, status: 'pending' };
    if (result.ok) {
      await this.deliveries.updateOne(same, {
        $set: { ...common, status: 'delivered', deliveredAt: new Date() },
        $unset: {
          nextAttemptAt: 1,
          leaseUntil: 1,
          lastError: 1,
          ...(result.statusCode === undefined ? { lastStatusCode: 1 } : {}),
        },
      });
      await this.endpoints.updateOne(
        { _id: endpoint._id, failingSince: { $exists: true } },
        { $unset: { failingSince: 1 } },
      );
      await this.queueNext(row);
      return;
    }
    // The endpoint's run of failures: from its first failed attempt since one was delivered.
    await this.endpoints.updateOne(
      { _id: endpoint._id, failingSince: { $exists: false } },
      { $set: { failingSince: at } },
    );
    const failingSince =
      (await this.endpoints.findById(endpoint._id, { failingSince: 1 }).lean())?.failingSince ?? at;
    const error = result.error ?? 'failed';
    const next = webhookNextAttemptAt(attempts, this.retry);
    if (next === null) {
      await this.deliveries.updateOne(same, {
        $set: { ...common, status: 'failed', lastError: error },
        $unset: {
          nextAttemptAt: 1,
          leaseUntil: 1,
          ...(result.statusCode === undefined ? { lastStatusCode: 1 } : {}),
        },
      });
      await this.queueNext(row);
    } else {
      const nextAttemptAt = new Date(firstAttemptAt.getTime() + next);
      const moved = await this.deliveries
        .findOneAndUpdate(
          same,
          {
            $set: { ...common, nextAttemptAt, lastError: error },
            $unset: { leaseUntil: 1, ...(result.statusCode === undefined ? { lastStatusCode: 1 } : {}) },
          },
          { new: true },
        )
        .lean<DeliveryRow>();
      if (moved) await this.enqueue(moved);
    }
    if (at.getTime() - failingSince.getTime() >= this.retry.windowMs) await this.switchOff(endpoint);
  }

  /** The earliest pending delivery of the same job to the same endpoint, queued. */
  private async queueNext(row: DeliveryRow): Promise<void> {
    if (!row.orderKey) return;
    const next = await this.deliveries
      .findOne({ endpoint: row.endpoint, orderKey: row.orderKey, status: 'pending' })
      .sort({ occurredAt: 1, _id: 1 })
      .lean<DeliveryRow>();
    if (next) await this.enqueue(next, `after-${row._id}-${row.round}`);
  }

  private async giveUp(row: DeliveryRow, result: { error: string }): Promise<void> {
    await this.deliveries.updateOne(
      { _id: row._id, round: row.round, attempts: row.attempts, status: 'pending' },
      { $set: { status: 'failed', lastError: result.error }, $unset: { nextAttemptAt: 1, leaseUntil: 1 } },
    );
    await this.queueNext(row);
  }

  /** Switches a failing endpoint off (once), gives up its pending deliveries and mails its owner. */
  private async switchOff(endpoint: EndpointRow): Promise<void> {
    const window = webhookWindowText(this.retry.windowMs);
    const reason = WebhookMessages.switchedOff(window);
    const off = await this.endpoints.updateOne(
      { _id: endpoint._id, enabled: true },
      { $set: { enabled: false, disabledAt: new Date(), disabledReason: reason } },
    );
    if (off.modifiedCount !== 1) return;
    this.logger.warn(`webhook endpoint ${String(endpoint._id)} switched off: failing for ${window}`);
    await this.dropPending(endpoint._id, WebhookMessages.endpointOff);
    const account = await this.accounts.findById(String(endpoint.owner));
    if (account?.email) {
      this.mail.dispatch(
        account.email,
        MailTemplates.webhookSwitchedOff(account.username, endpoint.url, window, this.mail.link('/account')),
      );
    }
  }
}
