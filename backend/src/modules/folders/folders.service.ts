import { ConflictException, HttpException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { isValidObjectId, Model, Types } from 'mongoose';
import { createHash } from 'node:crypto';
import {
  ContentMessages,
  DEFAULT_DOWNLOAD_NAME,
  DomainEvents,
  SocketEvents,
  contentUrl,
  type ContentItem as ContentItemView,
  type ContentCheck,
  type ContentKind,
  type ModerationDecision,
  type SafetyReason,
  type FolderChange,
  type FolderContents,
  type FolderSummary,
  type InpaintEntry,
} from '@studio/contracts';
import { AccountsRepository, isDuplicateKeyError } from '../accounts';
import { assertActingAs, type AuthUser } from '../auth';
import { DomainEventBus } from '../events';
import { RealtimePublisher } from '../realtime';
import { newStorageKey, StoragePort, type ByteRange, type StoredObject } from '../storage';
import { ContentItem, InpaintBatch } from './content-item.schema';
import { Folder } from './folder.schema';

export interface NewContent {
  data: Buffer;
  kind: ContentKind;
  contentType: 'image/png' | 'image/jpeg' | 'image/webp' | 'video/mp4';
  title?: string;
  jobId?: string;
  /** The content check of this output (stored with the item). */
  check?: ContentCheck;
  /** Held for a moderator: stored, but not listed or served until released. */
  heldFor?: SafetyReason;
}

/** Items a moderator holds (or removed) are not the owner's to see. */
const NOT_HELD = { 'moderation.state': { $nin: ['held', 'removed'] } };

const EXTENSIONS = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'video/mp4': 'mp4',
} as const;
/** What express's `req.range(size)` answers: ranges, -1 unsatisfiable, -2 malformed, or none. */
export type RangeChoice = (ByteRange[] & { type: string }) | -1 | -2 | undefined;

/** An item's file as served: the bytes of one range of it (206) or of all of it. */
export type ServedContent = StoredObject & {
  contentType: string;
  range?: ByteRange & { total: number };
};

/** 416, with the size the client should have asked within (sent as `Content-Range: bytes *\/size`). */
export class RangeNotSatisfiable extends HttpException {
  constructor(readonly total: number) {
    super(ContentMessages.rangeNotSatisfiable, 416);
  }
}

const CONTENT_URL = /^\/api\/content\/([a-f0-9]{24})\.(png|jpg|webp|mp4)$/;

/**
 * Folders and the content in them. Every method takes the caller first and resolves what it
 * touches through requireFolder / requireItem, so another user's id is always a 404.
 */
@Injectable()
export class FoldersService {
  constructor(
    @InjectModel(Folder.name) private readonly folders: Model<Folder>,
    @InjectModel(ContentItem.name) private readonly items: Model<ContentItem>,
    @InjectModel(InpaintBatch.name) private readonly batches: Model<InpaintBatch>,
    private readonly storage: StoragePort,
    private readonly events: DomainEventBus,
    private readonly accounts: AccountsRepository,
    private readonly realtime: RealtimePublisher,
  ) {}

  async create(user: AuthUser, input: { author?: string; title: string }): Promise<FolderSummary> {
    assertActingAs(user, input.author);
    const folder = await this.folders.create({
      owner: new Types.ObjectId(user.id),
      title: input.title,
    });
    await this.events.publish(DomainEvents.folderCreated, {
      userId: user.id,
      username: user.username,
      folderId: String(folder._id),
      title: folder.title,
    });
    const summary = { _id: String(folder._id), title: folder.title, amount: 0 };
    this.push(user.id, { folderId: summary._id, folder: summary });
    return summary;
  }

  /** The caller's own folders, oldest first, each with its number of visible items. */
  async summaries(user: AuthUser): Promise<FolderSummary[]> {
    const owner = new Types.ObjectId(user.id);
    const [rows, counts] = await Promise.all([
      this.folders.find({ owner }).sort({ _id: 1 }).lean(),
      this.items.aggregate<{ _id: Types.ObjectId; n: number }>([
        { $match: { owner, visible: { $ne: false } } },
        { $group: { _id: '$folder', n: { $sum: 1 } } },
      ]),
    ]);
    const amountOf = new Map(counts.map((c) => [String(c._id), c.n]));
    return rows.map((f) => ({
      _id: String(f._id),
      title: f.title,
      amount: amountOf.get(String(f._id)) ?? 0,
    }));
  }

