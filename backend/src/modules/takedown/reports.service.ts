import {
  BadRequestException,
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  NotFoundException,
  type OnApplicationBootstrap,
  type OnModuleDestroy,
} from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { readFile } from 'node:fs/promises';
import { isValidObjectId, Types, type Model } from 'mongoose';
import {
  REPORT_DEADLINE_HOURS,
  REPORT_LIMITS,
  ReportMessages,
  TRANSPARENCY_MAX_DAYS,
  type AppealDecisionInput,
  type ReportCategory,
  type ReportDecisionInput,
  type ReporterRole,
  type ReportReceipt,
  type ReportView,
  type TransparencyReport,
} from '@studio/contracts';
import { PeriodicTask } from '../../common/periodic-task';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import { AccountsRepository, AccountSuspensions } from '../accounts';
import { AuditService } from '../audit';
import type { AuthUser } from '../auth';
import { FoldersService } from '../folders';
import { MailService } from '../mail';
import { ProvenanceService } from '../provenance';
import { newStorageKey, StoragePort } from '../storage';
import { CopyFinder, type CopyFound, type StoredPrint } from './copy-finder';
import { ReceiptLimit } from './receipt-limit';
import { TakedownMails } from './takedown-mails';
import {
  RemovalAppeal,
  TakedownReport,
  type ReportMatch,
  type TakedownReportRecord,
} from './takedown.schemas';

const HOUR_MS = 3600_000;
const QUARANTINE_SWEEP_MS = HOUR_MS;

/** A report's fields as the public form sends them, checked by the controller. */
export interface NewReport {
  category: ReportCategory;
  reporterRole: ReporterRole;
  name: string;
  email: string;
  url?: string;
  explanation: string;
  signature: string;
  goodFaith: true;
}

