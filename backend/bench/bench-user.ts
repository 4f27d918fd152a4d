import type { INestApplication } from '@nestjs/common';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { LedgerService } from '../src/modules/billing/ledger.service';

/** A new user with `credits`, signed in over HTTP like a browser: its name and session cookie. */
export async function benchUser(
  app: INestApplication,
  base: string,
  prefix: string,
  credits: number,
): Promise<{ username: string; cookie: string }> {
  const username = `${prefix}${Date.now().toString(36)}`;
  const password = 'bench-password';
  await app
    .get(AccountsService)
    .register({ email: `${username}@bench.invalid`, username, password, adult: true });
  const account = (await app.get(AccountsRepository).findByUsername(username))!;
  await app.get(LedgerService).credit({
    key: `bench-grant:${username}`,
    userId: account.id,
    username,
    kind: 'grant',
    amount: credits,
    reason: 'bench',
  });
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (login.status !== 200) throw new Error(`bench login failed: ${login.status}`);
  return { username, cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] };
}