  async rename(user: AuthUser, folderId: string, title: string): Promise<FolderSummary> {
    const folder = await this.requireFolder(user, folderId);
    await this.folders.updateOne({ _id: folder._id }, { $set: { title } });
    const summary = { _id: String(folder._id), title, amount: await this.visibleCount(folder._id) };
    this.push(user.id, { folderId: summary._id, folder: summary });
    return summary;
  }

  /** Deletes an empty folder (content is never dropped with its folder by accident). */
  async remove(user: AuthUser, folderId: string): Promise<void> {
    const folder = await this.requireFolder(user, folderId);
    const [items, batches] = await Promise.all([
      this.items.countDocuments({ folder: folder._id }),
      this.batches.countDocuments({ folder: folder._id }),
    ]);
    if (items + batches > 0) throw new ConflictException(ContentMessages.folderNotEmpty);
    await this.folders.deleteOne({ _id: folder._id });
    await this.events.publish(DomainEvents.folderDeleted, {
      userId: user.id,
      username: user.username,
      folderId,
      title: folder.title,
    });
    this.push(user.id, { folderId: String(folder._id), deleted: true });
  }

  /** GET /api/getBulkInpaints/{id}: the folder's inpaint entries and items, newest first. */
  async contents(user: AuthUser, folderId: string): Promise<FolderContents> {
    const folder = await this.requireFolder(user, folderId);
    const [batches, items] = await Promise.all([
      this.batches.find({ folder: folder._id }).sort({ createdAt: -1 }).lean(),
      this.items
        .find({ folder: folder._id, ...NOT_HELD })
        .sort({ createdAt: -1, _id: -1 })
        .lean(),
    ]);
    return {
      title: folder.title,
      inpaint: batches.map((b) => ({ _id: String(b._id), title: b.title, amount: b.amount })),
      inpaints: items.map(toItemView),
    };
  }

  /** Stores one new item in one of the owner's folders (see addItems). */
  async addItem(
    user: AuthUser,
    folderId: string,
    content: NewContent & { itemId?: string },
  ): Promise<ContentItemView> {
    const [item] = await this.addItems(user, folderId, [content]);
    return item;
  }

  /**
   * Stores new items in one of the owner's folders, in order (the generation pipeline: a job's
   * outputs), and tells the owner once, with all of them and the folder's count after them: one
   * folder read and one count per call, not per item. With `itemId` each is idempotent: a job that
   * runs again after a crash stores the same item once (and announces it again: the run that
   * stored it may have died before its push).
   */
  async addItems(
    user: AuthUser,
    folderId: string,
    contents: (NewContent & { itemId?: string })[],
  ): Promise<ContentItemView[]> {
    const folder = await this.requireFolder(user, folderId);
    const added: ContentItemView[] = [];
    for (const content of contents) {
      const item = await this.storeItem(user, folder, content);
      if (!content.heldFor) added.push(item);
    }
    if (added.length > 0) await this.pushWithSummary(folder, { added });
    return added;
  }

  private async storeItem(
    user: AuthUser,
    folder: { _id: Types.ObjectId; owner: Types.ObjectId },
    content: NewContent & { itemId?: string },
  ): Promise<ContentItemView> {
    const storageKey = newStorageKey(user.id, EXTENSIONS[content.contentType], content.itemId);
    await this.storage.put(storageKey, content.data);
    try {
      const item = await this.items.create({
        ...(content.itemId ? { _id: new Types.ObjectId(content.itemId) } : {}),
        owner: folder.owner,
        folder: folder._id,
        storageKey,
        kind: content.kind,
        contentType: content.contentType,
        title: content.title,
        jobId: content.jobId,
        ...(content.check ? { check: content.check } : {}),
        ...(content.heldFor
          ? { visible: false, moderation: { state: 'held', reason: content.heldFor, at: new Date() } }
          : {}),
      });
      return toItemView(item.toObject());
    } catch (err) {
      if (!content.itemId || !isDuplicateKeyError(err)) throw err;
      const existing = await this.items.findById(content.itemId).lean();
      if (!existing) throw err;
      return toItemView(existing);
    }
  }

