import { Logger } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type Redis from 'ioredis';
import { createHash, randomBytes } from 'node:crypto';
import type { Model } from 'mongoose';
import request from 'supertest';
import { REPORT_LIMITS, type ReportReceipt } from '@studio/contracts';
import { REDIS } from '../../infrastructure/redis.module';
import { uniqueName } from '../../../test/clients';
import { mailsTo, waitForMail } from '../../../test/mailbox';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { mailboxOf } from '../mail';
import { ReceiptLimit } from './receipt-limit';
import { TakedownReport } from './takedown.schemas';

const LIMIT = REPORT_LIMITS.receiptsPerAddressPerDay;
const DAY_MS = 86_400_000;

/** A valid notice (an address, no file) naming `email`, sent from the client address `from`. */
function report(t: TestApp, email: string, from: string) {
  let req = request(t.url).post('/api/reports').set('X-Forwarded-For', from);
  for (const [key, value] of Object.entries({
    category: 'intimate_without_consent',
    reporterRole: 'depicted',
    name: 'Someone',
    email,
    url: 'https://elsewhere.example/post/1',
    explanation: 'This picture shows me without my consent.',
    goodFaith: 'true',
    signature: 'Someone',
  }))
    req = req.field(key, value);
  return req;
}

/** Where the limit keeps one mailbox's receipts (a sorted set of report ids by time, in ms). */
const receiptsKey = (t: TestApp, email: string) =>
  `${t.config.REDIS_PREFIX}:report-receipts:${createHash('sha256').update(mailboxOf(email)).digest('hex')}`;

const receiptsAmong = async (addresses: string[]) =>
  (await Promise.all([...new Set(addresses)].map((address) => mailsTo(address))))
    .flat()
    .filter((mail) => /received your report/.test(mail.subject));

