import { Injectable, Logger } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types, type FilterQuery } from 'mongoose';
import {
  LOG_PAGE_SIZE,
  SocketEvents,
  type AdminStats,
  type LogEntry,
  type LogPage,
  type LogQuery,
} from '@studio/contracts';
import { RealtimePublisher } from '../realtime';
import { AuditEntry } from './audit-entry.schema';
import { AuditCounters, COUNTED_LINES } from './audit-counters';
import { GroupInsert } from '../../infrastructure/group-insert';
import {
  buildStats,
  statsWindow,
  summarize,
  type EntryFigures,
  type StatsRow,
  type StatsWindow,
} from './audit-stats';

export interface NewAuditEntry extends EntryFigures {
  category: string;
  author?: { userId?: string; username: string };
  message: string;
  detail?: string;
  /** When the entry records a domain event: its id, which makes appending idempotent. */
  eventId?: string;
  createdOn?: Date;
}

/** The author's name as the user filter matches it: names are unique regardless of case. */
export function authorKey(username: string): string {
  return username.toLowerCase();
}

export const DEFAULT_LOG_LIMIT = 1000;

/** A log line as stored: the entry's fields, typed by NewAuditEntry, with its keys filled in. */
type AuditRow = Omit<NewAuditEntry, 'createdOn'> & {
  _id: Types.ObjectId;
  authorKey?: string;
  createdOn: Date;
};

/** Absent fields stay absent in the stored line (as mongoose's create left them). */
function withoutUndefined<T extends object>(row: T): T {
  return Object.fromEntries(Object.entries(row).filter(([, value]) => value !== undefined)) as T;
}

@Injectable()
export class AuditService {
  private readonly log = new Logger(AuditService.name);
  private readonly statsInFlight = new Map<string, Promise<AdminStats>>();
  /** Lines written together while a write is in flight (three lines a job under load). */
  private readonly lines = new GroupInsert<AuditRow>(() => this.model.collection as never);

  constructor(
    @InjectModel(AuditEntry.name) private readonly model: Model<AuditEntry>,
    private readonly realtime: RealtimePublisher,
    private readonly counters: AuditCounters,
  ) {}

  /** Writes the entry (once per event id) and pushes it to the admins' live feed. */
  /**
   * A deleted account's lines keep its id and a pseudonym, not its name: the author of every line
   * it wrote becomes the pseudonym, and its name, wherever a line quotes it as a whole name
   * ("Registered account alice.", "Changed the role of alice ..."), too. The name is read from the
   * lines themselves, so the deletion event need not carry it. Run again, it changes nothing more.
   */
  async anonymiseAuthor(userId: string, pseudonym: string): Promise<void> {
    const authored = await this.model.find({ 'author.userId': userId }).select({ author: 1 }).lean();
    const names = [...new Set(authored.map((row) => row.author?.username ?? ''))].filter(
      (name) => name && name !== pseudonym,
    );
    for (const name of names) {
      const escaped = name.replace(/[.-]/g, (c) => `\\${c}`);
      // A whole name: not part of a longer one (names use letters, digits, '.', '-', '_'; a '.'
      // right after it ends a sentence unless a name character follows).
      const whole = new RegExp(`(?<![A-Za-z0-9._-])${escaped}(?![A-Za-z0-9_-]|\\.[A-Za-z0-9._-])`, 'gi');
      const quoting = await this.model
        .find({
          $or: [
            { message: { $regex: escaped, $options: 'i' } },
            { detail: { $regex: escaped, $options: 'i' } },
          ],
        })
        .select({ message: 1, detail: 1 })
        .lean();
      for (const row of quoting) {
        const message = row.message.replace(whole, pseudonym);
        const detail = row.detail?.replace(whole, pseudonym);
        if (message !== row.message || detail !== row.detail) {
          await this.model.updateOne(
            { _id: row._id },
            { $set: { message, ...(detail !== undefined ? { detail } : {}) } },
          );
        }
      }
    }
    await this.model.updateMany(
      { 'author.userId': userId },
      { $set: { 'author.username': pseudonym, authorKey: pseudonym.toLowerCase() } },
    );
  }

  async append(entry: NewAuditEntry): Promise<LogEntry | null> {
    const createdOn = entry.createdOn ?? new Date();
    const row = withoutUndefined({
      ...entry,
      // The page key: its leading 4 bytes are createdOn's second, so _id order is time order.
      _id: new Types.ObjectId(Math.floor(createdOn.getTime() / 1000)),
      authorKey: entry.author && authorKey(entry.author.username),
      createdOn,
    });
    if (!(await this.lines.insert(row))) return null; // this event was already recorded
    // A lost count is mended by the next recount; the line itself is written.
    await this.counters
      .record(createdOn, row)
      .catch((err: Error) => this.log.warn(`statistics not counted: ${err.message}`));
    const logEntry = toLogEntry(row);
    this.realtime.toAdmins(SocketEvents.auditAppended, logEntry);
    return logEntry;
  }