  /** The items a job stored (the pipeline's view of a run that was paid for). */
  async jobOutputs(ownerId: string, jobId: string): Promise<ContentItemView[]> {
    const rows = await this.items
      .find({ owner: new Types.ObjectId(ownerId), jobId, ...NOT_HELD })
      .sort({ createdAt: 1, _id: 1 })
      .lean();
    return rows.map(toItemView);
  }

  /** Removes the items a job stored, with their files: its run was not paid for (refunded). */
  async removeJobOutputs(ownerId: string, jobId: string): Promise<void> {
    const rows = await this.items
      .find({ owner: new Types.ObjectId(ownerId), jobId })
      .select({ storageKey: 1, folder: 1 })
      .lean();
    if (rows.length === 0) return;
    await this.items.deleteMany({ _id: { $in: rows.map((r) => r._id) } });
    await Promise.all(rows.map((r) => this.storage.delete(r.storageKey).catch(() => undefined)));
    const owner = new Types.ObjectId(ownerId);
    for (const folderId of new Set(rows.map((r) => String(r.folder)))) {
      const removed = rows.filter((r) => String(r.folder) === folderId).map((r) => String(r._id));
      await this.pushWithSummary({ _id: new Types.ObjectId(folderId), owner }, { removed });
    }
  }

  /**
   * The caller's folder for a tool's results when the request names none ('Clones' ...). Its id is
   * derived from owner and title, so two requests at once still make only one.
   */
  async toolFolder(user: AuthUser, title: string): Promise<string> {
    const id = new Types.ObjectId(
      createHash('sha256').update(`${user.id}:${title}`).digest('hex').slice(0, 24),
    );
    const existing = await this.folders.findById(id).lean();
    if (existing) return String(existing._id);
    try {
      await this.folders.create({ _id: id, owner: new Types.ObjectId(user.id), title });
    } catch (err) {
      if (!isDuplicateKeyError(err)) throw err;
      return String(id);
    }
    await this.events.publish(DomainEvents.folderCreated, {
      userId: user.id,
      username: user.username,
      folderId: String(id),
      title,
    });
    this.push(user.id, { folderId: String(id), folder: { _id: String(id), title, amount: 0 } });
    return String(id);
  }

  /** A bulk inpaint batch entry in one of the caller's folders; its title shows its status. */
  async createBatch(
    user: AuthUser,
    folderId: string,
    title: string,
    amount: number,
    batchId?: string,
  ): Promise<InpaintEntry> {
    const folder = await this.requireFolder(user, folderId);
    const batch = await this.batches.create({
      ...(batchId ? { _id: new Types.ObjectId(batchId) } : {}),
      owner: folder.owner,
      folder: folder._id,
      title,
      amount,
    });
    return { _id: String(batch._id), title: batch.title, amount: batch.amount };
  }

  /** Removes a batch entry none of whose jobs was queued (its submission undone). */
  async removeBatch(batchId: string): Promise<void> {
    await this.batches.deleteOne({ _id: new Types.ObjectId(batchId) });
  }

  /** Sets a batch's title (its status line while it runs, its name when done). */
  async setBatchTitle(batchId: string, title: string): Promise<void> {
    const batch = await this.batches
      .findOneAndUpdate({ _id: new Types.ObjectId(batchId) }, { $set: { title } }, { new: true })
      .lean();
    if (!batch) return;
    this.push(String(batch.owner), {
      folderId: String(batch.folder),
      batch: { _id: batchId, title: batch.title, amount: batch.amount },
    });
  }

  /** Checks that the folder exists and is the caller's (404 otherwise). */
  async assertFolder(user: AuthUser, folderId: string): Promise<void> {
    await this.requireFolder(user, folderId);
  }

  /** Removes the caller's item and its file. The event repeats the file removal if this one fails. */
  async deleteItem(user: AuthUser, itemId: string): Promise<void> {
    const item = await this.requireItem(user, itemId);
    await this.items.deleteOne({ _id: item._id });
    await this.storage.delete(item.storageKey).catch(() => undefined);
    await this.events.publish(DomainEvents.contentDeleted, {
      userId: user.id,
      username: user.username,
      itemId,
      title: item.title,
      storageKey: item.storageKey,
      ...(item.jobId ? { jobId: item.jobId } : {}),
    });
    await this.pushWithSummary({ _id: item.folder, owner: item.owner }, { removed: [itemId] });
  }

