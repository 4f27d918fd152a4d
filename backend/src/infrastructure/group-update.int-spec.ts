import { randomBytes } from 'node:crypto';
import { MongoClient, type Collection, type Document } from 'mongodb';

/** Documents keyed by a string, as ledger entries are. */
type Row = { _id: string } & Document;
import { GroupUpdate } from './group-update';

/** GroupUpdate against the real embedded database: batching, guards and a failing update. */
describe('GroupUpdate', () => {
  let client: MongoClient;
  let collection: Collection<Row>;
  let trips: number;

  beforeAll(async () => {
    client = await new MongoClient(process.env.TEST_MONGODB_URL!).connect();
    collection = client.db(`t_group_${randomBytes(4).toString('hex')}`).collection<Row>('entries');
    // Counts the round trips the class makes (a bulk or a single update), on the real collection.
    const bulkWrite = collection.bulkWrite.bind(collection);
    collection.bulkWrite = ((...args: Parameters<typeof bulkWrite>) => {
      trips += 1;
      return bulkWrite(...args);
    }) as typeof collection.bulkWrite;
    const updateOne = collection.updateOne.bind(collection);
    collection.updateOne = ((...args: Parameters<typeof updateOne>) => {
      trips += 1;
      return updateOne(...args);
    }) as typeof collection.updateOne;
  });
  afterAll(async () => {
    await collection.db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('sends updates that arrive together in fewer round trips, each under its own guard', async () => {
    const docs = Array.from({ length: 40 }, (_, i) => ({
      _id: `entry-${i}`,
      state: i % 4 === 0 ? 'rejected' : 'pending',
    }));
    await collection.insertMany(docs);
    trips = 0; // the driver sends insertMany as a bulk write too
    const marks = new GroupUpdate(() => collection);
    await Promise.all(
      docs.map((doc, i) =>
        marks.updateOne({ _id: doc._id, state: 'pending' }, { $set: { state: 'applied', n: i } }),
      ),
    );
    expect(trips).toBeLessThanOrEqual(2); // the first alone, then the rest together
    const rows = await collection.find({ _id: { $regex: /^entry-/ } }).toArray();
    for (const row of rows) {
      const i = Number(String(row._id).slice('entry-'.length));
      // A guard that does not hold leaves its document as it was.
      if (i % 4 === 0) expect(row).toEqual({ _id: row._id, state: 'rejected' });
      else expect(row).toEqual({ _id: row._id, state: 'applied', n: i });
    }
  });

  it('fails only the caller whose update the server refuses; the others are applied', async () => {
    await collection.insertMany([
      { _id: 'ok-1', n: 1 },
      { _id: 'text', n: 'not a number' },
      { _id: 'ok-2', n: 1 },
    ]);
    const marks = new GroupUpdate(() => collection);
    const first = marks.updateOne({ _id: 'ok-1' }, { $set: { seen: true } });
    // Batched together while the first is in flight; $inc of a string is refused.
    const bad = marks.updateOne({ _id: 'text' }, { $inc: { n: 1 } });
    const good = marks.updateOne({ _id: 'ok-2' }, { $set: { seen: true } });
    await expect(first).resolves.toBeUndefined();
    await expect(bad).rejects.toThrow();
    await expect(good).resolves.toBeUndefined();
    expect(await collection.countDocuments({ _id: { $in: ['ok-1', 'ok-2'] }, seen: true })).toBe(2);
    expect((await collection.findOne({ _id: 'text' }))?.n).toBe('not a number');
  });

  it('fails a whole batch at once when no server answers, instead of waiting out each update', async () => {
    // Nothing listens on port 1: every round trip fails after the server selection timeout.
    const nowhere = new MongoClient('mongodb://127.0.0.1:1/?serverSelectionTimeoutMS=200');
    const lost = nowhere.db('t_group_nowhere').collection<Row>('entries');
    let singles = 0;
    const updateOne = lost.updateOne.bind(lost);
    lost.updateOne = ((...args: Parameters<typeof updateOne>) => {
      singles += 1;
      return updateOne(...args);
    }) as typeof lost.updateOne;
    try {
      const marks = new GroupUpdate(() => lost);
      const outcomes = await Promise.allSettled(
        ['a', 'b', 'c'].map((id) => marks.updateOne({ _id: id }, { $set: { seen: true } })),
      );
      expect(outcomes.map((outcome) => outcome.status)).toEqual(['rejected', 'rejected', 'rejected']);
      expect(singles).toBe(1); // the first, sent alone; the other two failed together in one bulk
    } finally {
      await nowhere.close();
    }
  });
});