/** The notice-and-removal process: receipt, copies found, the staff decision and its mails. */
@Injectable()
export class ReportsService implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ReportsService.name);
  private readonly sweeps = new PeriodicTask(() =>
    this.sweepQuarantine().then(
      () => undefined,
      (err: Error) => this.logger.warn(`quarantine sweep failed: ${err.message}`),
    ),
  );

  constructor(
    @InjectModel(TakedownReport.name) private readonly reports: Model<TakedownReport>,
    @InjectModel(RemovalAppeal.name) private readonly appeals: Model<RemovalAppeal>,
    private readonly copies: CopyFinder,
    private readonly provenance: ProvenanceService,
    private readonly folders: FoldersService,
    private readonly accounts: AccountsRepository,
    private readonly storage: StoragePort,
    private readonly mail: MailService,
    private readonly audit: AuditService,
    private readonly suspensions: AccountSuspensions,
    private readonly receipts: ReceiptLimit,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  onApplicationBootstrap(): void {
    this.sweeps.start(QUARANTINE_SWEEP_MS);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sweeps.stop();
  }

  /**
   * Records a notice with every stored copy found (watermark, exact and perceptual hashes), and
   * mails the receipt with the 48-hour deadline (within ReceiptLimit's few a day per mailbox; the
   * answer says whether it went). The uploaded copy is kept for the reviewer.
   */
  async submit(
    input: NewReport,
    file?: { path: string; kind: 'image' | 'video'; type: string },
  ): Promise<ReportReceipt> {
    const receivedAt = new Date();
    const deadline = new Date(receivedAt.getTime() + REPORT_DEADLINE_HOURS * HOUR_MS);
    const id = new Types.ObjectId();
    let fingerprint: StoredPrint | undefined;
    let matches: ReportMatch[] = [];
    let fileKey: string | undefined;
    if (file) {
      const data = await readFile(file.path);
      const traced = await this.provenance.traceOutput(file);
      fingerprint =
        file.kind === 'image'
          ? (await this.copies.fingerprint([data], false))[0]
          : await this.copies.fingerprintVideo(data, file.path);
      matches = await this.matchesFor(fingerprint, traced?.itemId);
      // Under the report's id (storage keys are `<24 hex>/<uuid>.<ext>`; served only as an attachment).
      fileKey = newStorageKey(id.toHexString(), file.kind === 'image' ? 'png' : 'mp4');
      await this.storage.forRequest().put(fileKey, data);
    }
    await this.reports.create({
      _id: id,
      status: 'open',
      category: input.category,
      reporterRole: input.reporterRole,
      reporter: { name: input.name, email: input.email },
      url: input.url,
      explanation: input.explanation,
      signature: input.signature,
      goodFaith: true,
      fileKey,
      fileType: file?.type,
      fingerprint,
      matches,
      receivedAt,
      deadline,
    });
    const reportId = id.toHexString();
    await this.audit.append({
      category: 'takedown',
      message: `report ${reportId} received (${input.category}; ${matches.length} stored cop${matches.length === 1 ? 'y' : 'ies'} matched); due ${deadline.toISOString()}`,
    });
    // Receipt without undue delay (DSA Art. 16(4)), unless the notice is anonymous, and at most a
    // few a day to one mailbox (the form takes any address: it must not mail a stranger at will).
    const receiptMailed = input.email ? await this.takeReceipt(input.email, reportId) : false;
    if (receiptMailed)
      this.mail.dispatch(input.email, TakedownMails.receipt({ id: reportId, receivedAt, deadline }));
    return {
      id: reportId,
      receivedAt: receivedAt.toISOString(),
      deadline: deadline.toISOString(),
      receiptMailed,
    };
  }

  /**
   * Whether the receipt may go (ReceiptLimit). The report is recorded by now: when the count
   * fails (Redis down or refusing the command), no receipt is mailed and the report is still
   * answered as received (201), so the sender has no reason to send it again. Logged without the
   * address.
   */
  private async takeReceipt(email: string, reportId: string): Promise<boolean> {
    let taken: boolean;
    try {
      taken = await this.receipts.take(email, reportId);
    } catch (err) {
      this.logger.warn(
        `report ${reportId}: no receipt mailed, the receipt count failed: ${(err as Error).message}`,
      );
      return false;
    }
    if (!taken)
      this.logger.log(
        `report ${reportId}: no receipt mailed, its address had ${REPORT_LIMITS.receiptsPerAddressPerDay} in 24 h`,
      );
    return taken;
  }

  /** The watermark's item first, then every output with the same or a near hash, with owners. */
  private async matchesFor(print: StoredPrint | undefined, tracedItemId?: string): Promise<ReportMatch[]> {
    const found = print ? await this.copies.findCopies(print) : [];
    const byItem = new Map<string, Omit<ReportMatch, 'ownerName'>>();
    if (tracedItemId) {
      const traced = await this.copies.printOf(tracedItemId);
      const owner = await this.folders.ownerOfItem(tracedItemId);
      if (owner)
        byItem.set(tracedItemId, { itemId: tracedItemId, ownerId: owner, method: 'watermark', distance: 0 });
      // The original's own hashes find its copies too (a copy of the watermarked file in other accounts).
      if (traced) for (const copy of await this.copies.findCopies(traced)) found.push(copy);
    }
    const seen = new Set(found.map((copy) => copy.itemId));
    for (const copy of await this.copies.sameBytes([...new Set(found.map((c) => c.sha256))])) {
      if (!seen.has(copy.itemId)) found.push(copy);
    }
    // Identical files (the same bytes): the earliest stored is the one matched, the others are
    // named its exact copies (the Act's "known identical copies"), wherever they are.
    const firstOfBytes = new Map<string, CopyFound>();
    for (const copy of [...found].sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())) {
      if (!firstOfBytes.has(copy.sha256)) firstOfBytes.set(copy.sha256, copy);
    }
    for (const copy of found) {
      if (byItem.has(copy.itemId)) continue;
      const first = firstOfBytes.get(copy.sha256)!;
      const { sha256: _sha, createdAt: _at, ...match } = copy;
      byItem.set(
        copy.itemId,
        first.itemId === copy.itemId
          ? match
          : { ...match, method: 'exact', distance: 0, copyOf: first.itemId },
      );
    }
    const names = new Map<string, string>();
    const matches: ReportMatch[] = [];
    for (const match of [...byItem.values()].slice(0, REPORT_LIMITS.maxMatches)) {
      if (!names.has(match.ownerId)) {
        names.set(match.ownerId, (await this.accounts.findById(match.ownerId))?.username ?? match.ownerId);
      }
      matches.push({ ...match, ownerName: names.get(match.ownerId)! });
    }
    return matches;
  }

  /** The staff queue: open reports first, by time left on their clock; then the decided ones. */
  async list(staff: AuthUser, status: 'open' | 'decided'): Promise<ReportView[]> {
    void staff; // staff only (enforced by the controller's roles)
    const filter = status === 'open' ? { status: 'open' } : { status: { $ne: 'open' } };
    const sort: Record<string, 1 | -1> = status === 'open' ? { deadline: 1 } : { receivedAt: -1 };
    const rows = (await this.reports.find(filter).sort(sort).limit(200).lean()) as TakedownReportRecord[];
    const appeals = await this.appealsOf(rows.filter((row) => row.status === 'removed'));
    return rows.map((row) => toView(row, appeals));
  }

  async get(staff: AuthUser, id: string): Promise<ReportView> {
    const report = await this.require(id);
    return toView(report, await this.appealsOf([report]));
  }

  /** The appeals against these reports' removals, by `${reportId}:${itemId}`. */
  private async appealsOf(reports: TakedownReportRecord[]): Promise<Map<string, AppealRow>> {
    if (reports.length === 0) return new Map();
    const rows = await this.appeals.find({ reportId: { $in: reports.map((r) => String(r._id)) } }).lean();
    return new Map(rows.map((row) => [row._id, { text: row.text, at: row.at, decision: row.decision }]));
  }

  /** The reported copy as uploaded (staff review it before deciding). */
  async file(staff: AuthUser, id: string): Promise<{ data: Buffer; type: string }> {
    const report = await this.require(id);
    const data = report.fileKey ? await this.storage.forRequest().read(report.fileKey) : null;
    if (!data) throw new NotFoundException(ReportMessages.notFound);
    return { data, type: report.fileType ?? 'application/octet-stream' };
  }

  /**
   * Decides a report once. Remove: every matched item in every account is taken down (file
   * deleted, its address answers 410 Gone), the pictures go on the block list, each owner gets a
   * statement of reasons with the way to appeal; the reporter is told the outcome either way.
   */
  async decide(staff: AuthUser, id: string, input: ReportDecisionInput): Promise<ReportView> {
    const reason = input.reason?.trim();
    if (!reason) throw new BadRequestException(ReportMessages.reasonRequired);
    const report = await this.require(id);
    const decision = { action: input.action, reason, by: staff.username, byId: staff.id, at: new Date() };
    // The guard makes the decision once, even when two staff press at the same moment.
    const claimed = await this.reports.updateOne(
      { _id: report._id, status: 'open' },
      { $set: { status: input.action === 'remove' ? 'removed' : 'rejected', decision } },
    );
    if (claimed.modifiedCount !== 1) throw new ConflictException(ReportMessages.alreadyDecided);
    await this.audit.append({
      category: 'takedown',
      author: { userId: staff.id, username: staff.username },
      message: `${staff.username} decided report ${id}: ${input.action} (${report.matches.length} matched item(s))`,
      detail: reason,
    });
    let removed = 0;
    if (input.action === 'remove') {
      removed = await this.removeAll(staff, report, reason);
      for (const ownerId of new Set(report.matches.map((m) => m.ownerId))) {
        await this.suspendIfRepeated(staff, ownerId, id, reason);
      }
    }
    // The reported copy was kept for the review only (its hashes stay with the report); the record
    // forgets it too, so the staff page offers no download that would answer 404.
    if (report.fileKey) {
      await this.storage.delete(report.fileKey);
      await this.reports.updateOne({ _id: report._id }, { $unset: { fileKey: 1 } });
    }
    if (report.reporter.email) {
      this.mail.dispatch(
        report.reporter.email,
        TakedownMails.decision({ id }, input.action, reason, removed),
      );
    }
    await this.audit.append({
      category: 'takedown',
      author: { userId: staff.id, username: staff.username },
      message: `report ${id}: reporter told the decision (${input.action})`,
    });
    return toView(await this.require(id));
  }

  private async removeAll(staff: AuthUser, report: TakedownReportRecord, reason: string): Promise<number> {
    const id = report._id.toHexString();
    const blocked: { key: string; print: StoredPrint }[] = [];
    if (report.fingerprint) blocked.push({ key: 'upload', print: report.fingerprint });
    // Child sexual abuse material is not kept for an appeal (docs/takedown.md); everything else is
    // quarantined until the appeal window closes, so a founded appeal can restore it (Art. 20(4)).
    const keep = report.category !== 'child_sexual_abuse';
    let removed = 0;
    /** What each owner lost: one statement of reasons per owner and decision, listing every copy. */
    const removedOf = new Map<string, { itemId: string; title?: string }[]>();
    for (const [index, match] of report.matches.entries()) {
      const print = await this.copies.printOf(match.itemId);
      if (print) blocked.push({ key: match.itemId, print });
      // Hashes first: a copy made while the removal runs is already refused.
      await this.copies.block(id, blocked.slice(-1));
      let title: string | undefined;
      let quarantineKey: string | undefined;
      if (match.input) {
        // A picture the owner gave a tool: its stored copy goes, its address answers 410.
        quarantineKey = keep ? await this.quarantine(id, match.input.storageKey) : undefined;
        await this.storage.delete(match.input.storageKey);
        title = `the picture you gave job ${match.input.jobId}`;
      } else {
        const stored = keep ? await this.folders.storedItem(match.itemId) : null;
        quarantineKey = stored ? await this.quarantine(id, stored.storageKey) : undefined;
        const item = await this.folders
          .takeDown(staff, match.itemId, { reason: `Removed after report ${id}: ${reason}`, mode: 'delete' })
          .catch((err: unknown) => {
            if (err instanceof NotFoundException) return null; // deleted by its owner meanwhile
            throw err;
          });
        title = item?.title;
      }
      // By index (the list is fixed once the report is filed; FerretDB has no positional `$`).
      await this.reports.updateOne(
        { _id: report._id },
        {
          $set: {
            [`matches.${index}.removed`]: true,
            ...(quarantineKey ? { [`matches.${index}.quarantineKey`]: quarantineKey } : {}),
          },
        },
      );
      removed++;
      removedOf.set(match.ownerId, [
        ...(removedOf.get(match.ownerId) ?? []),
        { itemId: match.itemId, title },
      ]);
      await this.audit.append({
        category: 'takedown',
        author: { userId: staff.id, username: staff.username },
        message: `report ${id}: ${match.input ? 'stored input' : 'item'} ${match.itemId} of ${match.ownerName} removed (${match.method}); statement of reasons sent`,
      });
    }
    await this.copies.block(id, blocked);
    const at = new Date();
    for (const [ownerId, items] of removedOf) {
      const owner = await this.accounts.findById(ownerId);
      if (!owner) continue;
      this.mail.dispatch(
        owner.email,
        TakedownMails.statementOfReasons(
          { reportId: id, at },
          items.map((item) => ({
            ...item,
            appealUrl: this.mail.link(`/appeal?item=${encodeURIComponent(item.itemId)}`),
          })),
          reason,
        ),
      );
    }
    return removed;
  }

  /** A copy of a removed file under the report's id, never served; undefined when the file is gone. */
  private async quarantine(reportId: string, storageKey: string): Promise<string | undefined> {
    const data = await this.storage.read(storageKey);
    if (!data) return undefined;
    const ext = (storageKey.split('.').pop() ?? 'png') as 'png' | 'jpg' | 'webp' | 'mp4';
    const key = newStorageKey(reportId, ['png', 'jpg', 'webp', 'mp4'].includes(ext) ? ext : 'png');
    await this.storage.put(key, data);
    return key;
  }

  /**
   * Staff decide an owner's appeal (DSA Art. 20(4)), once, and not the person who decided the
   * removal. Upheld: the removal stands and the quarantined file is deleted. Reversed: the file is
   * put back (the item visible again, or the job's input served again), its hashes leave the block
   * list. The owner is told either way; the audit log records it.
   */
  async decideAppeal(
    staff: AuthUser,
    reportId: string,
    itemId: string,
    input: AppealDecisionInput,
  ): Promise<ReportView> {
    const reason = input.reason?.trim();
    if (!reason) throw new BadRequestException(ReportMessages.reasonRequired);
    if (reason.length > REPORT_LIMITS.reasonChars) throw new BadRequestException(ReportMessages.tooLong);
    const report = await this.require(reportId);
    const index = report.matches.findIndex((m) => m.itemId === itemId);
    const appeal = await this.appeals.findById(`${reportId}:${itemId}`).lean();
    if (index < 0 || !appeal) throw new NotFoundException(ReportMessages.noAppeal);
    if (report.decision?.byId === staff.id) throw new ForbiddenException(ReportMessages.appealSameStaff);
    const decision = { outcome: input.outcome, reason, by: staff.username, byId: staff.id, at: new Date() };
    const claimed = await this.appeals.updateOne(
      { _id: appeal._id, decision: { $exists: false } },
      { $set: { decision } },
    );
    if (claimed.modifiedCount !== 1) throw new ConflictException(ReportMessages.appealDecided);
    const match = report.matches[index];
    let restored = false;
    if (input.outcome === 'reversed') {
      // Without its kept file (child sexual abuse material is never kept) the item stays down:
      // a visible item with no file would only answer 404; the owner is told it could not be restored.
      const file = match.quarantineKey ? await this.storage.read(match.quarantineKey) : null;
      if (file && match.input) {
        await this.storage.put(match.input.storageKey, file);
        restored = true;
      } else if (file) {
        restored = await this.folders.reinstate(itemId, file);
      }
      await this.copies.unblock(reportId, itemId);
      await this.reports.updateOne({ _id: report._id }, { $set: { [`matches.${index}.removed`]: false } });
    }
    if (match.quarantineKey) {
      await this.storage.delete(match.quarantineKey);
      await this.reports.updateOne(
        { _id: report._id },
        { $unset: { [`matches.${index}.quarantineKey`]: 1 } },
      );
    }
    await this.audit.append({
      category: 'takedown',
      author: { userId: staff.id, username: staff.username },
      message: `${staff.username} decided the appeal of ${match.ownerName} on ${itemId} (report ${reportId}): ${input.outcome}${input.outcome === 'reversed' ? (restored ? '; file restored' : '; file could not be restored') : ''}; owner told`,
      detail: reason,
    });
    const owner = await this.accounts.findById(match.ownerId);
    if (owner) {
      this.mail.dispatch(
        owner.email,
        TakedownMails.appealDecision({ reportId, itemId }, input.outcome, reason, restored),
      );
    }
    if (input.outcome === 'reversed') await this.liftIfBelow(staff, match.ownerId, reportId);
    return this.get(staff, reportId);
  }

  /**
   * The owner's confirmed removals: reports that removed at least one of their items and whose
   * removal of it stands (a reversed appeal sets the match back to not removed). Counted from the
   * records (statuses and owner ids), never from anything a user wrote; one report counts once
   * however many of the owner's copies it matched.
   */
  async confirmedRemovals(ownerId: string): Promise<number> {
    const rows = (await this.reports
      .find({ status: 'removed', 'matches.ownerId': ownerId })
      .select({ matches: 1 })
      .lean()) as Pick<TakedownReportRecord, 'matches'>[];
    return rows.filter((row) => row.matches.some((m) => m.ownerId === ownerId && m.removed)).length;
  }

  /**
   * A removal that brings an owner to TAKEDOWN_SUSPEND_AFTER suspends the account (its sessions
   * end, login and API keys are refused; accounts' AccountSuspensions) and mails the owner a
   * statement of reasons (DSA Art. 17 covers suspensions too). Once: an account already suspended
   * is left as it is.
   */
  private async suspendIfRepeated(
    staff: AuthUser,
    ownerId: string,
    reportId: string,
    reason: string,
  ): Promise<void> {
    const after = this.config.TAKEDOWN_SUSPEND_AFTER;
    if (after === 0) return;
    const removals = await this.confirmedRemovals(ownerId);
    if (removals < after) return;
    const owner = await this.suspensions.suspend(
      ownerId,
      { reason: 'repeated_removals', reportId, removals },
      { userId: staff.id, username: staff.username },
    );
    if (owner) {
      this.mail.dispatch(
        owner.email,
        TakedownMails.suspension({ reportId, removals, at: new Date() }, reason, after),
      );
    }
  }

  /**
   * A founded appeal reverses the decision (DSA Art. 20(4)), the suspension it led to included:
   * when the owner is now below the count, the suspension is lifted and the owner told.
   */
  private async liftIfBelow(staff: AuthUser, ownerId: string, reportId: string): Promise<void> {
    const after = this.config.TAKEDOWN_SUSPEND_AFTER;
    if (after > 0 && (await this.confirmedRemovals(ownerId)) >= after) return;
    const owner = await this.suspensions.lift(
      ownerId,
      'appeal',
      { userId: staff.id, username: staff.username },
      reportId,
    );
    if (owner) this.mail.dispatch(owner.email, TakedownMails.suspensionLifted({ reportId }));
  }

  /**
   * Deletes the quarantined files of removals whose appeal window has closed with no appeal
   * pending (hourly, and on demand in the tests). Returns how many files went.
   */
  async sweepQuarantine(now = new Date()): Promise<number> {
    const closedBefore = new Date(now.getTime() - REPORT_LIMITS.appealDays * 24 * HOUR_MS);
    const due = (await this.reports
      .find({
        status: 'removed',
        'decision.at': { $lte: closedBefore },
        quarantineClearedAt: { $exists: false },
      })
      .limit(200)
      .lean()) as TakedownReportRecord[];
    let deleted = 0;
    for (const report of due) {
      const appeals = await this.appealsOf([report]);
      const unset: Record<string, 1> = {};
      let pending = false;
      for (const [index, match] of report.matches.entries()) {
        if (!match.quarantineKey) continue;
        const appeal = appeals.get(`${String(report._id)}:${match.itemId}`);
        if (appeal && !appeal.decision) {
          pending = true; // filed in time: kept until it is decided
          continue;
        }
        await this.storage.delete(match.quarantineKey);
        unset[`matches.${index}.quarantineKey`] = 1;
        deleted++;
      }
      await this.reports.updateOne(
        { _id: report._id },
        {
          ...(Object.keys(unset).length ? { $unset: unset } : {}),
          ...(pending ? {} : { $set: { quarantineClearedAt: now } }),
        },
      );
    }
    if (deleted > 0) {
      await this.audit.append({
        category: 'takedown',
        message: `${deleted} quarantined file(s) deleted: their appeal window closed`,
      });
    }
    return deleted;
  }

  /**
   * The counts of a transparency report over [from, to): from statuses and timestamps only.
   * Received by `receivedAt`; decisions, and their times, by the decision's date; appeals by
   * their filing and decision dates.
   */
  async transparency(fromText: string, toText: string): Promise<TransparencyReport> {
    const from = new Date(fromText);
    const to = new Date(toText);
    if (
      Number.isNaN(from.getTime()) ||
      Number.isNaN(to.getTime()) ||
      to <= from ||
      to.getTime() - from.getTime() > TRANSPARENCY_MAX_DAYS * 24 * HOUR_MS
    ) {
      throw new BadRequestException(ReportMessages.badPeriod);
    }
    const [received, openAtEnd, decided, appealed, appealDecisions] = await Promise.all([
      this.reports.countDocuments({ receivedAt: { $gte: from, $lt: to } }),
      this.reports.countDocuments({
        receivedAt: { $gte: from, $lt: to },
        $or: [{ status: 'open' }, { 'decision.at': { $gte: to } }],
      }),
      this.reports
        .find({ 'decision.at': { $gte: from, $lt: to } })
        .select({ status: 1, receivedAt: 1, 'decision.at': 1, 'decision.action': 1, 'matches.removed': 1 })
        .lean(),
      this.appeals.countDocuments({ at: { $gte: from, $lt: to } }),
      this.appeals
        .find({ 'decision.at': { $gte: from, $lt: to } })
        .select({ 'decision.outcome': 1 })
        .lean(),
    ]);
    const hours = decided
      .map((r) => (r.decision!.at.getTime() - r.receivedAt.getTime()) / HOUR_MS)
      .sort((a, b) => a - b);
    const round = (value: number | null) => (value === null ? null : Math.round(value * 100) / 100);
    return {
      from: from.toISOString(),
      to: to.toISOString(),
      received,
      removed: decided.filter((r) => r.decision!.action === 'remove').length,
      rejected: decided.filter((r) => r.decision!.action === 'reject').length,
      // Items removed by those decisions (a reversed appeal later sets `removed` back: not counted).
      itemsRemoved: decided
        .filter((r) => r.decision!.action === 'remove')
        .reduce((sum, r) => sum + r.matches.filter((m) => m.removed).length, 0),
      appealed,
      appealsUpheld: appealDecisions.filter((a) => a.decision!.outcome === 'upheld').length,
      appealsReversed: appealDecisions.filter((a) => a.decision!.outcome === 'reversed').length,
      medianHoursToDecision: round(percentile(hours, 0.5)),
      p95HoursToDecision: round(percentile(hours, 0.95)),
      decidedWithin48h:
        hours.length === 0
          ? null
          : round(hours.filter((h) => h <= REPORT_DEADLINE_HOURS).length / hours.length),
      openAtEnd,
    };
  }

  /** The owner's one appeal against a removal (DSA Art. 20): recorded, audited, back in the queue. */
  async appeal(owner: AuthUser, itemId: string, text: string): Promise<{ reportId: string }> {
    const appealText = text?.trim();
    if (!appealText) throw new BadRequestException(ReportMessages.explanationRequired);
    if (appealText.length > REPORT_LIMITS.explanationChars)
      throw new BadRequestException(ReportMessages.tooLong);
    const report = await this.reports.findOne({ status: 'removed', 'matches.itemId': itemId }).lean();
    const removal = report?.matches.find((m) => m.itemId === itemId && m.ownerId === owner.id && m.removed);
    if (!report || !removal) throw new NotFoundException(ReportMessages.notFound);
    const decidedAt = report.decision?.at.getTime() ?? 0;
    if (Date.now() > decidedAt + REPORT_LIMITS.appealDays * 24 * HOUR_MS) {
      throw new ForbiddenException(ReportMessages.appealTooLate);
    }
    try {
      // One appeal per removed item: its id is the key, so a second one is a duplicate.
      await this.appeals.create({
        _id: `${String(report._id)}:${itemId}`,
        reportId: String(report._id),
        itemId,
        ownerId: owner.id,
        text: appealText,
        at: new Date(),
      });
    } catch (err) {
      if ((err as { code?: number }).code === 11000)
        throw new ConflictException(ReportMessages.alreadyAppealed);
      throw err;
    }
    const reportId = String(report._id);
    await this.audit.append({
      category: 'takedown',
      author: { userId: owner.id, username: owner.username },
      message: `${owner.username} appealed the removal of item ${itemId} (report ${reportId})`,
    });
    return { reportId };
  }

  private async require(id: string): Promise<TakedownReportRecord> {
    const report = isValidObjectId(id) ? await this.reports.findById(id).lean() : null;
    if (!report) throw new NotFoundException(ReportMessages.notFound);
    return report as TakedownReportRecord;
  }
}