  /**
   * The file of the caller's item named by `url` (as the API gave it). Nothing else is fetched:
   * any other url, another user's item or a missing file is a 404.
   */
  async download(
    user: AuthUser,
    url: string,
    title?: string,
  ): Promise<StoredObject & { filename: string; contentType: string }> {
    const match = CONTENT_URL.exec(url);
    if (!match) throw new NotFoundException(ContentMessages.itemNotFound);
    const item = await this.requireItem(user, match[1]);
    const object = await this.open(item);
    await this.events.publish(DomainEvents.contentDownloaded, {
      userId: user.id,
      username: user.username,
      itemId: String(item._id),
      title: item.title,
    });
    const base = (title || item.title || DEFAULT_DOWNLOAD_NAME[item.kind]).replace(/[\\/\0]/g, '_');
    const extension = `.${extensionOf(item.storageKey)}`;
    return {
      ...object,
      filename: base.endsWith(extension) ? base : `${base}${extension}`,
      contentType: item.contentType,
    };
  }

  /**
   * The file of the caller's item, for showing it inline (previews, video playback). `pickRange`
   * reads the request's Range against the file's size (the HTTP layer's parser): one satisfiable
   * range serves those bytes, an unsatisfiable one throws 416, anything else the whole file.
   */
  async serve(
    user: AuthUser,
    itemId: string,
    pickRange?: (size: number) => RangeChoice,
  ): Promise<ServedContent> {
    const item = await this.requireItem(user, itemId);
    if (!pickRange) return { ...(await this.open(item)), contentType: item.contentType };
    this.refuseTakenDown(item);
    const total = await this.storage.forRequest().size(item.storageKey);
    if (total === null) throw new NotFoundException(ContentMessages.itemNotFound);
    const ranges = pickRange(total);
    if (ranges === -1) throw new RangeNotSatisfiable(total);
    if (!Array.isArray(ranges) || ranges.type !== 'bytes' || ranges.length !== 1) {
      return { ...(await this.open(item)), contentType: item.contentType };
    }
    const range = { start: ranges[0].start, end: ranges[0].end };
    const object = await this.storage.forRequest().get(item.storageKey, range);
    if (!object) throw new NotFoundException(ContentMessages.itemNotFound);
    return { ...object, contentType: item.contentType, range: { ...range, total } };
  }

  /**
   * Image items of every account in id order after `afterId` (keyset paging), with their owner and
   * storage key: the copy finder's backfill of hashes for outputs stored before it existed.
   */
  async imageItemsAfter(
    afterId: string | null,
    limit: number,
  ): Promise<{ id: string; ownerId: string; storageKey: string; takenDown: boolean }[]> {
    const rows = await this.items
      .find({ kind: 'image', ...(afterId ? { _id: { $gt: new Types.ObjectId(afterId) } } : {}) })
      .sort({ _id: 1 })
      .limit(limit)
      .select({ owner: 1, storageKey: 1, takedown: 1 })
      .lean();
    return rows.map((row) => ({
      id: String(row._id),
      ownerId: String(row.owner),
      storageKey: row.storageKey,
      takenDown: Boolean(row.takedown),
    }));
  }

  /** The id of an item's owner (any account), or null when there is no such item. */
  async ownerOfItem(itemId: string): Promise<string | null> {
    const item = isValidObjectId(itemId)
      ? await this.items.findById(itemId).select({ owner: 1 }).lean()
      : null;
    return item ? String(item.owner) : null;
  }

