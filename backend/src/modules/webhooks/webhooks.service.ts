import {
  ConflictException,
  HttpException,
  HttpStatus,
  Injectable,
  NotFoundException,
  UnprocessableEntityException,
} from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model, Types } from 'mongoose';
import {
  WEBHOOK_LIMITS,
  WEBHOOK_SECRET_PREFIX,
  WebhookMessages,
  type CreatedWebhookEndpoint,
  type WebhookDeliveryView,
  type WebhookEndpointView,
  type WebhookEventType,
  type WebhookSettings,
} from '@studio/contracts';
import type { AuthUser } from '../auth';
import { hostOf, parseWebhookUrl, resolveChecked, UnsafeWebhookUrl } from './address-guard';
import { WebhookDeliveries } from './webhook-deliveries';
import { newWebhookSecret } from './webhook-signer';
import { WebhookDelivery, WebhookEndpoint } from './webhook.schema';

type EndpointRow = WebhookEndpoint & { _id: Types.ObjectId };
type DeliveryRow = WebhookDelivery & { createdAt: Date };

/** A webhook endpoint's owner side: register, list, switch on and off, delete, and deliveries' replay. */
@Injectable()
export class WebhooksService {
  constructor(
    @InjectModel(WebhookEndpoint.name) private readonly endpoints: Model<WebhookEndpoint>,
    @InjectModel(WebhookDelivery.name) private readonly deliveries: Model<WebhookDelivery>,
    private readonly sender: WebhookDeliveries,
  ) {}

  /** What an endpoint's address may be on this deployment (the page says it before one is typed). */
  settings(): WebhookSettings {
    return { localReceivers: this.sender.policy.allowLoopback };
  }

  /** Registers an endpoint (its address checked now, and again at every delivery); the secret once. */
  async create(
    user: AuthUser,
    request: { url: string; events: WebhookEventType[] },
  ): Promise<CreatedWebhookEndpoint> {
    const url = await this.checkedUrl(request.url);
    const owner = new Types.ObjectId(user.id);
    if ((await this.endpoints.countDocuments({ owner })) >= WEBHOOK_LIMITS.perAccount) {
      throw new ConflictException(WebhookMessages.tooMany);
    }
    const secret = newWebhookSecret();
    const created = await this.endpoints.create({
      owner,
      url,
      events: [...new Set(request.events)],
      secret,
      enabled: true,
    });
    return { endpoint: viewOf(created.toObject()), secret };
  }

  async list(user: AuthUser): Promise<WebhookEndpointView[]> {
    const rows = await this.endpoints
      .find({ owner: new Types.ObjectId(user.id) })
      .sort({ createdAt: -1 })
      .lean<EndpointRow[]>();
    return rows.map(viewOf);
  }

  /** Switches an endpoint on (its run of failures forgotten) or off (its waiting deliveries given up), or changes its events. */
  async update(
    user: AuthUser,
    endpointId: string,
    change: { enabled?: boolean; events?: WebhookEventType[] },
  ): Promise<WebhookEndpointView> {
    const row = await this.own(user, endpointId);
    const set: Record<string, unknown> = {};
    const unset: Record<string, 1> = {};
    if (change.events) set.events = [...new Set(change.events)];
    if (change.enabled === true && !row.enabled) {
      set.enabled = true;
      Object.assign(unset, { failingSince: 1, disabledAt: 1, disabledReason: 1 });
    } else if (change.enabled === false && row.enabled) {
      Object.assign(set, {
        enabled: false,
        disabledAt: new Date(),
        disabledReason: WebhookMessages.switchedOffByOwner,
      });
    }
    await this.endpoints.updateOne(
      { _id: row._id },
      {
        ...(Object.keys(set).length ? { $set: set } : {}),
        ...(Object.keys(unset).length ? { $unset: unset } : {}),
      },
    );
    if (change.enabled === false && row.enabled) {
      await this.sender.dropPending(row._id, WebhookMessages.endpointOff);
    }
    return viewOf((await this.endpoints.findById(row._id).lean<EndpointRow>())!);
  }

  /** Deletes an endpoint and its deliveries. */
  async remove(user: AuthUser, endpointId: string): Promise<void> {
    const row = await this.own(user, endpointId);
    await this.endpoints.deleteOne({ _id: row._id });
    await this.deliveries.deleteMany({ endpoint: row._id });
  }

