import { randomBytes } from 'node:crypto';
import { MongoClient, type Collection, type Document } from 'mongodb';
import { GroupInsert } from './group-insert';

/** GroupInsert against the real embedded database: batching, duplicates and other failures. */
describe('GroupInsert', () => {
  let client: MongoClient;
  let collection: Collection<Document>;
  let inserts: number;

  beforeAll(async () => {
    client = await new MongoClient(process.env.TEST_MONGODB_URL!).connect();
    collection = client.db(`t_group_${randomBytes(4).toString('hex')}`).collection('lines');
    await collection.createIndex({ eventId: 1 }, { unique: true, sparse: true });
    // Counts the round trips the class makes, on the real collection.
    const insertMany = collection.insertMany.bind(collection);
    collection.insertMany = ((...args: Parameters<typeof insertMany>) => {
      inserts += 1;
      return insertMany(...args);
    }) as typeof collection.insertMany;
  });
  beforeEach(() => {
    inserts = 0;
  });
  afterAll(async () => {
    await collection.db.dropDatabase().catch(() => undefined);
    await client.close();
  });

  it('writes lines that arrive together in fewer round trips, each caller told its own outcome', async () => {
    const lines = new GroupInsert(() => collection);
    await lines.insert({ _id: 'seen-before', eventId: 'e-seen' });
    inserts = 0;
    const docs = Array.from({ length: 40 }, (_, i) => ({ _id: `line-${i}`, eventId: `e-${i}` }));
    // Two replays among them: the one recorded before, and one event delivered twice at once.
    const outcomes = await Promise.all([
      ...docs.map((doc) => lines.insert(doc)),
      lines.insert({ _id: 'replay-old', eventId: 'e-seen' }),
      lines.insert({ _id: 'replay-new', eventId: 'e-7' }),
    ]);
    expect(outcomes.slice(0, 40).every(Boolean)).toBe(true);
    expect(outcomes.slice(40)).toEqual([false, false]);
    expect(inserts).toBeLessThanOrEqual(2); // the first line alone, then the rest together
    expect(await collection.countDocuments({ _id: /^line-/ } as Document)).toBe(40);
    expect(await collection.countDocuments({ _id: { $in: ['replay-old', 'replay-new'] } } as Document)).toBe(
      0,
    );
  });

  it('fails the callers of a batch that could not be written, and goes on with the next', async () => {
    const lines = new GroupInsert(() => collection);
    const first = lines.insert({ _id: 'ok-1' });
    // A document the server refuses (a field name starting with $), batched with a good one.
    const bad = lines.insert({ _id: 'bad-1', $bad: 1 });
    const good = lines.insert({ _id: 'ok-2' });
    await expect(first).resolves.toBe(true);
    await expect(bad).rejects.toThrow();
    await expect(good).resolves.toBe(true);
    expect(await collection.countDocuments({ _id: { $in: ['ok-1', 'ok-2'] } } as Document)).toBe(2);
  });
});
