import { Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model, Types } from 'mongoose';
import type { FolderSummary } from '@studio/contracts';
import { assertActingAs, type AuthUser } from '../auth/auth-user';
import { Folder } from './folder.schema';

@Injectable()
export class FoldersService {
  constructor(@InjectModel(Folder.name) private readonly folders: Model<Folder>) {}

  async create(user: AuthUser, input: { author?: string; title: string }): Promise<FolderSummary> {
    assertActingAs(user, input.author);
    const folder = await this.folders.create({
      owner: new Types.ObjectId(user.id),
      title: input.title,
      amount: 0,
    });
    return toSummary(folder);
  }

  /** The caller's own folders, oldest first. */
  async summaries(user: AuthUser): Promise<FolderSummary[]> {
    const rows = await this.folders
      .find({ owner: new Types.ObjectId(user.id) })
      .sort({ _id: 1 })
      .lean();
    return rows.map(toSummary);
  }
}

function toSummary(row: { _id: unknown; title: string; amount: number }): FolderSummary {
  return { _id: String(row._id), title: row.title, amount: row.amount };
}
