import { getModelToken } from '@nestjs/mongoose';
import { randomBytes } from 'node:crypto';
import type { Model } from 'mongoose';
import request from 'supertest';
import { REPORT_LIMITS, type ReportReceipt } from '@studio/contracts';
import { uniqueName } from '../../../test/clients';
import { mailsTo, waitForMail } from '../../../test/mailbox';
import { startTestApp, type TestApp } from '../../../test/test-app';
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

  it('frees the mailbox once its receipts are 24 hours old (a rolling window)', async () => {
    second = await startTestApp(settings);
    const limit = second.app.get(ReceiptLimit);
    const email = `${uniqueName('window')}@example.com`;
    const start = Date.now();
    for (let i = 0; i < LIMIT; i += 1) expect(await limit.take(email, `r${i}`, start + i)).toBe(true);
    expect(await limit.take(`  ${email.toUpperCase()}`, 'over', start + LIMIT)).toBe(false);
    // The same report asking twice is counted once.
    expect(await limit.take(email, 'r0', start + LIMIT)).toBe(true);
    const nextDay = start + DAY_MS + LIMIT;
    for (let i = 0; i < LIMIT; i += 1) expect(await limit.take(email, `d${i}`, nextDay)).toBe(true);
    expect(await limit.take(email, 'd-over', nextDay)).toBe(false);
  });
});
