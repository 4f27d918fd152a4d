import { Injectable, Logger, NotFoundException } from '@nestjs/common';
import { ModuleRef } from '@nestjs/core';
import { InjectModel } from '@nestjs/mongoose';
import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { Model, Types } from 'mongoose';
import { ZipFile } from 'yazl';
import { DomainEvents, RESERVED_USERNAME_PREFIX, SocketRooms, type ProfileContent } from '@studio/contracts';
import { toCsv } from '../../common/csv';
import { AccountSecurityService, AccountTokens, AccountsRepository } from '../accounts';
import { AgeAssuranceService } from '../age-assurance';
import { ApiKeysService } from '../api-keys';
import { type AuthUser, SessionRevoker } from '../auth';
import { PaymentsPort, LedgerEntry } from '../billing';
import { DomainEventBus } from '../events';
import { ContentItem, InpaintBatch, Folder, FoldersService } from '../folders';
import { Job } from '../generation';
import { MailService, MailTemplates } from '../mail';
import { RealtimePublisher } from '../realtime';
import { StoragePort } from '../storage';

/**
 * The name a deleted account's ledger entries and audit lines keep: random, drawn once per
 * deletion (nothing derived from the id or name, so nothing to reverse), under a prefix nobody
 * may register (RESERVED_USERNAME_PREFIX).
 */
export const newAnonymousName = () => `${RESERVED_USERNAME_PREFIX}${randomBytes(8).toString('hex')}`;

/** A folder title as a zip folder name: no path separators, dots first or control characters. */
const safeName = (title: string) =>
  title
    .replace(/[^A-Za-z0-9 _.-]+/g, '_')
    .replace(/\.{2,}/g, '_')
    .replace(/^[.\s]+/, '')
    .slice(0, 60)
    .trim() || 'folder';

/**
 * The caller's data across modules: their profile with their folders, everything in one zip, or
 * everything gone.
 */