type AppealRow = Pick<RemovalAppeal, 'text' | 'at' | 'decision'>;

/** The nearest-rank percentile of sorted values (null when there are none). */
export function percentile(sorted: number[], p: number): number | null {
  if (sorted.length === 0) return null;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))];
}

export function toView(
  row: TakedownReportRecord,
  appeals: Map<string, AppealRow> = new Map(),
  now = Date.now(),
): ReportView {
  const msLeft = row.deadline.getTime() - now;
  return {
    id: String(row._id),
    status: row.status,
    category: row.category,
    reporterRole: row.reporterRole,
    reporter: row.reporter,
    ...(row.url ? { url: row.url } : {}),
    explanation: row.explanation,
    signature: row.signature,
    hasFile: Boolean(row.fileKey),
    receivedAt: row.receivedAt.toISOString(),
    deadline: row.deadline.toISOString(),
    msLeft,
    overdue: row.status === 'open' && msLeft < 0,
    matches: row.matches.map((m) => {
      const appeal = appeals.get(`${String(row._id)}:${m.itemId}`);
      return {
        itemId: m.itemId,
        ownerId: m.ownerId,
        ownerName: m.ownerName,
        method: m.method,
        distance: m.distance,
        removed: Boolean(m.removed),
        kind: m.input ? ('input' as const) : ('item' as const),
        ...(m.copyOf ? { copyOf: m.copyOf } : {}),
        restorable: Boolean(m.quarantineKey),
        ...(appeal
          ? {
              appeal: {
                text: appeal.text,
                at: appeal.at.toISOString(),
                ...(appeal.decision
                  ? {
                      decision: {
                        outcome: appeal.decision.outcome,
                        reason: appeal.decision.reason,
                        by: appeal.decision.by,
                        at: appeal.decision.at.toISOString(),
                      },
                    }
                  : {}),
              },
            }
          : {}),
      };
    }),
    ...(row.decision
      ? {
          decision: {
            action: row.decision.action,
            reason: row.decision.reason,
            by: row.decision.by,
            at: row.decision.at.toISOString(),
          },
        }
      : {}),
  };
}