  /** Newest first. */
  async latest(limit = DEFAULT_LOG_LIMIT): Promise<LogEntry[]> {
    const rows = await this.model.find({ _id: ANY_OBJECT_ID }).sort({ _id: -1 }).limit(limit).lean();
    return rows.map(toLogEntry);
  }

  /**
   * One page of the log, newest first, filtered by category, exact user name and date range.
   * Keyset paging on _id (`before` = the previous page's `next`): every filter is an indexed
   * equality plus an _id range, so the first and the ten-thousandth page cost the same and no
   * count runs over the log. `page` (offset) is kept for old clients; deep offsets are slow.
   */
  async page(query: LogQuery): Promise<LogPage> {
    const pageSize = Math.min(Math.max(1, query.pageSize ?? LOG_PAGE_SIZE.default), LOG_PAGE_SIZE.max);
    const filter: FilterQuery<AuditEntry> = {};
    if (query.category) filter.category = query.category;
    if (query.user) filter.authorKey = authorKey(query.user);
    const ids: { $gte?: Types.ObjectId; $lt?: Types.ObjectId } = {};
    if (query.from) ids.$gte = Types.ObjectId.createFromTime(idSecond(query.from));
    if (query.to && idSecond(query.to) < MAX_ID_SECOND) {
      ids.$lt = Types.ObjectId.createFromTime(idSecond(query.to) + 1);
    }
    if (query.before) {
      const before = new Types.ObjectId(query.before);
      if (!ids.$lt || before.toHexString() < ids.$lt.toHexString()) ids.$lt = before;
    }
    // Some _id bound on every query: the patched FerretDB then reads the _id index in order and
    // stops at the limit (without one it reads and sorts the whole log); MongoDB is indifferent.
    filter._id = ids.$gte || ids.$lt ? ids : ANY_OBJECT_ID;
    // _id bounds whole seconds; createdOn trims the milliseconds at either end.
    if (query.from || query.to) {
      filter.createdOn = {
        ...(query.from ? { $gte: new Date(query.from) } : {}),
        ...(query.to ? { $lte: new Date(query.to) } : {}),
      };
    }
    const offset = query.before ? 0 : (Math.max(1, query.page ?? 1) - 1) * pageSize;
    const rows = await this.model
      .find(filter)
      .sort({ _id: -1 })
      .skip(offset)
      .limit(pageSize + 1) // one more tells whether an older page exists
      .lean();
    const items = rows.slice(0, pageSize).map(toLogEntry);
    const next = rows.length > pageSize ? items[items.length - 1]._id : null;
    return query.before ? { items, pageSize, next } : { items, pageSize, next, page: query.page ?? 1 };
  }

  /**
   * Credits used today, yesterday, this week and this month, and face swaps per day over 30 days,
   * by the calendar of `timeZone`: from the write-time counters (AuditCounters), or, while Redis
   * has none complete, from a scan of the log.
   */
  async stats(timeZone: string, now = new Date()): Promise<AdminStats> {
    const window = statsWindow(timeZone, now);
    const counted = await this.counters.read(window);
    if (counted) return summarize(window, counted);
    // One scan at a time per zone and day: the admin screen re-reads the statistics after live
    // entries, and on a large log a scan takes long; callers meanwhile share the running one.
    const key = `${timeZone}|${window.starts[0]}|${window.starts[window.starts.length - 1]}`;
    const running = this.statsInFlight.get(key);
    if (running) return running;
    const computed = this.scanStats(window).finally(() => this.statsInFlight.delete(key));
    this.statsInFlight.set(key, computed);
    return computed;
  }

  /**
   * The database narrows the rows to the window and the counted lines and returns only the three
   * fields read; Node buckets them by day in the zone (FerretDB has no zone-aware $dateToString).
   */
  private async scanStats(window: StatsWindow): Promise<AdminStats> {
    const rows = await this.model.collection
      .aggregate<StatsRow>([
        {
          $match: {
            createdOn: {
              $gte: new Date(window.starts[0]),
              $lt: new Date(window.starts[window.starts.length - 1]),
            },
            ...COUNTED_LINES,
          },
        },
        { $project: { _id: 0, createdOn: 1, credits: 1, swaps: 1 } },
      ])
      .toArray();
    return buildStats(window, rows);
  }
}

/** Every entry (all _ids are ObjectIds), as an _id bound the database can read in index order. */
const ANY_OBJECT_ID = { $type: 'objectId' } as const;

/** The last second an ObjectId holds (its time is 4 unsigned bytes: early 2106). */
const MAX_ID_SECOND = 0xffffffff;

/** A date's second as an ObjectId holds it, clamped to what one can (an ISO date may be 9999). */
function idSecond(iso: string): number {
  return Math.min(Math.max(Math.floor(Date.parse(iso) / 1000), 0), MAX_ID_SECOND);
}

export function toLogEntry(row: AuditEntry & { _id: Types.ObjectId | string }): LogEntry {
  const entry: LogEntry = {
    _id: String(row._id),
    category: row.category,
    createdOn: new Date(row.createdOn).toISOString(),
    message: row.message,
  };
  if (row.author) entry.author = { username: row.author.username };
  if (row.detail) entry.detail = row.detail;
  return entry;
}
