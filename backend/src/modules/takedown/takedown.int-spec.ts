import sharp from 'sharp';
import request from 'supertest';
import { ReportMessages, type JobView, type ReportView } from '@studio/contracts';
import {
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  makeFolder,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture, pngClaiming, zeroPng } from '../../../test/fixtures';
import { waitForMail } from '../../../test/mailbox';
import { startTestApp, type TestApp } from '../../../test/test-app';
import type { InferenceEngine } from '@studio/inference';
import { AccountsRepository } from '../accounts/accounts.repository';
import { EngineRegistry } from '../engines';
import { AuditService } from '../audit/audit.service';
import { FoldersService } from '../folders/folders.service';
import { FingerprintBackfill } from './fingerprint-backfill';

const FORM = {
  category: 'intimate_without_consent',
  reporterRole: 'depicted',
  name: 'Jane Reporter',
  explanation: 'This picture shows me without my consent.',
  goodFaith: 'true',
  signature: 'Jane Reporter',
};

describe('notice and removal: public reports, copies found across accounts, removal, block list', () => {
  let t: TestApp;
  let admin: Client;
  let alice: Client;
  let bob: Client;
  let carol: Client;
  const adminName = uniqueName('staff');
  let original: { job: JobView; bytes: Buffer };
  let bobsCopy: JobView;
  let unrelated: JobView;

  /** One clone of `picture` (the local engine's noise copy: a real output, marked and stored). */
  const cloneAs = async (client: Client, picture: Buffer): Promise<JobView> => {
    const res = await client.agent
      .post('/api/generateNoise')
      .field('author', client.username)
      .field('amount', '1')
      .attach('original', picture, 'picture.png');
    expect(res.status).toBe(200);
    return res.body.content.job as JobView;
  };

  const report = (fields: Record<string, string>, file?: Buffer, name = 'copy.jpg') => {
    let req = request(t.url).post('/api/reports');
    for (const [key, value] of Object.entries(fields)) req = req.field(key, value);
    if (file) req = req.attach('file', file, name);
    return req;
  };

  const reportCount = async () => {
    const open = await admin.agent.get('/api/admin/reports');
    const decided = await admin.agent.get('/api/admin/reports?status=decided');
    return open.body.content.reports.length + decided.body.content.reports.length;
  };

  beforeAll(async () => {
    t = await startTestApp({
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
      JOB_WAIT_MS: '60000',
      REPORT_RATE_PER_HOUR: '1000',
    });
    admin = await signIn(t, adminName, 'admin-password-1');
    [alice, bob, carol] = await Promise.all([
      signIn(t, uniqueName('alice')),
      signIn(t, uniqueName('bob')),
      signIn(t, uniqueName('carol')),
    ]);
    for (const c of [alice, bob, carol]) await grantCredits(t, c.username, 10);
    const face = await sharp(fixture('cgi-model-1.jpg')).png().toBuffer();
    const job = await cloneAs(alice, face);
    expect(job.state).toBe('succeeded');
    original = { job, bytes: await downloadBytes(alice, job.items[0].url) };
    // Bob stores alice's picture again in his own account (a copy of a copy).
    bobsCopy = await cloneAs(bob, original.bytes);
    expect(bobsCopy.state).toBe('succeeded');
    unrelated = await cloneAs(carol, await sharp(fixture('cgi-model-3.jpg')).png().toBuffer());
    expect(unrelated.state).toBe('succeeded');
  }, 240_000);

  afterAll(async () => {
    await t?.close();
  });

  it('refuses bad reports with a clear 4xx and stores nothing', async () => {
    const copy = await sharp(original.bytes).jpeg({ quality: 75 }).toBuffer();
    const cases: [Record<string, string>, Buffer | undefined, number, string][] = [
      [{ ...FORM, email: 'jane@example.com' }, undefined, 400, ReportMessages.fileOrUrlRequired],
      [
        { ...FORM, email: 'jane@example.com', url: 'javascript:alert(1)' },
        undefined,
        400,
        ReportMessages.badUrl,
      ],
      [{ ...FORM, email: 'not-an-address' }, copy, 400, ReportMessages.emailRequired],
      [
        { ...FORM, email: 'jane@example.com', goodFaith: 'false' },
        copy,
        400,
        ReportMessages.goodFaithRequired,
      ],
      [{ ...FORM, email: 'jane@example.com', signature: ' ' }, copy, 400, ReportMessages.signatureRequired],
      [{ ...FORM, email: 'jane@example.com', category: 'spam' }, copy, 400, ReportMessages.categoryRequired],
      [
        { ...FORM, email: 'jane@example.com', explanation: 'x'.repeat(5001) },
        copy,
        400,
        ReportMessages.tooLong,
      ],
    ];
    for (const [fields, file, status, message] of cases) {
      const res = await report(fields, file);
      expect([res.status, res.body.content]).toEqual([status, message]);
    }
    const notMedia = await report(
      { ...FORM, email: 'jane@example.com' },
      Buffer.from('hello, not a picture'),
    );
    expect(notMedia.status).toBe(400);
    const bomb = pngClaiming(20000, 20000, await zeroPng(8, 8));
    expect((await report({ ...FORM, email: 'jane@example.com' }, bomb, 'bomb.png')).status).toBe(413);
    const json = await request(t.url)
      .post('/api/reports')
      .send({ ...FORM, email: 'jane@example.com', url: 'https://x.example/a' });
    expect([json.status, json.body.content]).toEqual([400, ReportMessages.badForm]);
    expect(await reportCount()).toBe(0);
  });

  it('staff only: the queue and decisions answer 401/403 to others', async () => {
    expect((await request(t.url).get('/api/admin/reports')).status).toBe(401);
    expect((await alice.agent.get('/api/admin/reports')).status).toBe(403);
  });

  it('a JPEG 75 half-size copy finds the original and the copy in another account; a 10% crop too; not the unrelated one', async () => {
    const meta = await sharp(original.bytes).metadata();
    const reporter = `${uniqueName('reporter')}@example.com`;
    const half = await sharp(original.bytes)
      .resize(Math.round(meta.width! / 2))
      .jpeg({ quality: 75 })
      .toBuffer();
    const res = await report({ ...FORM, email: reporter, url: 'https://elsewhere.example/post/1' }, half);
    expect(res.status).toBe(201);
    const receipt = res.body.content.report as { id: string; receivedAt: string; deadline: string };
    expect(Date.parse(receipt.deadline) - Date.parse(receipt.receivedAt)).toBe(48 * 3600_000);
    const mail = await waitForMail(reporter, /received your report/);
    expect(mail.text).toContain(receipt.deadline);

    const cropped = await sharp(original.bytes)
      .extract({
        left: Math.round(meta.width! * 0.1),
        top: 0,
        width: Math.round(meta.width! * 0.9),
        height: meta.height!,
      })
      .jpeg({ quality: 85 })
      .toBuffer();
    const second = await report({ ...FORM, email: reporter }, cropped);
    expect(second.status).toBe(201);

    const queue = (await admin.agent.get('/api/admin/reports')).body.content.reports as ReportView[];
    expect(queue.map((r) => r.id)).toEqual([receipt.id, second.body.content.report.id]); // by deadline
    for (const seen of queue) {
      expect(seen.overdue).toBe(false);
      expect(seen.msLeft).toBeGreaterThan(47 * 3600_000);
      const matched = seen.matches.map((m) => m.itemId).sort();
      expect(matched).toEqual([original.job.items[0]._id, bobsCopy.items[0]._id].sort());
      expect(seen.matches.map((m) => m.ownerName).sort()).toEqual([alice.username, bob.username].sort());
      expect(matched).not.toContain(unrelated.items[0]._id);
    }
    // The second report is rejected: nothing removed, the reporter told.
    const rejected = await admin.agent
      .post(`/api/admin/reports/${second.body.content.report.id}/decision`)
      .send({ action: 'reject', reason: 'Duplicate of an earlier report' });
    expect(rejected.status).toBe(200);
    expect((await alice.agent.get(original.job.items[0].url)).status).toBe(200);
  });

  it('removal takes down every copy, tells owners and the reporter, blocks the picture, audits each step', async () => {
    const reporter = `${uniqueName('reporter')}@example.com`;
    const copy = await sharp(original.bytes).jpeg({ quality: 75 }).toBuffer();
    const filed = await report({ ...FORM, email: reporter }, copy);
    expect(filed.status).toBe(201);
    const id = filed.body.content.report.id as string;
    const decided = await admin.agent
      .post(`/api/admin/reports/${id}/decision`)
      .send({ action: 'remove', reason: 'Intimate image shared without consent' });
    expect(decided.status).toBe(200);
    const view = decided.body.content.report as ReportView;
    expect(view.status).toBe('removed');
    expect(view.matches.every((m) => m.removed)).toBe(true);
    expect(view.matches).toHaveLength(2);
    // A second decision is refused.
    const again = await admin.agent
      .post(`/api/admin/reports/${id}/decision`)
      .send({ action: 'reject', reason: 'no' });
    expect(again.status).toBe(409);

    // Both addresses stop answering with the file.
    expect((await alice.agent.get(original.job.items[0].url)).status).toBe(451);
    expect((await bob.agent.get(bobsCopy.items[0].url)).status).toBe(451);
    expect((await carol.agent.get(unrelated.items[0].url)).status).toBe(200);

    const sor = await waitForMail(`${bob.username}@example.com`, /Statement of reasons/);
    expect(sor.text).toContain('Intimate image shared without consent');
    expect(sor.text).toMatch(/appeal/i);
    await waitForMail(`${alice.username}@example.com`, /Statement of reasons/);
    const outcome = await waitForMail(reporter, /Decision on your report/);
    expect(outcome.text).toContain('We removed the content');

    // The owner appeals once.
    const appeal = await bob.agent
      .post(`/api/reports/appeals/${bobsCopy.items[0]._id}`)
      .send({ text: 'It is my own picture' });
    expect(appeal.status).toBe(200);
    const twice = await bob.agent
      .post(`/api/reports/appeals/${bobsCopy.items[0]._id}`)
      .send({ text: 'again' });
    expect(twice.status).toBe(409);
    const reviewed = (await admin.agent.get(`/api/admin/reports/${id}`)).body.content.report as ReportView;
    expect(reviewed.matches.find((m) => m.itemId === bobsCopy.items[0]._id)?.appeal?.text).toBe(
      'It is my own picture',
    );
    const notHis = await carol.agent
      .post(`/api/reports/appeals/${bobsCopy.items[0]._id}`)
      .send({ text: 'mine?' });
    expect(notHis.status).toBe(404);

    // The removed picture as a tool's input: refused before any charge.
    const before = await balanceOf(bob);
    const asInput = await bob.agent
      .post('/api/generateNoise')
      .field('author', bob.username)
      .field('amount', '1')
      .attach('original', await sharp(original.bytes).jpeg({ quality: 80 }).toBuffer(), 'picture.jpg');
    expect([asInput.status, asInput.body.content]).toEqual([422, ReportMessages.blockedInput]);
    expect(await balanceOf(bob)).toBe(before);
    // An engine that makes the removed picture from another input: the output is withheld, refunded.
    const registry = t.app.get(EngineRegistry);
    const local = registry.engineFor('clone')!;
    const madeAgain = Object.assign(Object.create(local) as InferenceEngine, {
      clone: async () => [{ data: original.bytes, format: 'png' as const }],
    });
    registry.override('clone', madeAgain);
    try {
      const remade = await bob.agent
        .post('/api/generateNoise')
        .field('author', bob.username)
        .field('amount', '1')
        .attach('original', await sharp(fixture('ai-face.jpg')).png().toBuffer(), 'other.png');
      expect([remade.status, remade.body.content]).toEqual([422, ReportMessages.blockedOutput]);
    } finally {
      registry.override('clone', null);
    }
    await eventually(async () => expect(await balanceOf(bob)).toBe(before));
    // An unrelated picture is still made.
    const fine = await cloneAs(carol, await sharp(fixture('ai-face.jpg')).png().toBuffer());
    expect(fine.state).toBe('succeeded');

    const messages = (await t.app.get(AuditService).latest(200)).map((e) => e.message).join('\n');
    expect(messages).toContain(`report ${id} received`);
    expect(messages).toContain(`decided report ${id}: remove`);
    expect(messages).toContain(`item ${original.job.items[0]._id} of ${alice.username} removed`);
    expect(messages).toContain(`item ${bobsCopy.items[0]._id} of ${bob.username} removed`);
    expect(messages).toContain(`report ${id}: reporter told the decision`);
    expect(messages).toContain(`appealed the removal of item ${bobsCopy.items[0]._id}`);
  });

  it('backfills hashes of outputs stored before them, so reports find those too', async () => {
    const carolId = (await t.app.get(AccountsRepository).findByUsername(carol.username))!.id;
    const folderId = await makeFolder(carol, 'Older');
    const picture = await sharp(fixture('ai-upper.jpg')).png().toBuffer();
    const legacy = await t.app
      .get(FoldersService)
      .addItem({ id: carolId, username: carol.username, role: 'user' }, folderId, {
        data: picture,
        kind: 'image',
        contentType: 'image/png',
        title: 'Stored before hashes',
      });
    const copy = await sharp(picture).jpeg({ quality: 75 }).toBuffer();
    const before = await report({ ...FORM, email: 'jane@example.com' }, copy);
    const matchesOf = async (id: string) =>
      ((await admin.agent.get(`/api/admin/reports/${id}`)).body.content.report as ReportView).matches;
    expect(await matchesOf(before.body.content.report.id)).toEqual([]);

    const backfill = t.app.get(FingerprintBackfill);
    expect((await backfill.run()).added).toBeGreaterThanOrEqual(1);
    expect((await backfill.run()).added).toBe(0); // idempotent
    const after = await report({ ...FORM, email: 'jane@example.com' }, copy);
    expect((await matchesOf(after.body.content.report.id)).map((m) => m.itemId)).toEqual([legacy._id]);
  });

  it('takes an anonymous child sexual abuse notice (DSA Art. 16(2)(c)): no name, email or signature', async () => {
    const res = await report({
      category: 'child_sexual_abuse',
      reporterRole: 'other',
      url: 'https://elsewhere.example/post/2',
      explanation: 'Shows a child',
      goodFaith: 'true',
    });
    expect(res.status).toBe(201);
  });
});