  /**
   * An admin hides an item (kept, not served, the owner reads why) or deletes its file (the record
   * stays as the notice). Either way the owner is told at once and the log says who did it.
   */
  async takeDown(
    admin: AuthUser,
    itemId: string,
    input: { reason: string; mode: 'hide' | 'delete' },
  ): Promise<ContentItemView> {
    const item = isValidObjectId(itemId) ? await this.items.findById(itemId).lean() : null;
    if (!item) throw new NotFoundException(ContentMessages.itemNotFound);
    const takedown = { reason: input.reason, mode: input.mode, by: admin.username, at: new Date() };
    await this.items.updateOne({ _id: item._id }, { $set: { visible: false, takedown } });
    if (input.mode === 'delete') await this.storage.delete(item.storageKey);
    const owner = await this.accounts.findById(String(item.owner));
    await this.events.publish(DomainEvents.contentTakenDown, {
      userId: String(item.owner),
      username: owner?.username ?? String(item.owner),
      itemId,
      title: item.title,
      reason: input.reason,
      mode: input.mode,
      by: admin.username,
      ...(item.jobId ? { jobId: item.jobId } : {}),
    });
    // The item's own push (content.taken_down) tells the grid; this one the folder's count.
    await this.pushWithSummary({ _id: item.folder, owner: item.owner }, {});
    return toItemView({ ...item, visible: false, takedown });
  }

  /** Staff: an item's owner, storage key and title (any account), or null when there is no such item. */
  async storedItem(itemId: string): Promise<{ ownerId: string; storageKey: string; title?: string } | null> {
    const item = isValidObjectId(itemId)
      ? await this.items.findById(itemId).select({ owner: 1, storageKey: 1, title: 1 }).lean()
      : null;
    return item ? { ownerId: String(item.owner), storageKey: item.storageKey, title: item.title } : null;
  }

  /**
   * Undoes a takedown (an appeal found founded, DSA Art. 20(4)): the kept file put back under its
   * key first, then the item visible again in its folder. False when the item
   * is gone (deleted by its owner, or with the account).
   */
  async reinstate(itemId: string, file: Buffer): Promise<boolean> {
    const item = isValidObjectId(itemId) ? await this.items.findById(itemId).lean() : null;
    if (!item?.takedown) return false;
    await this.storage.put(item.storageKey, file);
    await this.items.updateOne({ _id: item._id }, { $unset: { takedown: 1, visible: 1 } });
    await this.pushWithSummary(
      { _id: item.folder, owner: item.owner },
      { added: [toItemView({ ...item, visible: undefined, takedown: undefined })] },
    );
    return true;
  }

  /** Tells the folder's owner (their room only) what changed, with the folder's summary now. */
  private async pushWithSummary(
    folder: { _id: Types.ObjectId; owner: Types.ObjectId; title?: string },
    change: Omit<FolderChange, 'folderId' | 'folder'>,
  ): Promise<void> {
    // A caller that just read the folder gives its title: one read fewer per stored job output.
    const title =
      folder.title ?? (await this.folders.findById(folder._id).select({ title: 1 }).lean())?.title;
    const folderId = String(folder._id);
    const summary =
      title === undefined ? undefined : { _id: folderId, title, amount: await this.visibleCount(folder._id) };
    this.push(String(folder.owner), { folderId, ...(summary ? { folder: summary } : {}), ...change });
  }

  private push(ownerId: string, change: FolderChange): void {
    this.realtime.toUser(ownerId, SocketEvents.folderChanged, change);
  }

  /** Staff: the items held for review, oldest first. */
  async heldItems(): Promise<(ContentItem & { _id: Types.ObjectId })[]> {
    return this.items.find({ 'moderation.state': 'held' }).sort({ createdAt: 1 }).limit(200).lean();
  }

  /** Staff: the held item's file (the moderator looks before deciding). */
  async heldFile(itemId: string): Promise<StoredObject & { contentType: string }> {
    const item = await this.moderatedItem(itemId);
    if (item.moderation!.state !== 'held') throw new NotFoundException(ContentMessages.itemNotFound);
    const object = await this.storage.forRequest().get(item.storageKey);
    if (!object) throw new NotFoundException(ContentMessages.itemNotFound);
    return { ...object, contentType: item.contentType };
  }

  /** Staff: an item that was held for review, whatever was decided since (404 for any other). */
  async moderatedItem(itemId: string): Promise<ContentItem & { _id: Types.ObjectId }> {
    const item = isValidObjectId(itemId) ? await this.items.findById(itemId).lean() : null;
    if (!item?.moderation) throw new NotFoundException(ContentMessages.itemNotFound);
    return item;
  }

