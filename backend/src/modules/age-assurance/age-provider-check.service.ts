import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
} from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import {
  AGE_CHECK_PATH,
  AgeAssuranceMessages,
  type AgeAssuranceStatus,
  type ProviderCheckStart,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AccountsRepository } from '../accounts';
import type { AuthUser } from '../auth';
import { SafetyLog, SafetyRefusal } from '../content-safety';
import { AgeProviderCheck } from './age-provider-check.schema';
import { AgeProviderPort, WebhookRejected, type ProviderCheck } from './age-provider.port';
import { AgeAssuranceService } from './age-assurance.service';

/** What a webhook did, in its 200 answer (an error would only make the provider send it again). */
export interface ProviderWebhookOutcome {
  outcome: 'approved' | 'declined' | 'pending' | 'ignored';
  /** Settled earlier (a replay, or the user's own read-back came first): nothing changed now. */
  alreadySettled?: boolean;
  ignored?: 'unknown_check' | 'not_an_inquiry' | 'account_mismatch';
}

/**
 * The external provider's age check: started for the caller, settled from the provider's own
 * record (after its signed webhook, or when the user comes back) exactly once.
 */
@Injectable()
export class AgeProviderCheckService {
  private readonly logger = new Logger(AgeProviderCheckService.name);

  constructor(
    @InjectModel(AgeProviderCheck.name) private readonly checks: Model<AgeProviderCheck>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly provider: AgeProviderPort,
    private readonly assurance: AgeAssuranceService,
    private readonly accounts: AccountsRepository,
    private readonly safetyLog: SafetyLog,
  ) {}

  async start(user: AuthUser, origin: string): Promise<ProviderCheckStart> {
    if ((await this.assurance.status(user.id)).assured) {
      throw new ConflictException(AgeAssuranceMessages.alreadyAssured);
    }
    const base = (this.config.PUBLIC_URL ?? origin).replace(/\/$/, '');
    const started = await this.provider.start({ userId: user.id, returnUrl: `${base}${AGE_CHECK_PATH}` });
    await this.checks.create({
      _id: started.reference,
      userId: user.id,
      provider: this.provider.name,
      createdAt: new Date(),
    });
    return started;
  }

  /** The user is back from the provider's flow: the check is read from the provider, not the browser. */
  async complete(user: AuthUser, reference: string): Promise<AgeAssuranceStatus> {
    const record = await this.checks.findById(reference).lean();
    if (!record || record.userId !== user.id) {
      throw new NotFoundException(AgeAssuranceMessages.providerCheckNotFound);
    }
    const settled = await this.settle(record);
    if (settled.outcome === 'pending') throw new ConflictException(AgeAssuranceMessages.providerCheckPending);
    // logged once, when it was settled (here or by the webhook): the answer only says so
    if (settled.outcome === 'declined') throw new SafetyRefusal('age_check_declined');
    if (settled.outcome === 'ignored')
      throw new NotFoundException(AgeAssuranceMessages.providerCheckNotFound);
    return this.assurance.status(user.id);
  }

  /**
   * A webhook from the provider: refused (400) unless its signature and time verify; otherwise
   * the check it names is read back from the provider and settled once. Events for checks this
   * studio did not start change nothing.
   */
  async handleWebhook(
    rawBody: Buffer | undefined,
    signature: string | undefined,
  ): Promise<ProviderWebhookOutcome> {
    if (!rawBody) throw new BadRequestException(AgeAssuranceMessages.badSignature);
    let reference: string;
    try {
      ({ reference } = this.provider.verifyWebhook(rawBody, signature, new Date()));
    } catch (err) {
      if (err instanceof WebhookRejected) {
        throw new BadRequestException(
          err.why === 'stale' ? AgeAssuranceMessages.staleSignature : AgeAssuranceMessages.badSignature,
        );
      }
      throw new BadRequestException(AgeAssuranceMessages.badSignature);
    }
    if (!reference) return { outcome: 'ignored', ignored: 'not_an_inquiry' };
    const record = await this.checks.findById(reference).lean();
    if (!record) {
      this.logger.warn(`signed webhook names check ${reference}, not started here`);
      return { outcome: 'ignored', ignored: 'unknown_check' };
    }
    return this.settle(record);
  }

  /**
   * Reads the check from the provider (its current state decides: the order events arrive in does
   * not) and applies a final state once: approved assures the account it was started for, declined
   * is logged. Whoever comes second (a replay, the user's read-back) finds it settled.
   */
  private async settle(record: AgeProviderCheck): Promise<ProviderWebhookOutcome> {
    if (record.outcome) return { outcome: record.outcome, alreadySettled: true };
    const check = await this.provider.retrieve(record._id);
    if (!check) return { outcome: 'ignored', ignored: 'unknown_check' };
    if (check.userId !== record.userId) {
      // The provider's record names another account than the one this check was started for.
      this.logger.warn(
        `check ${record._id} was started for ${record.userId}, the provider says ${check.userId}`,
      );
      return { outcome: 'ignored', ignored: 'account_mismatch' };
    }
    if (check.state === 'pending') return { outcome: 'pending' };
    const account = await this.accounts.findById(record.userId);
    if (!account) return { outcome: 'ignored', ignored: 'unknown_check' };
    const subject = { id: account.id, username: account.username };
    if (check.state === 'approved') {
      // assure() is the idempotent step (the account's record is inserted once); marking the
      // check after it means a crash in between is finished by the next delivery, never doubled.
      await this.assurance.assure(
        subject,
        'provider',
        check.reference,
        `Age assured by ${this.provider.name} (${check.providerStatus}).`,
      );
    }
    const marked = await this.checks.updateOne(
      { _id: record._id, outcome: { $exists: false } },
      { $set: { outcome: check.state, settledAt: new Date() } },
    );
    if (marked.modifiedCount === 0) return { outcome: check.state, alreadySettled: true };
    if (check.state === 'declined') await this.logDeclined(subject, check);
    return { outcome: check.state };
  }

  private async logDeclined(subject: { id: string; username: string }, check: ProviderCheck): Promise<void> {
    await this.safetyLog.record({
      userId: subject.id,
      username: subject.username,
      action: 'refused',
      reason: 'age_check_declined',
      detail: `Age check at ${this.provider.name} not passed (${check.providerStatus}, ${check.reference})`,
    });
  }
}
