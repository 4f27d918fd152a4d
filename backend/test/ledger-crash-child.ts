/**
 * Child process for the ledger crash test: boots the real app, then runs ledger operations in a
 * loop until the parent kills it with SIGKILL, somewhere between two steps of some operation.
 * Usage: ts-node ledger-crash-child.ts <userId> <username>   (config from the environment)
 */
import 'reflect-metadata';
import { randomUUID } from 'node:crypto';
import { createApp } from '../api/src/create-app';
import { loadConfig } from '../src/config/app-config';
import { LedgerService } from '../src/modules/billing/ledger.service';

async function main(): Promise<void> {
  const [userId, username] = process.argv.slice(2);
  const app = await createApp(loadConfig());
  const ledger = app.get(LedgerService);
  let ops = 0;
  for (;;) {
    const key = randomUUID();
    const reserved = await ledger.reserve({
      key,
      userId,
      username,
      amount: 3,
      reason: 'crash test',
      jobId: key,
      tool: 'clone',
    });
    if (reserved.ok) {
      if (ops % 2 === 0) await ledger.capture(key);
      else await ledger.refund(key, 'crash test refund');
    }
    await ledger.credit({
      key: `grant-${key}`,
      userId,
      username,
      kind: 'grant',
      amount: 2,
      reason: 'crash test top-up',
    });
    ops += 1;
    if (ops % 10 === 0) process.stdout.write(`ops ${ops}\n`);
  }
}

main().catch((err) => {
  process.stderr.write(String(err?.stack ?? err));
  process.exit(1);
});