describe('report receipts: a few a day to one mailbox, however many senders name it (real Redis, mail catcher)', () => {
  // One Redis prefix for both apps below: the count must outlive the app that kept it.
  const settings = { TRUST_PROXY: 'loopback', REDIS_PREFIX: `t_receipts_${randomBytes(4).toString('hex')}` };
  let first: TestApp | undefined;
  let second: TestApp | undefined;
  afterAll(async () => {
    await first?.close();
    await second?.close();
  });

  it(`mails ${LIMIT} receipts for ten reports from ten senders naming one mailbox in ten spellings, receives all ten, and keeps counting after a restart`, async () => {
    first = await startTestApp(settings);
    const name = uniqueName('victim').toLowerCase();
    // One Gmail mailbox: dots and +tags do not count.
    const spellings = Array.from({ length: 10 }, (_, i) =>
      i % 2 === 0 ? `${name}+r${i}@gmail.com` : `${name.slice(0, 3)}.${name.slice(3)}+r${i}@gmail.com`,
    );
    // All at once, each from its own client address (the per-sender limit does not come into it).
    const answers = await Promise.all(
      spellings.map((email, i) => report(first!, email, `198.51.100.${60 + i}`)),
    );
    expect(answers.map((res) => res.status)).toEqual(spellings.map(() => 201));
    const receipts = answers.map((res) => res.body.content.report as ReportReceipt);
    expect(receipts.filter((r) => r.receiptMailed)).toHaveLength(LIMIT);
    const mailedTo = spellings.filter((_, i) => receipts[i]!.receiptMailed);

    // Every report is received and queued for staff, mailed or not.
    const reports = first.app.get(getModelToken(TakedownReport.name)) as Model<TakedownReport>;
    expect(await reports.countDocuments({ 'reporter.email': { $in: spellings }, status: 'open' })).toBe(10);

    // Closing the app waits for the mails it had in flight: the catcher then holds all there are.
    await first.close();
    first = undefined;
    const caught = await receiptsAmong(spellings);
    expect(
      caught
        .map((mail) => mail.to.map((to) => to.toLowerCase()))
        .flat()
        .sort(),
    ).toEqual(mailedTo.sort());

    // A new app on the same Redis: the mailbox is still at its limit; another mailbox is not.
    second = await startTestApp(settings);
    const plain = `${name}@gmail.com`;
    const again = await report(second, plain, '198.51.100.80');
    expect([again.status, again.body.content.report.receiptMailed]).toEqual([201, false]);
    const stranger = `${uniqueName('other')}@example.com`.toLowerCase();
    const other = await report(second, stranger, '198.51.100.81');
    expect([other.status, other.body.content.report.receiptMailed]).toEqual([201, true]);
    await waitForMail(stranger, /received your report/);
    await second.close();
    second = undefined;
    expect(await receiptsAmong([...spellings, plain])).toHaveLength(LIMIT);
  });

  it("frees the mailbox once its receipts are 24 hours old by Redis's clock (a rolling window)", async () => {
    second = await startTestApp(settings);
    const limit = second.app.get(ReceiptLimit);
    const redis = second.app.get<Redis>(REDIS);
    const email = `${uniqueName('window')}@example.com`;
    for (let i = 0; i < LIMIT; i += 1) expect(await limit.take(email, `r${i}`)).toBe(true);
    expect(await limit.take(`  ${email.toUpperCase()}`, 'over')).toBe(false);
    // The same report asking twice is counted once.
    expect(await limit.take(email, 'r0')).toBe(true);
    // A day passes for the receipts: their times, Redis's, go back 24 h and a second.
    const [seconds, micros] = await redis.time();
    const dayAgo = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000) - DAY_MS - 1000;
    for (let i = 0; i < LIMIT; i += 1)
      expect(await redis.zadd(receiptsKey(second, email), 'XX', 'CH', dayAgo, `r${i}`)).toBe(1);
    for (let i = 0; i < LIMIT; i += 1) expect(await limit.take(email, `d${i}`)).toBe(true);
    expect(await limit.take(email, 'd-over')).toBe(false);
    await second.close();
    second = undefined;
  });

  it("keeps one window for instances whose clocks disagree: the time is Redis's, not the caller's", async () => {
    second = await startTestApp(settings);
    const limit = second.app.get(ReceiptLimit);
    const email = `${uniqueName('skew')}@example.com`;
    for (let i = 0; i < LIMIT; i += 1) expect(await limit.take(email, `r${i}`)).toBe(true);
    // This process's clock a day and a minute ahead, then behind (an instance with a skewed clock).
    for (const skew of [DAY_MS + 60_000, -(DAY_MS + 60_000)]) {
      const realNow = Date.now.bind(Date);
      const clock = jest.spyOn(Date, 'now').mockImplementation(() => realNow() + skew);
      try {
        expect(await limit.take(email, `skewed${skew}`)).toBe(false);
      } finally {
        clock.mockRestore();
      }
    }
    expect(await limit.take(email, 'later')).toBe(false);
    await second.close();
    second = undefined;
  });

  it('answers the report 201 with receiptMailed false when the receipt count fails in Redis, and mails nothing', async () => {
    second = await startTestApp(settings);
    const redis = second.app.get<Redis>(REDIS);
    const email = `${uniqueName('countfails')}@example.com`.toLowerCase();
    // The mailbox's key holds a string: Redis refuses the count's commands (WRONGTYPE).
    await redis.set(receiptsKey(second, email), 'not a sorted set');
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const res = await report(second, email, '198.51.100.90');
      expect(res.status).toBe(201);
      const receipt = res.body.content.report as ReportReceipt;
      expect(receipt.receiptMailed).toBe(false);
      // Recorded and queued for staff all the same.
      const reports = second.app.get(getModelToken(TakedownReport.name)) as Model<TakedownReport>;
      expect(await reports.countDocuments({ _id: receipt.id, 'reporter.email': email, status: 'open' })).toBe(
        1,
      );
      // Logged, with the report and without the address.
      const lines = warn.mock.calls.map((call) => String(call[0]));
      expect(
        lines.filter((line) => line.includes(receipt.id) && /receipt count failed/.test(line)),
      ).toHaveLength(1);
      expect(lines.filter((line) => line.toLowerCase().includes(email))).toEqual([]);
    } finally {
      warn.mockRestore();
    }
    await second.close();
    second = undefined;
    expect(await receiptsAmong([email])).toEqual([]);
  });
});
