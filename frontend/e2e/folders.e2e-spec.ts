import type { Browser, BrowserContext, Page } from 'playwright-core';
import { PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { FoldersService } from '../../backend/src/modules/folders/folders.service';
import { FRONTEND_DIST, launchBrowser, logInAs, screenshot, toast } from './browser';

// A real 2x2 PNG, so the previews render.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAACCAIAAAD91JpzAAAAFklEQVR4nGP8z8DAwMDAxMDAwMDAAAANHQEDasKb6QAAAABJRU5ErkJggg==',
  'base64',
);

describe('folders in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  beforeEach(async () => {
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, acceptDownloads: true });
    page = await context.newPage();
  });
  afterEach(() => context.close());

  it('creates a folder, opens it empty, then shows, downloads and deletes its items', async () => {
    const username = uniqueName('maker');
    await register(t, username);
    await logInAs(page, t.url, username, PASSWORD);
    await page.goto(`${t.url}/profile`);

    await page.getByRole('button', { name: 'Create Folder' }).click();
    const modal = page.getByRole('dialog', { name: 'Create new folder' });
    await expect(modal.getByPlaceholder('Model #1...').isVisible()).resolves.toBe(true);
    let sent = 0;
    page.on('request', (r) => {
      if (r.url().endsWith('/api/makeFolder')) sent += 1;
    });
    await modal.getByRole('button', { name: 'Create Folder' }).click();
    await toast(page, 'Folder name required').waitFor();
    expect(sent).toBe(0);
    await modal.getByLabel('Folder Name').fill('Model #1');
    await modal.getByRole('button', { name: 'Create Folder' }).click();
    await modal.waitFor({ state: 'hidden' });
    const folderLink = page.getByRole('link', { name: 'Model #1' });
    await folderLink.waitFor();
    await expect(page.getByTestId('folder-amount').innerText()).resolves.toBe('0');
    expect(sent).toBe(1);

    await folderLink.click();
    await page.waitForURL(/\/profile\/bulkInpaints\/[a-f0-9]{24}$/);
    await page.getByText('No inpaints found.').waitFor();
    const folderId = page.url().split('/').pop()!;

    const account = (await t.app.get(AccountsRepository).findByUsername(username))!;
    const me = { id: account.id, username: account.username, role: account.role };
    const folders = t.app.get(FoldersService);
    await folders.addItem(me, folderId, {
      data: PNG,
      kind: 'image',
      contentType: 'image/png',
      title: 'Sunset',
    });
    await folders.addItem(me, folderId, { data: PNG, kind: 'image', contentType: 'image/png' });

    await page.reload();
    await page.getByText('No Title').waitFor();
    await expect(page.getByTestId('content-item').count()).resolves.toBe(2);
    await screenshot(page, 'folder-contents');

    const download = page.waitForEvent('download');
    await page.getByRole('button', { name: 'Download Sunset' }).click();
    expect((await download).suggestedFilename()).toBe('Sunset.png');

    await page
      .getByTestId('content-item')
      .filter({ hasText: 'Sunset' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await toast(page, 'Deleted!').waitFor();
    await page.getByTestId('content-item').filter({ hasText: 'Sunset' }).waitFor({ state: 'detached' });
    await expect(page.getByTestId('content-item').count()).resolves.toBe(1);
    await page.reload();
    await page.getByText('No Title').waitFor();
    await expect(page.getByTestId('content-item').count()).resolves.toBe(1);

    await page.goto(`${t.url}/profile`);
    await page.getByTestId('folder-amount').filter({ hasText: '1' }).waitFor();
  });

  it("shows another user's folder as not found", async () => {
    const owner = uniqueName('owner');
    await register(t, owner);
    const account = (await t.app.get(AccountsRepository).findByUsername(owner))!;
    const folder = await t.app
      .get(FoldersService)
      .create({ id: account.id, username: owner, role: 'user' }, { title: 'Private' });

    const visitor = uniqueName('visitor');
    await register(t, visitor);
    await logInAs(page, t.url, visitor, PASSWORD);
    await page.goto(`${t.url}/profile/bulkInpaints/${folder._id}`);
    await page.getByText('Folder not found').waitFor();
  });
});