@Injectable()
export class AccountDataService {
  private readonly logger = new Logger(AccountDataService.name);

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly security: AccountSecurityService,
    private readonly tokens: AccountTokens,
    private readonly storage: StoragePort,
    private readonly sessions: SessionRevoker,
    private readonly realtime: RealtimePublisher,
    private readonly events: DomainEventBus,
    private readonly mail: MailService,
    private readonly moduleRef: ModuleRef,
    private readonly folderService: FoldersService,
    private readonly ageAssurance: AgeAssuranceService,
    private readonly apiKeys: ApiKeysService,
    @InjectModel(ContentItem.name) private readonly items: Model<ContentItem>,
    @InjectModel(InpaintBatch.name) private readonly batches: Model<InpaintBatch>,
    @InjectModel(Folder.name) private readonly folders: Model<Folder>,
    @InjectModel(Job.name) private readonly jobs: Model<Job>,
    @InjectModel(LedgerEntry.name) private readonly ledger: Model<LedgerEntry>,
  ) {}

  /** The owner sees everything; anyone else only the public part (name and badges). */
  async profile(viewer: AuthUser, username: string): Promise<ProfileContent> {
    const account = await this.accounts.findByUsername(username);
    if (!account) throw new NotFoundException('User not found');
    const publicPart = { username: account.username, verified: account.verified, early: account.early };
    if (account.id !== viewer.id) return { ...publicPart, own: false };
    return {
      ...publicPart,
      own: true,
      role: account.role,
      balance: account.balance,
      folders: await this.folderService.summaries(viewer),
    };
  }

  /**
   * A zip, streamed as it is made: account.json, credit-history.csv, jobs.csv and each item under
   * items/<folder>/. Files are read from the storage port one at a time, when the zip reaches them.
   * Taken-down items leave no file (the owner gets 410 or 451 on them elsewhere too): they are listed in
   * taken-down.csv with the reason instead.
   */
  async export(user: AuthUser): Promise<Readable> {
    const account = await this.security.requireAccount(user.id);
    const owner = new Types.ObjectId(user.id);
    const [folders, items, entries, jobs, ageAssurance] = await Promise.all([
      this.folders.find({ owner }).lean(),
      this.items.find({ owner }).sort({ createdAt: 1 }).lean(),
      this.ledger.find({ userId: owner, state: 'applied' }).sort({ createdAt: 1, _id: 1 }).lean(),
      this.jobs.find({ owner }).sort({ createdAt: 1 }).lean(),
      this.ageAssurance.recordOf(user.id),
    ]);
    const zip = new ZipFile();
    const json = {
      username: account.username,
      email: account.email,
      emailVerified: account.emailVerified,
      createdAt: account.createdAt?.toISOString(),
      balance: account.balance,
      folders: folders.map((f) => ({ id: String(f._id), title: f.title })),
      // method, time and the provider's reference: all the studio keeps of the check
      ageAssurance,
    };
    zip.addBuffer(Buffer.from(JSON.stringify(json, null, 2)), 'account.json');
    zip.addBuffer(
      Buffer.from(
        toCsv(
          ['date', 'kind', 'amount', 'balance_after', 'reason', 'tool', 'job_id', 'by'],
          entries.map((e) => [
            new Date(e.createdAt).toISOString(),
            e.kind,
            e.amount,
            e.balanceAfter,
            e.reason,
            e.tool,
            e.jobId,
            e.actor?.username,
          ]),
        ),
      ),
      'credit-history.csv',
    );
    zip.addBuffer(
      Buffer.from(
        toCsv(
          ['date', 'job_id', 'tool', 'state', 'cost', 'outputs'],
          jobs.map((j) => [
            new Date(j.createdAt).toISOString(),
            String(j._id),
            j.tool,
            j.state,
            j.cost,
            j.outputs?.length ?? 0,
          ]),
        ),
      ),
      'jobs.csv',
    );
    const folderNames = new Map(
      folders.map((f) => [String(f._id), `${safeName(f.title)}-${String(f._id).slice(-6)}`]),
    );
    const takenDown = items.filter((item) => item.takedown);
    if (takenDown.length) {
      zip.addBuffer(
        Buffer.from(
          toCsv(
            ['item_id', 'title', 'taken_down_at', 'reason'],
            takenDown.map((item) => [
              String(item._id),
              item.title,
              new Date(item.takedown!.at).toISOString(),
              item.takedown!.reason,
            ]),
          ),
        ),
        'taken-down.csv',
      );
    }
    for (const item of items.filter((row) => !row.takedown)) {
      const extension = item.storageKey.split('.').pop();
      const path = `items/${folderNames.get(String(item.folder)) ?? 'unfiled'}/${String(item._id)}.${extension}`;
      zip.addReadStreamLazy(path, (done) => {
        this.storage.get(item.storageKey).then(
          (object) => done(null, object?.stream ?? Readable.from([])),
          (err: unknown) => done(err, Readable.from([])),
        );
      });
    }
    zip.end();
    return zip.outputStream as Readable;
  }

  /**
   * Deletes the account after the password is confirmed. Each step can run again, so a request
   * cut short (a crash, a storage error) is finished by repeating it: the account document goes
   * last, and until then the password still works for the retry.
   *  1. sessions and sockets end (nothing more happens under this account meanwhile);
   *  2. every item's file, through the storage port, then the items, batches, folders and jobs;
   *  3. ledger entries stay for the books, their user name replaced by an anonymous one;
   *  4. the Stripe customer, if any, is deleted at Stripe;
   *  5. the tokens and the account; an audited event; a last mail to the address.
   */
  async delete(user: AuthUser, password: string): Promise<void> {
    const account = await this.security.requireAccount(user.id);
    await this.security.verifyPassword(account, password);
    const owner = new Types.ObjectId(account.id);

    await this.sessions.endAllSessionsOf(account.id);
    this.realtime.disconnectRoom(SocketRooms.user(account.id));

    const items = await this.items.find({ owner }).select({ storageKey: 1 }).lean();
    for (const item of items) await this.storage.delete(item.storageKey);
    await this.items.deleteMany({ owner });
    await this.batches.deleteMany({ owner });
    await this.folders.deleteMany({ owner });
    // The jobs' stored inputs (kept for "Run again") go with them.
    const jobs = await this.jobs.find({ owner }).select({ inputs: 1 }).lean();
    for (const key of jobs.flatMap((job) => job.inputs)) await this.storage.delete(key);
    await this.jobs.deleteMany({ owner });
    // the age check (method, time, reference) is personal data of this account: it goes too
    await this.ageAssurance.forgetAccount(account.id);
    await this.apiKeys.forgetAccount(account.id);

    // Only the display name: amounts, states and keys stay as billing wrote them. A retried
    // deletion draws a new name and sets it on every entry again, so they always share one.
    const anonymousName = newAnonymousName();
    const anonymised = await this.ledger.updateMany({ userId: owner }, { $set: { username: anonymousName } });

    if (account.stripeCustomerId) {
      const payments = this.moduleRef.get(PaymentsPort, { strict: false });
      if (payments.configured) await payments.deleteCustomer(account.stripeCustomerId);
      else this.logger.warn(`Stripe is not configured: customer ${account.stripeCustomerId} was not deleted`);
    }

    await this.tokens.revokeAll(account.id);
    await this.events.publish(DomainEvents.accountDeleted, {
      userId: account.id,
      // The pseudonym: the event (and the audit line made from it) keeps the id, not the name.
      username: anonymousName,
      items: items.length,
      ledgerEntries: anonymised.modifiedCount,
    });
    await this.accounts.remove(account.id);
    // Sessions begun while this ran (a login with the password) end too: the account is gone now.
    await this.sessions.endAllSessionsOf(account.id);
    this.mail.dispatch(account.email, MailTemplates.accountDeleted(account.username));
  }
}
