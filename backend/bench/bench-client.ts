import type { INestApplication } from '@nestjs/common';
import { AccountsRepository } from '../src/modules/accounts/accounts.repository';
import { AccountsService } from '../src/modules/accounts/accounts.service';
import { AgeAssuranceService } from '../src/modules/age-assurance/age-assurance.service';
import { LedgerService } from '../src/modules/billing/ledger.service';

/** Logs in over HTTP like a browser; returns the session cookie. */
export async function logIn(base: string, username: string, password: string): Promise<string> {
  const login = await fetch(`${base}/api/login`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ username, password }),
  });
  if (login.status !== 200) throw new Error(`bench login of ${username} failed: ${login.status}`);
  return (login.headers.get('set-cookie') ?? '').split(';')[0];
}

/** A new user with `credits`, signed in: its name and session cookie. */
export async function benchUser(
  app: INestApplication,
  base: string,
  prefix: string,
  credits: number,
  /** Age-assured as by a passed card check (the photo tools need it). */
  options: { ageAssured?: boolean } = {},
): Promise<{ username: string; cookie: string }> {
  const username = `${prefix}${Date.now().toString(36)}`;
  const password = 'bench-password';
  await app
    .get(AccountsService)
    .register({ email: `${username}@bench.invalid`, username, password, adult: true });
  const account = (await app.get(AccountsRepository).findByUsername(username))!;
  if (options.ageAssured) {
    await app
      .get(AgeAssuranceService)
      .assure({ id: account.id, username }, 'credit_card', `bench:${username}`, 'Age assured for a bench');
  }
  if (credits > 0) {
    await app.get(LedgerService).credit({
      key: `bench-grant:${username}`,
      userId: account.id,
      username,
      kind: 'grant',
      amount: credits,
      reason: 'bench',
    });
  }
  return { username, cookie: await logIn(base, username, password) };
}

/** Submits one tool job with an image (multipart `original` and the given fields); its job id. */
export async function submitImageJob(
  base: string,
  path: string,
  cookie: string,
  image: Buffer,
  fields: Record<string, string> = {},
): Promise<string> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) form.append(name, value);
  form.append('original', new Blob([image], { type: 'image/png' }), 'in.png');
  const res = await fetch(`${base}${path}`, { method: 'POST', body: form, headers: { cookie } });
  const body = (await res.json()) as { content: { job: { _id: string } } };
  if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(body)}`);
  return body.content.job._id;
}

/**
 * The app in this (child) process, listening on a free port, with `users` users holding `credits`
 * each; sends `{port, cookie, cookies}` to the parent (`cookie` is the first user's). Rate limits
 * are lifted so the load measures the uploads; `env` adds settings.
 */
export async function serveBenchApp(
  prefix: string,
  credits: number,
  users = 1,
  env: Record<string, string> = {},
): Promise<void> {
  const { createApp } = await import('../api/src/create-app');
  const { loadConfig } = await import('../src/config/app-config');
  const config = loadConfig({
    ...process.env,
    LOG_LEVEL: 'silent',
    PASSWORD_SCRYPT_LOG_N: '10',
    JOB_RATE_LIMIT_PER_MINUTE: '100000',
    VERIFY_RATE_PER_MINUTE: '100000',
    AUTH_RATE_LIMIT_PER_MINUTE: '100000',
    REDIS_PREFIX: `bench${prefix}${Date.now().toString(36)}`,
    ...env,
  });
  const app = await createApp(config);
  await app.listen(0, '127.0.0.1');
  const port = (app.getHttpServer().address() as { port: number }).port;
  const cookies: string[] = [];
  for (let i = 0; i < users; i++) {
    cookies.push((await benchUser(app, `http://127.0.0.1:${port}`, `${prefix}${i}x`, credits)).cookie);
  }
  process.send!({ port, cookie: cookies[0], cookies });
}
