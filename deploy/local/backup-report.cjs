// What a backup holds, read back from its snapshot through FerretDB (deploy/local/backup.sh starts
// one on a copy of it): per database, every account's balance, every ledger entry, every job's
// state, the stored files the items point at and the job that stored each. Written into the archive as report.json, so a
// restore can be checked against it, and printed in short by `npm run backup`.
//   node deploy/local/backup-report.cjs MONGODB_URL DATABASE...   (JSON on standard output)
'use strict';
const { MongoClient } = require('mongodb');

async function main() {
  const [url, ...databases] = process.argv.slice(2);
  const client = await MongoClient.connect(url, { serverSelectionTimeoutMS: 20000 });
  const report = {};
  try {
    for (const name of databases) {
      const db = client.db(name);
      const collections = new Set((await db.listCollections().toArray()).map((c) => c.name));
      const all = (collection, projection) =>
        collections.has(collection) ? db.collection(collection).find({}, { projection }).toArray() : [];
      const accounts = await all('accounts', { username: 1, balance: 1 });
      const ledger = await all('ledger', { kind: 1, amount: 1, state: 1, userId: 1 });
      const jobs = await all('jobs', { state: 1, tool: 1, cost: 1, owner: 1 });
      const items = await all('content_items', { storageKey: 1, jobId: 1 });
      report[name] = {
        balances: Object.fromEntries(accounts.map((a) => [a.username, a.balance ?? 0])),
        ledger: Object.fromEntries(
          ledger.map((e) => [
            String(e._id),
            { kind: e.kind, amount: e.amount, state: e.state, userId: String(e.userId) },
          ]),
        ),
        jobs: Object.fromEntries(
          jobs.map((j) => [
            String(j._id),
            { state: j.state, tool: j.tool, cost: j.cost, owner: String(j.owner) },
          ]),
        ),
        storageKeys: items
          .map((i) => i.storageKey)
          .filter(Boolean)
          .sort(),
        // The job that stored each file: a restore removes the outputs of jobs it fails and refunds.
        storedBy: Object.fromEntries(
          items.filter((i) => i.storageKey && i.jobId).map((i) => [i.storageKey, String(i.jobId)]),
        ),
      };
    }
  } finally {
    await client.close();
  }
  process.stdout.write(JSON.stringify(report));
}

main().catch((err) => {
  process.stderr.write(`backup report failed: ${err.message}\n`);
  process.exit(1);
});
