import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { uniqueName } from '../../backend/test/clients';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { LedgerService } from '../../backend/src/modules/billing/ledger.service';
import {
  FRONTEND_DIST,
  launchBrowser,
  logInAs,
  openedMenu,
  registerInBrowser,
  screenshot,
  settledBox,
  toast,
  waitUntil,
  watchSocket,
} from './browser';

describe('accounts in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  const adminName = uniqueName('admin');
  const adminPassword = 'admin-password-e2e';

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST, ADMIN_USERNAME: adminName, ADMIN_PASSWORD: adminPassword });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  const logIn = (username: string, password: string) => logInAs(page, t.url, username, password);

  it('registers, logs in, sees profile and a live balance, logs out', async () => {
    const username = uniqueName('eve');
    const password = 'browser-pass-1';

    await registerInBrowser(page, t.url, username, password);
    expect(await page.evaluate(() => localStorage.getItem('registered'))).toBe('true');

    // One registration per browser.
    await page.goto(`${t.url}/register`);
    await page.getByLabel('Username').fill(uniqueName('again'));
    await page.getByLabel('Email').fill('again@example.com');
    await page.getByLabel('Password').fill(password);
    await page.getByText('I confirm that I am 18 or older').click();
    await page.getByRole('button', { name: 'Register' }).click();
    await toast(page, 'Max accounts reached!').waitFor();

    const socket = watchSocket(page);
    await logIn(username, password);
    await page.waitForURL(`${t.url}/`);
    await expect(page.getByTestId('account-menu').innerText()).resolves.toContain(username);
    await expect(page.getByTestId('balance').innerText()).resolves.toContain('0');

    // A balance change elsewhere arrives over the socket without a reload (once it has joined).
    await waitUntil(() => socket.readies() > 0, 20_000);
    const account = (await t.app.get(AccountsRepository).findByUsername(username))!;
    await t.app.get(LedgerService).credit({
      key: `e2e-grant-${account.id}`,
      userId: account.id,
      username,
      kind: 'grant',
      amount: 200,
      reason: 'welcome gift',
    });
    await page.getByTestId('balance').filter({ hasText: '200' }).waitFor();
    // The grant is announced with its reason.
    const grantToast = toast(page, 'Support added 200 credits').filter({ hasText: 'welcome gift' });
    await grantToast.waitFor();
    // Toasts open below the header: the new balance and the account menu stay in sight, and the
    // menu, once opened, is covered by no toast (a plain click, no forcing).
    const header = (await page.locator('.app-header').boundingBox())!;
    await settledBox(grantToast);
    expect((await grantToast.boundingBox())!.y).toBeGreaterThanOrEqual(header.y + header.height);
    await page.getByTestId('account-menu').click();
    const profile = openedMenu(page).getByRole('menuitem', { name: 'Profile' });
    await profile.waitFor();
    const item = await settledBox(profile);
    const menuOnTop = await page.evaluate(
      ([x, y]) => Boolean(document.elementFromPoint(x, y)?.closest('.ant-dropdown')),
      [item.x + item.width / 2, item.y + item.height / 2],
    );
    expect(menuOnTop).toBe(true);
    await screenshot(page, 'account-menu-over-toast');
    await profile.click({ timeout: 5_000 });
    await page.waitForURL(`${t.url}/profile`);
    await page.getByRole('heading', { name: username }).waitFor();
    await page.getByRole('button', { name: 'Inpaints' }).waitFor();
    await screenshot(page, 'profile-logged-in');

    // Session restore: a reload keeps the person signed in with their balance.
    await page.reload();
    await page.getByTestId('balance').filter({ hasText: '200' }).waitFor();

    await page.getByTestId('account-menu').click();
    // Counted in the open menu: before it opens, no Logs entry would be found either way.
    const logOut = openedMenu(page).getByRole('menuitem', { name: 'Log out' });
    await logOut.waitFor();
    expect(await openedMenu(page).getByRole('menuitem', { name: 'Logs' }).count()).toBe(0);
    await logOut.click();
    // Logged out: the menu button no longer carries the name (and the dropdown has closed).
    await page.getByTestId('account-menu').filter({ hasNotText: username }).waitFor();
    await page.getByRole('menu').waitFor({ state: 'hidden' });
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Log in' }).waitFor();
    expect(await page.evaluate(() => localStorage.getItem('account'))).toBeNull();
    // The server session is gone too.
    const status = await page.evaluate(async () => (await fetch('/api/session')).status);
    expect(status).toBe(401);
  });

  it('shows a wrong password as a toast with the server text', async () => {
    await page.goto(`${t.url}/login`);
    await page.getByLabel('Username').fill(adminName);
    await page.getByLabel('Password').fill('not-the-password');
    await page.getByRole('button', { name: 'Log In' }).click();
    await toast(page, 'Wrong username or password').waitFor();
    await screenshot(page, 'login-wrong-password');
  });

  it('offers admins the Logs entry', async () => {
    await logIn(adminName, adminPassword);
    await page.getByTestId('account-menu').click();
    await page.getByRole('menuitem', { name: 'Logs' }).waitFor();
    await screenshot(page, 'admin-menu');
  });

  it('shows the Not Found page with a way home', async () => {
    await page.goto(`${t.url}/no/such/page`);
    await page.getByRole('button', { name: 'Homepage' }).click();
    await page.waitForURL(`${t.url}/`);
  });
});
