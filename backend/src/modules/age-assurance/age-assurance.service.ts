import { ConflictException, ForbiddenException, Inject, Injectable, NotFoundException } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import {
  Messages,
  AGE_CHECK_PATH,
  AgeAssuranceMessages,
  AuditCategory,
  needsAgeAssurance,
  SAFETY_REASONS,
  TOOL_LABELS,
  type AgeAssuranceMethod,
  type AgeAssuranceRecordView,
  type AgeAssuranceStatus,
  type CardCheckStart,
  type JobTool,
  type SafetyReason,
} from '@studio/contracts';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AccountsRepository } from '../accounts';
import { AuditService } from '../audit';
import type { AuthUser } from '../auth';
import { AgeAssurance } from './age-assurance.schema';
import { AgeProviderCheck } from './age-provider-check.schema';
import { CardCheckPort } from './card-check.port';
import { SafetyLog, SafetyRefusal } from '../content-safety';

/**
 * Who is age-assured, and the gate in front of the tools that can make sexual content of a person
 * (Ofcom's Part 5 guidance: the check comes before any such content, and self-declaration does not
 * count). Every refusal is written to the activity log with its reason code.
 */
@Injectable()
export class AgeAssuranceService {
  constructor(
    @InjectModel(AgeAssurance.name) private readonly assurances: Model<AgeAssurance>,
    @InjectModel(AgeProviderCheck.name) private readonly providerChecks: Model<AgeProviderCheck>,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly cardCheck: CardCheckPort,
    private readonly accounts: AccountsRepository,
    private readonly audit: AuditService,
    private readonly safetyLog: SafetyLog,
  ) {}

  get required(): boolean {
    return this.config.AGE_ASSURANCE === 'required';
  }

  async status(userId: string): Promise<AgeAssuranceStatus> {
    const record = await this.assurances.findById(userId).lean();
    return {
      required: this.required,
      assured: !!record,
      ...(record ? { method: record.method, assuredAt: record.assuredAt.toISOString() } : {}),
      ...(this.config.PERSONA_API_KEY ? { provider: 'persona' as const } : {}),
    };
  }

  /**
   * Whether the account may be shown sexual content: the gate is off (AGE_ASSURANCE=off), or the
   * account passed a check. Asked by the worker when it judges a job's outputs.
   */
  async maySeeSexualContent(userId: string): Promise<boolean> {
    return !this.required || !!(await this.assurances.exists({ _id: userId }));
  }

  /** What is kept of the account's check, for its export: method, time and the provider's reference. */
  async recordOf(userId: string): Promise<AgeAssuranceRecordView | null> {
    const record = await this.assurances.findById(userId).lean();
    return record
      ? { method: record.method, assuredAt: record.assuredAt.toISOString(), reference: record.reference }
      : null;
  }

  async statusOf(username: string): Promise<AgeAssuranceStatus> {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException(Messages.notFound);
    return this.status(account.id);
  }

  /** Refuses (403, age_not_assured) a request that needs an assured account, before anything is stored or charged. */
  async assertAllowed(
    user: AuthUser,
    tool: JobTool,
    request?: { tags?: Record<string, string>; prompt?: string },
  ): Promise<void> {
    if (!this.required || !needsAgeAssurance(tool, request)) return;
    if (await this.assurances.exists({ _id: user.id })) return;
    await this.refuse(user, 'age_not_assured', `${TOOL_LABELS[tool]} refused`, tool);
  }

  /** Records the refusal (activity log, metrics) and throws it. */
  async refuse(user: AuthUser, reason: SafetyReason, what: string, tool?: JobTool): Promise<never> {
    await this.safetyLog.record({
      userId: user.id,
      username: user.username,
      action: 'refused',
      reason,
      tool,
      detail: what,
    });
    throw new SafetyRefusal(reason);
  }

  async startCardCheck(user: AuthUser, origin: string): Promise<CardCheckStart> {
    const base = (this.config.PUBLIC_URL ?? origin).replace(/\/$/, '');
    const session = await this.cardCheck.start(
      {
        userId: user.id,
        successUrl: `${base}${AGE_CHECK_PATH}?session={CHECKOUT_SESSION_ID}`,
        cancelUrl: `${base}${AGE_CHECK_PATH}`,
      },
      base,
    );
    return { sessionId: session.id, url: session.url };
  }

  /**
   * Reads the check back from the provider (never from the browser): the card must have been
   * confirmed by its issuer and be a credit card. The card is removed at the provider either way.
   */
  async completeCardCheck(user: AuthUser, sessionId: string): Promise<AgeAssuranceStatus> {
    const check = await this.cardCheck.inspect(sessionId);
    if (!check || check.userId !== user.id) throw new NotFoundException(AgeAssuranceMessages.checkNotFound);
    if (check.paymentMethodId) await this.cardCheck.forget(check.paymentMethodId);
    if (!check.confirmed) {
      throw new ConflictException({
        message: SAFETY_REASONS.card_check_incomplete,
        extra: { reason: 'card_check_incomplete' },
      });
    }
    if (check.funding !== 'credit') {
      await this.refuse(user, 'card_not_credit', `Card age check not passed (${check.funding} card)`);
    }
    if (!(await this.assure(user, 'credit_card', check.reference, 'Age assured by a credit card check.'))) {
      throw new ConflictException(AgeAssuranceMessages.alreadyAssured);
    }
    return this.status(user.id);
  }

  /** Staff record a check made outside the studio (an ID seen on a call, say): who and why go to the log. */
  async recordManualCheck(actor: AuthUser, username: string, reason: string): Promise<AgeAssuranceStatus> {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException(Messages.notFound);
    // like credits, staff never vouch for themselves: the check is someone else's word
    if (account.id === actor.id) throw new ForbiddenException(AgeAssuranceMessages.notForYourself);
    const subject = { id: account.id, username: account.username };
    const recorded = await this.assure(
      subject,
      'manual',
      actor.username,
      `Recorded a manual age check for ${account.username}.`,
      actor,
      reason,
    );
    if (!recorded) throw new ConflictException(AgeAssuranceMessages.alreadyAssured);
    return this.status(subject.id);
  }

  /**
   * Records a passed check. The first check stands: a second one (or the same one again: a
   * replayed webhook) changes nothing, writes no second line, and answers false.
   */
  async assure(
    subject: { id: string; username: string },
    method: AgeAssuranceMethod,
    reference: string,
    message: string,
    actor?: AuthUser,
    detail?: string,
  ): Promise<boolean> {
    const result = await this.assurances.updateOne(
      { _id: subject.id },
      { $setOnInsert: { method, reference, assuredAt: new Date() } },
      { upsert: true },
    );
    if (result.upsertedCount === 0) return false;
    await this.audit.append({
      category: AuditCategory.safety,
      author: actor
        ? { userId: actor.id, username: actor.username }
        : { userId: subject.id, username: subject.username },
      message,
      detail: [`Method: ${method}`, detail].filter(Boolean).join(' · '),
    });
    return true;
  }

  /** Account deletion: the record, and the references of checks started at a provider, go with the account. */
  async forgetAccount(userId: string): Promise<void> {
    await this.providerChecks.deleteMany({ userId });
    await this.assurances.deleteOne({ _id: userId });
  }
}
