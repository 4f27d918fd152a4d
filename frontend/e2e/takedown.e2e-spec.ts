import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import sharp from 'sharp';
import { ReportMessages, type JobView, type ReportView } from '@studio/contracts';
import {
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  makeFolder,
  PASSWORD,
  signIn,
  uniqueName,
  type Client,
} from '../../backend/test/clients';
import { fixture, rectangleMask } from '../../backend/test/fixtures';
import { mailsTo, waitForMail } from '../../backend/test/mailbox';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AuditService } from '../../backend/src/modules/audit/audit.service';
import { mailDate } from '../../backend/src/modules/takedown/takedown-mails';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot } from './browser';

const ADMIN_PASSWORD = 'admin-password-1';

/**
 * Issue 38's whole notice-and-removal flow in Chromium: a visitor with no account reports an
 * output by uploading a re-saved, half-size JPEG copy; the moderator sees the deadline and both
 * the original and a second account's exact copy (alice's file, stored byte for byte as the input
 * of bob's Magic Brush job) and removes them; both addresses then answer 410, the owners have the
 * statement of reasons, the reporter the decision; the removed picture is refused as a Magic Brush
 * or face swap input with nothing charged; the audit log holds each step.
 */
describe('notice and removal in the browser: public report, queue, removal of every copy', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let dir: string;
  let alice: Client;
  let bob: Client;
  const adminName = uniqueName('staff');
  let original: { job: JobView; bytes: Buffer };
  let bobsJob: JobView;
  let mask: Buffer;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'takedown-e2e-'));
    t = await startTestApp({
      FRONTEND_DIST,
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD,
      JOB_WAIT_MS: '60000',
      REPORT_RATE_PER_HOUR: '100',
    });
    browser = await launchBrowser();
    [alice, bob] = await Promise.all([signIn(t, uniqueName('alice')), signIn(t, uniqueName('bob'))]);
    for (const c of [alice, bob]) await grantCredits(t, c.username, 20);
    // Alice's output: a clone of a test face.
    const made = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .field('amount', '1')
      .attach('original', await sharp(fixture('cgi-model-1.jpg')).png().toBuffer(), 'model.png');
    expect(made.body.content.job?.state).toBe('succeeded');
    const job = made.body.content.job as JobView;
    original = { job, bytes: await downloadBytes(alice, job.items[0].url) };
    // Bob gives alice's file, byte for byte, to Magic Brush: the job keeps it as its input, served
    // back to him at /api/jobs/{id}/inputs/0 — an exact copy in a second account.
    const meta = await sharp(original.bytes).metadata();
    mask = await rectangleMask(meta.width!, meta.height!, { left: 4, top: 4, w: 16, h: 16 });
    const brushed = await bob.agent
      .post('/api/bulkInpaintImage')
      .field('author', bob.username)
      .field('prompt', 'freckles')
      .field('amount', '1')
      .field('folder', await makeFolder(bob, 'Edits'))
      .field('inpaintName', 'Edit')
      .attach('original', original.bytes, 'picture.png')
      .attach('mask', mask, 'mask.png');
    expect(brushed.status).toBe(200);
    bobsJob = (brushed.body.content.jobs as JobView[])[0];
    await eventually(async () => {
      const res = await bob.agent.get(`/api/jobs/${bobsJob._id}`);
      expect(res.body.content.state ?? res.body.content.job?.state).toBe('succeeded');
    });
    const input = await bob.agent.get(`/api/jobs/${bobsJob._id}/inputs/0`).buffer(true);
    expect(input.status).toBe(200);
    expect(Buffer.compare(input.body as Buffer, original.bytes)).toBe(0);
  }, 240_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  it('a visitor reports a JPEG 75 half-size copy; the moderator removes every copy; nothing of it can be used again', async () => {
    const reporter = `${uniqueName('reporter')}@example.com`;
    const copy = path.join(dir, 'seen-elsewhere.jpg');
    const meta = await sharp(original.bytes).metadata();
    await writeFile(
      copy,
      await sharp(original.bytes)
        .resize(Math.round(meta.width! / 2))
        .jpeg({ quality: 75 })
        .toBuffer(),
    );

    // 1. A visitor, not logged in, finds the form from the footer and sends the report.
    await page.goto(`${t.url}/`);
    await page.getByRole('contentinfo').getByRole('link', { name: 'Report content' }).click();
    await page.waitForURL(`${t.url}/report`);
    await page.getByRole('heading', { name: /Report content/ }).waitFor();
    await page.locator('input[type=file]').setInputFiles(copy);
    await page.getByText('seen-elsewhere.jpg').first().waitFor();
    await page.getByLabel('Where it appears (address), if you know it').fill('https://elsewhere.example/p/1');
    await page
      .getByLabel('Why it shows the person without consent, or why it is illegal')
      .fill('This is an intimate picture of me, shared without my consent.');
    await page.getByLabel('Your name').fill('Jane Reporter');
    await page.getByLabel('Your email (for the receipt and the decision)').fill(reporter);
    await page.getByText('I state in good faith').click();
    await page.getByLabel('Signature: type your full name').fill('Jane Reporter');
    const sent = page.waitForResponse(
      (r) => r.url().endsWith('/api/reports') && r.request().method() === 'POST',
    );
    await page.getByRole('button', { name: 'Send report' }).click();
    expect((await sent).status()).toBe(201);
    const receipt = page.getByTestId('report-receipt');
    await receipt.getByText('Report received').waitFor();
    const reference = /Reference ([0-9a-f]{24})/.exec(await receipt.innerText())![1];
    await screenshot(page, 'takedown-receipt');
    const receiptMail = await waitForMail(reporter, /received your report/);
    expect(receiptMail.text).toContain(reference);

    // 2. The moderator sees it with its clock and both copies, and removes them.
    await logInAs(page, t.url, adminName, ADMIN_PASSWORD);
    await page.goto(`${t.url}/admin/reports`);
    const row = page.getByTestId('reports-open').locator('tr', { hasText: 'Intimate image without consent' });
    await row.waitFor();
    expect(await row.getByTestId('report-clock').innerText()).toMatch(/^4[78] h \d+ min left$/);
    // The deadline shown is the one mailed (the mail in words in UTC, the page as the browser writes dates).
    const view = (await (await page.request.get(`${t.url}/api/admin/reports/${reference}`)).json()).content
      .report as ReportView;
    const deadline = view.deadline;
    expect(receiptMail.text).toContain(`by ${mailDate(new Date(deadline))}`);
    expect(await row.innerText()).toContain(
      await page.evaluate((at) => new Date(at).toLocaleString(), deadline),
    );
    const aliceItem = original.job.items[0]._id;
    const bobsInput = `${bobsJob._id}:input:0`;
    const lines = await row.getByTestId('report-match').allInnerTexts();
    expect(lines).toEqual(
      expect.arrayContaining([
        expect.stringMatching(
          new RegExp(`^${alice.username} · item ${aliceItem} · perceptual \\(\\d+ bits\\)$`),
        ),
        `${bob.username} · input ${bobsInput} · exact copy of ${aliceItem}`,
      ]),
    );
    await screenshot(page, 'takedown-queue');
    const count = view.matches.length;
    await row.getByRole('button', { name: /^Remove all \d+ cop/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByLabel('Reason').fill('Intimate image shared without consent (TAKE IT DOWN Act)');
    const decided = page.waitForResponse((r) => r.url().endsWith(`/api/admin/reports/${reference}/decision`));
    await dialog.getByRole('button', { name: `Remove all ${count} cop${count === 1 ? 'y' : 'ies'}` }).click();
    expect((await decided).status()).toBe(200);
    await row.waitFor({ state: 'detached' });
    await page.getByText('Decided', { exact: true }).click();
    const done = page
      .getByTestId('reports-decided')
      .locator('tr', { hasText: 'Intimate image without consent' });
    await done.getByText('removed', { exact: true }).waitFor();
    expect(
      (await done.getByTestId('report-match').allInnerTexts()).every((l) => l.includes('· removed')),
    ).toBe(true);
    await screenshot(page, 'takedown-decided');

    // 3. Both addresses answer 410 Gone.
    expect((await alice.agent.get(original.job.items[0].url)).status).toBe(410);
    expect((await bob.agent.get(`/api/jobs/${bobsJob._id}/inputs/0`)).status).toBe(410);
    // Alice, in her browser, sees it gone too.
    const owner = await browser.newContext();
    const ownerPage = await owner.newPage();
    try {
      await logInAs(ownerPage, t.url, alice.username, PASSWORD);
      const served = await ownerPage.request.get(`${t.url}${original.job.items[0].url}`);
      expect([404, 410]).toContain(served.status());
    } finally {
      await owner.close();
    }

    // 4. The owners have the statement of reasons; the reporter the decision.
    for (const who of [alice, bob]) {
      const sor = await waitForMail(`${who.username}@example.com`, /Statement of reasons/);
      expect(sor.text).toContain('Intimate image shared without consent (TAKE IT DOWN Act)');
      expect(sor.text).toMatch(/appeal/i);
      expect(sor.text).toContain(reference);
    }
    const outcome = await waitForMail(reporter, /Decision on your report/);
    expect(outcome.text).toContain('We removed the content');
    expect(outcome.text).toContain('Intimate image shared without consent (TAKE IT DOWN Act)');

    // 5. The removed picture as a new Magic Brush or face swap input: refused, nothing charged.
    const before = await balanceOf(bob);
    const brush = await bob.agent
      .post('/api/bulkInpaintImage')
      .field('author', bob.username)
      .field('prompt', 'freckles')
      .field('amount', '1')
      .field('folder', await makeFolder(bob, 'Again'))
      .field('inpaintName', 'Again')
      .attach('original', original.bytes, 'picture.png')
      .attach('mask', mask, 'mask.png');
    expect([brush.status, brush.body.content]).toEqual([422, ReportMessages.blockedInput]);
    const swap = await bob.agent
      .post('/api/faceSwap')
      .field('author', bob.username)
      .field('folder', await makeFolder(bob, 'Swaps'))
      .field('consent', 'true')
      .attach('Swap0', await readFile(copy), 'face.jpg')
      .attach('Swap1', original.bytes, 'target.png');
    expect([swap.status, swap.body.content]).toEqual([422, ReportMessages.blockedInput]);
    expect(await balanceOf(bob)).toBe(before);

    // 6. The audit log holds each step, shown to the admin on the Logs page too.
    const messages = (await t.app.get(AuditService).latest(100)).map((e) => e.message).join('\n');
    for (const step of [
      `report ${reference} received`,
      `${adminName} decided report ${reference}: remove`,
      `report ${reference}: item ${aliceItem} of ${alice.username} removed`,
      `report ${reference}: stored input ${bobsInput} of ${bob.username} removed (exact)`,
      `report ${reference}: reporter told the decision (remove)`,
    ])
      expect(messages).toContain(step);
    await page.goto(`${t.url}/admin/logs`);
    await page.getByText(`decided report ${reference}: remove`).first().waitFor();
    expect((await mailsTo(reporter)).length).toBe(2); // the receipt and the decision, nothing else

    // 7. The transparency page counts it (records only), and exports the same figures as CSV.
    await page.goto(`${t.url}/admin/reports`);
    await page.getByRole('link', { name: 'Transparency report' }).click();
    const figures = page.getByTestId('transparency-figures');
    await figures.waitFor();
    for (const text of ['Notices received1', 'Notices decided: removed1', 'Decided within 48 hours100 %'])
      await figures.getByText(text.replace(/\d.*$/, ''), { exact: false }).first().waitFor();
    expect(await figures.innerText()).toMatch(/Notices received\s+1\b/);
    expect(await figures.innerText()).toMatch(/Decided within 48 hours\s+100 %/);
    const href = await page.getByTestId('transparency-csv').getAttribute('href');
    const csv = await page.request.get(`${t.url}${href}`);
    expect(csv.headers()['content-type']).toMatch(/^text\/csv/);
    expect(await csv.text()).toContain('notices_removed,1');
    await screenshot(page, 'takedown-transparency');
  }, 240_000);
});
