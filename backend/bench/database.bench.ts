/**
 * Embedded database benchmark (FerretDB on SQLite with the patch in deploy/local/ferretdb/patches):
 * the reads the app relies on, in a collection of 10,000 documents beside the same read in one of
 * BENCH_DOCS (default 1,000,000), so a read that scans shows up as growing with the collection.
 * findOne by _id, an indexed-field equality (the job recovery query), and keyset pages of
 * `find({_id: {$lt: cursor}}).sort({_id: -1}).limit(50)`: the first page, the BENCH_DEEP_PAGE-th
 * (default 10,000th) page, and the same within a category (compound index {category: 1, _id: -1}).
 * A read by a field without an index (a full scan) is printed for the small collection as the
 * baseline of what an unindexed read costs. Prints how long seeding took (insertMany in batches).
 */
import mongoose from 'mongoose';
import { performance } from 'node:perf_hooks';
import { time } from './timing';

const { MongoClient, ObjectId } = mongoose.mongo;
type ObjectId = InstanceType<typeof ObjectId>;

const SMALL = 10_000;
const LARGE = Number(process.env.BENCH_DOCS ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 10_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 200);
const PAGE_SIZE = 50;
const DEEP_PAGE = Number(process.env.BENCH_DEEP_PAGE ?? 10_000);
const CATEGORIES = ['auth', 'billing', 'jobs', 'admin'];
/** Pending jobs, as after a crash, spread over the collection: as many in the small one as in the large. */
const PENDING = 100;

interface Seeded {
  name: string;
  /** _ids in insertion order: ascending, so the newest is last. */
  ids: ObjectId[];
  seconds: number;
}

async function seed(db: mongoose.mongo.Db, name: string, count: number): Promise<Seeded> {
  const coll = db.collection(name);
  await coll.drop().catch(() => undefined);
  await coll.createIndexes([{ key: { category: 1, _id: -1 } }, { key: { state: 1, createdAt: 1 } }]);
  const ids: ObjectId[] = [];
  const started = performance.now();
  const createdFrom = Date.now() - count * 1000;
  const pendingEvery = Math.max(1, Math.floor(count / PENDING));
  for (let from = 0; from < count; from += BATCH) {
    const docs = [];
    for (let i = from; i < Math.min(count, from + BATCH); i += 1) {
      const _id = new ObjectId();
      ids.push(_id);
      docs.push({
        _id,
        category: CATEGORIES[i % CATEGORIES.length],
        state: i % pendingEvery === 0 ? 'pending' : 'done',
        createdAt: new Date(createdFrom + i * 1000),
        actor: `user${i % 5000}`,
        amount: i % 97,
      });
    }
    await coll.insertMany(docs, { ordered: false });
  }
  return { name, ids, seconds: (performance.now() - started) / 1000 };
}

interface Row {
  name: string;
  small: { p50: number; p99: number };
  large?: { p50: number; p99: number };
}