  /** The owner's recent deliveries, newest first (of one endpoint when asked). */
  async recentDeliveries(user: AuthUser, endpointId?: string): Promise<WebhookDeliveryView[]> {
    const filter: Record<string, unknown> = { owner: new Types.ObjectId(user.id) };
    if (endpointId) filter.endpoint = (await this.own(user, endpointId))._id;
    const rows = await this.deliveries
      .find(filter, { body: 0 })
      .sort({ createdAt: -1, _id: 1 })
      .limit(WEBHOOK_LIMITS.recentDeliveries)
      .lean<DeliveryRow[]>();
    return rows.map(deliveryViewOf);
  }

  /** Sends one of the owner's deliveries again (a new round of attempts, the same webhook-id). */
  async replay(user: AuthUser, deliveryId: string): Promise<WebhookDeliveryView> {
    const row = await this.deliveries
      .findOne({ _id: deliveryId, owner: new Types.ObjectId(user.id) })
      .lean<DeliveryRow>();
    if (!row) throw new NotFoundException(WebhookMessages.deliveryNotFound);
    if (row.status === 'pending') throw new ConflictException(WebhookMessages.stillPending);
    const endpoint = await this.endpoints.findById(row.endpoint, { enabled: 1 }).lean();
    if (!endpoint?.enabled) throw new ConflictException(WebhookMessages.endpointOff);
    const replayed = await this.sender.replay(row);
    return deliveryViewOf(replayed);
  }

  /** Every endpoint and delivery of an account goes with it (account deletion). */
  async forgetAccount(userId: string): Promise<void> {
    if (!isValidObjectId(userId)) return;
    const owner = new Types.ObjectId(userId);
    await this.endpoints.deleteMany({ owner });
    await this.deliveries.deleteMany({ owner });
  }

  private async own(user: AuthUser, endpointId: string): Promise<EndpointRow> {
    if (!isValidObjectId(endpointId)) throw new NotFoundException(WebhookMessages.notFound);
    const row = await this.endpoints
      .findOne({ _id: new Types.ObjectId(endpointId), owner: new Types.ObjectId(user.id) })
      .lean<EndpointRow>();
    if (!row) throw new NotFoundException(WebhookMessages.notFound);
    return row;
  }

  /** The URL as it will be kept, or a 422 saying why it may not be an endpoint. */
  private async checkedUrl(raw: string): Promise<string> {
    try {
      const url = parseWebhookUrl(raw.trim(), this.sender.policy);
      await resolveChecked(hostOf(url), this.sender.policy);
      return url.toString();
    } catch (err) {
      if (err instanceof UnsafeWebhookUrl) throw new UnprocessableEntityException(err.message);
      throw new HttpException(String(err), HttpStatus.INTERNAL_SERVER_ERROR);
    }
  }
}

function viewOf(row: EndpointRow): WebhookEndpointView {
  return {
    id: String(row._id),
    url: row.url,
    events: row.events,
    enabled: row.enabled,
    secretPreview: row.secret.slice(0, WEBHOOK_SECRET_PREFIX.length + 4),
    createdAt: row.createdAt.toISOString(),
    ...(row.failingSince ? { failingSince: row.failingSince.toISOString() } : {}),
    ...(row.disabledAt ? { disabledAt: row.disabledAt.toISOString() } : {}),
    ...(row.disabledReason ? { disabledReason: row.disabledReason } : {}),
  };
}

function deliveryViewOf(row: DeliveryRow): WebhookDeliveryView {
  return {
    id: row._id,
    endpointId: String(row.endpoint),
    type: row.type,
    status: row.status,
    attempts: row.attempts,
    ...(row.lastStatusCode !== undefined && row.lastStatusCode !== null
      ? { lastStatusCode: row.lastStatusCode }
      : {}),
    ...(row.lastError ? { lastError: row.lastError } : {}),
    ...(row.jobId ? { jobId: row.jobId } : {}),
    createdAt: row.createdAt.toISOString(),
    ...(row.lastAttemptAt ? { lastAttemptAt: row.lastAttemptAt.toISOString() } : {}),
    ...(row.status === 'pending' && row.nextAttemptAt
      ? { nextAttemptAt: row.nextAttemptAt.toISOString() }
      : {}),
    ...(row.deliveredAt ? { deliveredAt: row.deliveredAt.toISOString() } : {}),
  };
}
