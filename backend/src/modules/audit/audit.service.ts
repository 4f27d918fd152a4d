import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import { SocketEvents, type LogEntry } from '@studio/contracts';
import { isDuplicateKeyError } from '../accounts/accounts.repository';
import { RealtimePublisher } from '../realtime/realtime.publisher';
import { AuditEntry } from './audit-entry.schema';

export interface NewAuditEntry {
  category: string;
  author?: { userId?: string; username: string };
  message: string;
  detail?: string;
  /** When the entry records a domain event: its id, which makes appending idempotent. */
  eventId?: string;
  createdOn?: Date;
}

export const DEFAULT_LOG_LIMIT = 1000;

@Injectable()
export class AuditService {
  constructor(
    @InjectModel(AuditEntry.name) private readonly model: Model<AuditEntry>,
    private readonly realtime: RealtimePublisher,
  ) {}

  /** Writes the entry (once per event id) and pushes it to the admins' live feed. */
  async append(entry: NewAuditEntry): Promise<LogEntry | null> {
    let created;
    try {
      created = await this.model.create({ ...entry, createdOn: entry.createdOn ?? new Date() });
    } catch (err) {
      if (isDuplicateKeyError(err)) return null; // this event was already recorded
      throw err;
    }
    const logEntry = toLogEntry(created.toObject());
    this.realtime.toAdmins(SocketEvents.auditAppended, logEntry);
    return logEntry;
  }

  /** Newest first. */
  async latest(limit = DEFAULT_LOG_LIMIT): Promise<LogEntry[]> {
    const rows = await this.model.find().sort({ createdOn: -1, _id: -1 }).limit(limit).lean();
    return rows.map(toLogEntry);
  }
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