async function main(): Promise<void> {
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI is not set (run through npm run bench)');
  const client = await new MongoClient(uri).connect();
  const db = client.db();

  const small = await seed(db, 'bench_db_small', SMALL);
  const large = await seed(db, 'bench_db_large', LARGE);
  console.log(
    `\nseeded ${SMALL.toLocaleString('en')} documents in ${small.seconds.toFixed(1)} s, ` +
      `${LARGE.toLocaleString('en')} in ${large.seconds.toFixed(1)} s (insertMany of ${BATCH})`,
  );

  const pick = (s: Seeded) => s.ids[Math.floor(Math.random() * s.ids.length)];
  /** The _id that starts page `page` (1-based) of the newest-first log. */
  const cursorOf = (s: Seeded, page: number) =>
    s.ids[Math.max(0, s.ids.length - (page - 1) * PAGE_SIZE)] ?? s.ids[0];
  const deep = (s: Seeded) => Math.min(DEEP_PAGE, Math.floor(s.ids.length / PAGE_SIZE));
  /** A page in the middle of one category's log (a category holds every fourth document). */
  const categoryDeep = (s: Seeded) =>
    Math.min(DEEP_PAGE, Math.floor(s.ids.length / CATEGORIES.length / PAGE_SIZE / 2));

  const cases: { name: string; op: (s: Seeded) => () => Promise<unknown> }[] = [
    {
      name: 'findOne({_id})',
      op: (s) => () => db.collection(s.name).findOne({ _id: pick(s) }),
    },
    {
      name: 'recovery: {state: pending, createdAt <= t}, limit 1000',
      op: (s) => () =>
        db
          .collection(s.name)
          .find({ state: 'pending', createdAt: { $lte: new Date() } })
          .limit(1000)
          .toArray(),
    },
    {
      name: 'log: first page (_id: {$type: objectId})',
      op: (s) => () =>
        db
          .collection(s.name)
          .find({ _id: { $type: 'objectId' } })
          .sort({ _id: -1 })
          .limit(PAGE_SIZE)
          .toArray(),
    },
    {
      name: 'log: deep page (_id < cursor)',
      op: (s) => () =>
        db
          .collection(s.name)
          .find({ _id: { $lt: cursorOf(s, deep(s)) } })
          .sort({ _id: -1 })
          .limit(PAGE_SIZE)
          .toArray(),
    },
    {
      name: 'log: category, first page',
      op: (s) => () =>
        db
          .collection(s.name)
          .find({ category: 'billing', _id: { $type: 'objectId' } })
          .sort({ _id: -1 })
          .limit(PAGE_SIZE)
          .toArray(),
    },
    {
      name: 'log: category, deep page (_id < cursor)',
      op: (s) => () =>
        db
          .collection(s.name)
          .find({ category: 'billing', _id: { $lt: cursorOf(s, categoryDeep(s) * CATEGORIES.length) } })
          .sort({ _id: -1 })
          .limit(PAGE_SIZE)
          .toArray(),
    },
  ];

  const rows: Row[] = [];
  for (const c of cases) {
    const s = await time(RUNS, c.op(small));
    const l = await time(RUNS, c.op(large));
    rows.push({ name: c.name, small: s, large: l });
  }
  // baseline: a field without an index is a full scan, here in the small collection only
  rows.push({
    name: 'baseline: findOne by unindexed field (scan)',
    small: await time(Math.min(RUNS, 20), () =>
      db.collection(small.name).findOne({ actor: `user${Math.floor(Math.random() * 5000)}`, amount: 1000 }),
    ),
  });

  const fmt = (n: number | undefined) => (n === undefined ? '-' : n.toFixed(2)).padStart(9);
  const head = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : `${n / 1e3}k`);
  console.log(
    `\n${'read'.padEnd(56)} ${`${head(SMALL)} p50`.padStart(9)} ${`${head(SMALL)} p99`.padStart(9)} ` +
      `${`${head(LARGE)} p50`.padStart(9)} ${`${head(LARGE)} p99`.padStart(9)} ${'p50 ratio'.padStart(9)}`,
  );
  for (const r of rows) {
    const ratio = r.large ? `${(r.large.p50 / r.small.p50).toFixed(2)}x` : '-';
    console.log(
      `${r.name.padEnd(56)} ${fmt(r.small.p50)} ${fmt(r.small.p99)} ${fmt(r.large?.p50)} ${fmt(r.large?.p99)} ${ratio.padStart(9)}`,
    );
  }
  console.log(
    `(ms; ${RUNS} runs each; pages of ${PAGE_SIZE}; deep page at ${large.name}: ` +
      `${deep(large).toLocaleString('en')}, in a category: ${categoryDeep(large).toLocaleString('en')})`,
  );

  await db.collection(small.name).drop();
  await db.collection(large.name).drop();
  await client.close();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
