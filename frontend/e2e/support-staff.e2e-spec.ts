import { CREDIT_APPROVAL_THRESHOLD, plural } from '@studio/contracts';
import type { Browser, Page } from 'playwright-core';
import { PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { FRONTEND_DIST, launchBrowser, logInAs, toast } from './browser';

/**
 * Issue 13 point 4 in the browser: an admin gives the support role on the Support page, and a
 * grant above the threshold waits until a second admin approves it there.
 */
describe('support staff: role switch and grant approval', () => {
  const adminName = uniqueName('root');
  const adminPassword = 'admin-password-1';
  let t: TestApp;
  let browser: Browser;
  let admin: Page;
  let second: Page;
  const helper = uniqueName('helper');
  const secondAdmin = uniqueName('boss');
  // Not the helper: staff never credit an account they promoted (issue 25 point 7).
  const winner = uniqueName('winner');

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, ADMIN_USERNAME: adminName, ADMIN_PASSWORD: adminPassword });
    await register(t, helper);
    await register(t, secondAdmin);
    await register(t, winner);
    const repo = t.app.get(AccountsRepository);
    await repo.setRole((await repo.findByUsername(secondAdmin))!.id, 'admin');
    browser = await launchBrowser();
    admin = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    second = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await logInAs(admin, t.url, adminName, adminPassword);
    await logInAs(second, t.url, secondAdmin, PASSWORD);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  async function pick(page: Page, username: string) {
    await page.goto(`${t.url}/admin/support`);
    await page.getByLabel('Find a user').fill(username);
    await page.getByLabel('Find a user').press('Enter');
    await page.getByTestId(`user-${username}`).click();
  }

  it('gives a user the support role from the Support page', async () => {
    await pick(admin, helper);
    await admin.getByLabel('Role').getByText('support', { exact: true }).click();
    await toast(admin, `${helper} is now support staff`).waitFor();
    const repo = t.app.get(AccountsRepository);
    expect((await repo.findByUsername(helper))!.role).toBe('support');
  }, 60_000);

  it('holds a large grant until another admin approves it, then credits it once', async () => {
    const amount = CREDIT_APPROVAL_THRESHOLD + 1;
    await pick(admin, winner);
    const form = admin.locator('form#grant');
    await form.getByLabel('Credits').fill(String(amount));
    await form.getByLabel('Reason').fill('Event prize');
    await form.getByRole('button', { name: 'Grant' }).click();
    await toast(
      admin,
      `${plural(amount, 'credit')} to ${winner}: waiting for another admin to approve`,
    ).waitFor();
    const mine = admin.locator('.ant-card').filter({ hasText: 'Grants waiting for approval' });
    await mine.locator('tr.ant-table-row').filter({ hasText: 'Another admin decides' }).waitFor();

    await second.goto(`${t.url}/admin/support`);
    const card = second.locator('.ant-card').filter({ hasText: 'Grants waiting for approval' });
    const row = card
      .locator('tr.ant-table-row')
      .filter({ hasText: winner })
      .filter({ hasText: 'Event prize' });
    await row.getByRole('button', { name: 'Approve' }).click();
    await toast(second, `Approved: ${plural(amount, 'credit')} to ${winner}`).waitFor();
    await row
      .filter({ hasText: 'approved' })
      .filter({ hasText: `by ${secondAdmin}` })
      .waitFor();
    const repo = t.app.get(AccountsRepository);
    expect((await repo.balanceOf((await repo.findByUsername(winner))!.id)).balance).toBe(amount);
  }, 60_000);
});
