/**
 * Folder contents benchmark: GET /api/getBulkInpaints/{id} for a folder of 1,000 items (latency
 * and response size), side by side with the raw database query it wraps.
 */
import 'reflect-metadata';
import { getModelToken } from '@nestjs/mongoose';
import type { AddressInfo } from 'node:net';
import type { Model } from 'mongoose';
import { Types } from 'mongoose';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { ContentItem } from '../src/modules/folders/content-item.schema';
import { FoldersService } from '../src/modules/folders/folders.service';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository';
import { benchUser } from './bench-client';
import { time } from './timing';

const ITEMS = Number(process.env.BENCH_ITEMS ?? 1000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);

async function main(): Promise<void> {
  const config = loadConfig({ ...process.env, LOG_LEVEL: 'warn', PASSWORD_SCRYPT_LOG_N: '10' });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const { port } = app.getHttpServer().address() as AddressInfo;
  const base = `http://127.0.0.1:${port}`;

  const { username, cookie } = await benchUser(app, base, 'bench', 0);
  const account = (await app.get(AccountsRepository).findByUsername(username))!;
  const user = { id: account.id, username, role: 'user' as const };

  const folders = app.get(FoldersService);
  const folder = await folders.create(user, { title: 'Bench' });
  // Item records only (the endpoint never reads the files); one real insert per item.
  const items = app.get<Model<ContentItem>>(getModelToken(ContentItem.name));
  await items.insertMany(
    Array.from({ length: ITEMS }, (_, i) => ({
      owner: new Types.ObjectId(user.id),
      folder: new Types.ObjectId(folder._id),
      storageKey: `${user.id}/00000000-0000-4000-8000-${String(i).padStart(12, '0')}.png`,
      kind: 'image',
      contentType: 'image/png',
      title: `Item ${i}`,
      createdAt: new Date(Date.now() - i * 1000),
    })),
  );

  const endpoint = await time(RUNS, async () => {
    const res = await fetch(`${base}/api/getBulkInpaints/${folder._id}`, { headers: { cookie } });
    return (await res.arrayBuffer()).byteLength;
  });
  const raw = await time(RUNS, async () => {
    const rows = await items.collection
      .find({ folder: new Types.ObjectId(folder._id) })
      .sort({ createdAt: -1, _id: -1 })
      .toArray();
    return Buffer.byteLength(JSON.stringify(rows));
  });

  console.log(
    `\nfolder contents benchmark: ${ITEMS} items, ${RUNS} runs each, database ${config.MONGODB_URI}`,
  );
  console.log(
    `${'case'.padEnd(44)} ${'p50 ms'.padStart(9)} ${'p99 ms'.padStart(9)} ${'bytes'.padStart(9)} ${'vs raw'.padStart(9)}`,
  );
  for (const [name, r] of [
    ['GET /api/getBulkInpaints/{id} (HTTP, session)', endpoint],
    ['raw: find({folder}).sort() in the driver', raw],
  ] as const) {
    console.log(
      `${name.padEnd(44)} ${r.p50.toFixed(1).padStart(9)} ${r.p99.toFixed(1).padStart(9)} ${String(r.bytes).padStart(9)} ${(r.p50 / raw.p50).toFixed(2).padStart(8)}x`,
    );
  }
  await app.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