  /**
   * Which of its job's outputs an item is (by id order) and how many the job made: a removed
   * output's share of the job's cost.
   */
  async outputShare(item: { _id: Types.ObjectId; owner: Types.ObjectId; jobId?: string }) {
    const siblings = await this.items
      .find({ owner: item.owner, jobId: item.jobId })
      .select({ _id: 1 })
      .sort({ _id: 1 })
      .lean();
    return {
      part: Math.max(
        0,
        siblings.findIndex((s) => s._id.equals(item._id)),
      ),
      parts: siblings.length,
    };
  }

  /**
   * A moderator's decision on a held item: released (it appears in its folder and the owner's
   * gallery) or removed (its file deleted; the record stays). Answers the item as it was; 409 when
   * it was decided already (by anyone: a second decision changes nothing).
   */
  async decideHeld(
    itemId: string,
    decision: ModerationDecision,
    by: string,
    note: string,
  ): Promise<ContentItem & { _id: Types.ObjectId }> {
    const item = await this.moderatedItem(itemId);
    const moderation = { ...item.moderation!, state: decision, at: new Date(), by, note };
    // Guarded on the state: two moderators deciding at once, one wins.
    const update =
      decision === 'released'
        ? { $set: { moderation }, $unset: { visible: 1 } }
        : { $set: { moderation, visible: false } };
    const changed =
      item.moderation!.state === 'held'
        ? await this.items.updateOne({ _id: item._id, 'moderation.state': 'held' }, update)
        : { modifiedCount: 0 };
    if (changed.modifiedCount !== 1) throw new ConflictException(ContentMessages.alreadyDecided);
    if (decision === 'removed') await this.storage.delete(item.storageKey).catch(() => undefined);
    const folder = { _id: item.folder, owner: item.owner };
    if (decision === 'released') {
      await this.pushWithSummary(folder, {
        added: [toItemView({ ...item, visible: undefined, moderation })],
      });
    }
    return item;
  }

  private visibleCount(folderId: Types.ObjectId): Promise<number> {
    return this.items.countDocuments({ folder: folderId, visible: { $ne: false } });
  }

  /**
   * A taken-down item's address: 410 Gone once its file is deleted (the removal is meant to last:
   * caches and links drop it), 451 while it is only hidden. Both carry the reason.
   */
  private refuseTakenDown(item: ContentItem): void {
    if (item.takedown) {
      throw new HttpException(
        `${ContentMessages.takenDown}: ${item.takedown.reason}`,
        item.takedown.mode === 'delete' ? 410 : 451,
      );
    }
  }

  /** An item's file for a person waiting on it (a download, the viewer). */
  private async open(item: ContentItem): Promise<StoredObject> {
    this.refuseTakenDown(item);
    const object = await this.storage.forRequest().get(item.storageKey);
    if (!object) throw new NotFoundException(ContentMessages.itemNotFound);
    return object;
  }

  private async requireFolder(user: AuthUser, folderId: string) {
    const folder = isValidObjectId(folderId) ? await this.folders.findById(folderId).lean() : null;
    if (!folder || String(folder.owner) !== user.id)
      throw new NotFoundException(ContentMessages.folderNotFound);
    return folder;
  }

  private async requireItem(user: AuthUser, itemId: string) {
    const item = isValidObjectId(itemId) ? await this.items.findById(itemId).lean() : null;
    const held = item?.moderation && item.moderation.state !== 'released';
    if (!item || String(item.owner) !== user.id || held)
      throw new NotFoundException(ContentMessages.itemNotFound);
    return item;
  }
}

/** The file extension of a storage key (keys are made by newStorageKey, so they have one). */
const extensionOf = (storageKey: string) => storageKey.slice(storageKey.lastIndexOf('.') + 1);

function toItemView(row: ContentItem & { _id: unknown }): ContentItemView {
  const view: ContentItemView = {
    _id: String(row._id),
    url: contentUrl(String(row._id), extensionOf(row.storageKey)),
    kind: row.kind,
    createdAt: new Date(row.createdAt).toISOString(),
  };
  if (row.title) view.title = row.title;
  if (row.visible !== undefined) view.visible = row.visible;
  if (row.jobId) view.jobId = row.jobId;
  if (row.takedown) {
    const { reason, mode, at } = row.takedown;
    view.takedown = { reason, mode, at: new Date(at).toISOString() };
  }
  return view;
}
