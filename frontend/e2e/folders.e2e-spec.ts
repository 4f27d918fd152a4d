import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { grantCredits, PASSWORD, register, uniqueName } from '../../backend/test/clients';
import { fixture } from '../../backend/test/fixtures';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import type { AuthUser } from '../../backend/src/modules/auth/auth-user';
import { FoldersService } from '../../backend/src/modules/folders/folders.service';
import { confirmation, FRONTEND_DIST, launchBrowser, logInAs, screenshot, toast } from './browser';

/** A PNG of a fixture photo at this size (tiles keep their aspect, so sizes differ on purpose). */
const photo = (name: string, width: number, height: number) =>
  sharp(fixture(name)).resize(width, height).png().toBuffer();

/** A 2 s H.264 clip (as video face swap makes them), from ffmpeg's test pattern. */
function clip(): Buffer {
  const dir = mkdtempSync(join(tmpdir(), 'gallery-clip-'));
  try {
    const out = join(dir, 'clip.mp4');
    execFileSync('ffmpeg', [
      ...['-loglevel', 'error', '-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=10', '-t', '2'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-movflags', '+faststart', out],
    ]);
    return readFileSync(out);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const lightboxTitle = (page: Page) => page.getByTestId('lightbox-bar').locator('.lightbox-title');
const tile = (page: Page, title: string) => page.getByRole('button', { name: `Open ${title}` });
/** Once the lightbox's opening animations are over (for screenshots). */
const animationsDone = (page: Page) =>
  page.waitForFunction(() =>
    document
      .getAnimations()
      .every((a) => a.playState !== 'running' || a.effect?.getTiming().iterations === Infinity),
  );

describe('folders in the browser', () => {
  let t: TestApp;
  let browser: Browser;
  let context: BrowserContext;
  let page: Page;
  let folders: FoldersService;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
    folders = t.app.get(FoldersService);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });
  async function open(viewport = { width: 1280, height: 800 }, colorScheme: 'light' | 'dark' = 'light') {
    context = await browser.newContext({ viewport, colorScheme, acceptDownloads: true });
    page = await context.newPage();
  }
  afterEach(() => context?.close());

  /** A new user, logged in on the page; their AuthUser for seeding folders. */
  async function newUser(prefix: string, credits = 0): Promise<AuthUser> {
    const username = uniqueName(prefix);
    await register(t, username);
    if (credits) await grantCredits(t, username, credits);
    await logInAs(page, t.url, username, PASSWORD);
    const account = (await t.app.get(AccountsRepository).findByUsername(username))!;
    return { id: account.id, username, role: account.role };
  }

  it('creates a folder and shows it as a gallery with a lightbox: keys, download, delete after confirming', async () => {
    await open();
    const me = await newUser('maker');
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
    await page.getByRole('heading', { name: 'Model #1' }).waitFor();
    const folderId = page.url().split('/').pop()!;

    const image = (title: string | undefined, data: Buffer) =>
      folders.addItem(me, folderId, { data, kind: 'image', contentType: 'image/png', title });
    await image('Landscape', await photo('cgi-model-1.jpg', 480, 270));
    await image('Portrait', await photo('cgi-model-3.jpg', 270, 480));
    await image(undefined, await photo('ai-face.jpg', 300, 300));

    await page.reload();
    await tile(page, 'Landscape').waitFor();
    await expect(page.getByTestId('content-item').count()).resolves.toBe(3);
    // Tiles keep their picture's aspect (16:9 and 9:16), no square crops.
    const ratio = async (title: string) => {
      await page.waitForFunction(
        (name) => (document.querySelector(`img[alt="${name}"]`) as HTMLImageElement | null)?.complete,
        title,
      );
      const box = (await tile(page, title).boundingBox())!;
      return box.width / box.height;
    };
    await expect(ratio('Landscape')).resolves.toBeCloseTo(16 / 9, 1);
    await expect(ratio('Portrait')).resolves.toBeCloseTo(9 / 16, 1);
    await screenshot(page, 'gallery-desktop');

    // Newest first: No Title, Portrait, Landscape. The arrows keys move, Esc closes.
    await tile(page, 'Portrait').click();
    await expect(lightboxTitle(page).innerText()).resolves.toBe('Portrait');
    await animationsDone(page);
    await screenshot(page, 'gallery-lightbox-desktop');
    await page.keyboard.press('ArrowRight');
    await lightboxTitle(page).filter({ hasText: 'Landscape' }).waitFor();
    await page.keyboard.press('ArrowLeft');
    await page.keyboard.press('ArrowLeft');
    await lightboxTitle(page).filter({ hasText: 'No Title' }).waitFor();
    await page.keyboard.press('Escape');
    await page.getByTestId('lightbox-bar').waitFor({ state: 'detached' });

    await tile(page, 'Portrait').click();
    const download = page.waitForEvent('download');
    await page.getByTestId('lightbox-bar').getByRole('button', { name: 'Download' }).click();
    expect((await download).suggestedFilename()).toBe('Portrait.png');

    // Delete asks first: cancelling keeps it.
    const bar = page.getByTestId('lightbox-bar');
    await bar.getByRole('button', { name: 'Delete' }).click();
    const confirm = confirmation(page).filter({ hasText: 'Delete this item?' });
    await confirm.getByRole('button', { name: 'Cancel' }).click();
    await confirm.waitFor({ state: 'hidden' });
    await expect(page.getByTestId('content-item').count()).resolves.toBe(3);
    await bar.getByRole('button', { name: 'Delete' }).click();
    await confirm.getByRole('button', { name: 'Delete' }).click();
    await toast(page, 'Deleted!').waitFor();
    // The lightbox moves on to the next item.
    await lightboxTitle(page).filter({ hasText: 'Landscape' }).waitFor();
    await expect(page.getByTestId('content-item').count()).resolves.toBe(2);
    await page.keyboard.press('Escape');
    await page.reload();
    await page.getByTestId('content-item').first().waitFor();
    await expect(page.getByTestId('content-item').count()).resolves.toBe(2);

    await page.goto(`${t.url}/profile`);
    await page.getByTestId('folder-amount').filter({ hasText: '2' }).waitFor();
  });

  it('plays a video in the lightbox and seeks through Range requests (206)', async () => {
    await open();
    const me = await newUser('viewer');
    const folder = await folders.create(me, { title: 'Clips' });
    const video = await folders.addItem(me, folder._id, {
      data: clip(),
      kind: 'video',
      contentType: 'video/mp4',
      title: 'Clip',
    });
    // Chrome's own cache can answer a range from a whole response it kept: every range goes to
    // the server here, so the 206s below are the server's.
    const cdp = await context.newCDPSession(page);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const partial: string[] = [];
    page.on('response', (r) => {
      if (r.url().endsWith(video.url) && r.status() === 206) partial.push(r.headers()['content-range']);
    });
    await page.goto(`${t.url}/profile/bulkInpaints/${folder._id}`);
    await tile(page, 'Clip').click();
    const player = page.getByTestId('lightbox-video');
    await player.waitFor();
    await player.evaluate(async (v: HTMLVideoElement) => {
      v.muted = true;
      await v.play();
    });
    await page.waitForFunction(() => {
      const v = document.querySelector<HTMLVideoElement>('[data-testid="lightbox-video"]');
      return !!v && v.currentTime > 0.2;
    });
    const seeked = await player.evaluate(
      (v: HTMLVideoElement) =>
        new Promise<number>((resolve) => {
          v.pause();
          v.addEventListener('seeked', () => resolve(v.currentTime), { once: true });
          v.currentTime = 1.5;
        }),
    );
    expect(seeked).toBeCloseTo(1.5, 1);
    expect(partial.length).toBeGreaterThan(0);
    expect(partial[0]).toMatch(/^bytes \d+-\d+\/\d+$/);
    await animationsDone(page);
    await screenshot(page, 'gallery-video');
  });

  it('renames and deletes folders from the profile, and its counts follow new items live', async () => {
    await open();
    const me = await newUser('tidy');
    const keep = await folders.create(me, { title: 'Keep' });
    await folders.create(me, { title: 'Empty' });
    await folders.addItem(me, keep._id, {
      data: await photo('ai-face.jpg', 64, 64),
      kind: 'image',
      contentType: 'image/png',
    });
    await page.goto(`${t.url}/profile`);
    const row = (title: string) => page.getByTestId('folder-row').filter({ hasText: title });
    await row('Keep').getByTestId('folder-amount').filter({ hasText: '1' }).waitFor();

    await page.getByRole('button', { name: 'Rename Keep' }).click();
    const modal = page.getByRole('dialog', { name: 'Rename folder' });
    await modal.getByLabel('Folder Name').fill('Kept');
    await modal.getByRole('button', { name: 'Rename' }).click();
    await page.getByRole('link', { name: 'Kept' }).waitFor();

    // A folder with content stays, with the server's reason.
    await page.getByRole('button', { name: 'Delete Kept' }).click();
    await confirmation(page)
      .filter({ hasText: 'Delete “Kept”?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await toast(page, 'Only an empty folder can be deleted').waitFor();
    await page.getByRole('button', { name: 'Delete Empty' }).click();
    await confirmation(page)
      .filter({ hasText: 'Delete “Empty”?' })
      .getByRole('button', { name: 'Delete' })
      .click();
    await toast(page, 'Deleted!').waitFor();
    await row('Empty').waitFor({ state: 'detached' });

    // An item stored elsewhere (a job finishing) raises the count without a reload.
    await folders.addItem(me, keep._id, {
      data: await photo('ai-face.jpg', 64, 64),
      kind: 'image',
      contentType: 'image/png',
    });
    await row('Kept').getByTestId('folder-amount').filter({ hasText: '2' }).waitFor();

    await page.reload();
    await page.getByRole('link', { name: 'Kept' }).waitFor();
    await expect(row('Empty').count()).resolves.toBe(0);
  });

  it('follows a bulk inpaint live: the status moves and results appear without a reload', async () => {
    await open();
    await newUser('bulk', 20);
    const made = await page.request.post(`${t.url}/api/makeFolder`, { data: { title: 'Live batch' } });
    const folderId = ((await made.json()) as { content: { _id: string } }).content._id;
    await page.goto(`${t.url}/profile/bulkInpaints/${folderId}`);
    await page.getByText('No inpaints found.').waitFor();
    let navigations = 0;
    page.on('framenavigated', (frame) => {
      if (frame === page.mainFrame()) navigations += 1;
    });

    const image = (file: string) => photo(file, 96, 96);
    const mask = await sharp({ create: { width: 96, height: 96, channels: 3, background: '#000' } })
      .composite([
        { input: { create: { width: 30, height: 20, channels: 3, background: '#fff' } }, left: 30, top: 40 },
      ])
      .png()
      .toBuffer();
    const answer = await page.request.post(`${t.url}/api/bulkInpaintImage`, {
      multipart: {
        prompt: 'freckles',
        amount: '2',
        folder: folderId,
        inpaintName: 'Waves',
        original: { name: 'a.png', mimeType: 'image/png', buffer: await image('ai-face.jpg') },
        mask: { name: 'mask.png', mimeType: 'image/png', buffer: mask },
        files: { name: 'b.png', mimeType: 'image/png', buffer: await image('ai-upper.jpg') },
      },
    });
    expect(answer.status()).toBe(200);

    // The page was open before the batch existed: its entry, its results and its end all arrive
    // as pushes.
    await page.getByTestId('content-item').nth(3).waitFor({ timeout: 90_000 });
    await page.getByTestId('batch-status').waitFor({ state: 'detached', timeout: 90_000 });
    await expect(page.getByTestId('content-item').count()).resolves.toBe(4);
    expect(navigations).toBe(0);

    // The lightbox tells which job made an item.
    await page.getByTestId('content-item').first().getByRole('button').click();
    await page.getByTestId('lightbox-bar').getByRole('button', { name: 'Job' }).click();
    const details = page.getByTestId('job-details');
    await details.filter({ hasText: 'Magic Brush' }).waitFor();
    await expect(details.innerText()).resolves.toContain('Done');
  }, 120_000);

  it('fits 390 px and dark mode: gallery, lightbox and folder list', async () => {
    await open({ width: 390, height: 844 }, 'dark');
    const me = await newUser('phone');
    const folder = await folders.create(me, { title: 'Phone shots' });
    for (const [title, file, w, h] of [
      ['Wide', 'cgi-model-1.jpg', 480, 270],
      ['Tall', 'cgi-model-3.jpg', 270, 480],
      ['Square', 'ai-face.jpg', 300, 300],
    ] as const) {
      await folders.addItem(me, folder._id, {
        data: await photo(file, w, h),
        kind: 'image',
        contentType: 'image/png',
        title,
      });
    }
    await page.goto(`${t.url}/profile/bulkInpaints/${folder._id}`);
    await page.getByRole('heading', { name: 'Phone shots' }).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('img')].every((img) => img.complete));
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(390);
    await expect(page.evaluate(() => document.documentElement.dataset.theme)).resolves.toBe('dark');
    await screenshot(page, 'gallery-390-dark');
    await tile(page, 'Tall').click();
    await lightboxTitle(page).waitFor();
    await animationsDone(page);
    await screenshot(page, 'gallery-lightbox-390-dark');
    await page.keyboard.press('Escape');
    await page.goto(`${t.url}/profile`);
    await page.getByRole('link', { name: 'Phone shots' }).waitFor();
    await expect(page.evaluate(() => document.documentElement.scrollWidth)).resolves.toBeLessThanOrEqual(390);
    await screenshot(page, 'profile-folders-390-dark');

    // Desktop in dark mode too.
    await page.setViewportSize({ width: 1280, height: 800 });
    await page.goto(`${t.url}/profile/bulkInpaints/${folder._id}`);
    await page.getByRole('heading', { name: 'Phone shots' }).waitFor();
    await page.waitForFunction(() => [...document.querySelectorAll('img')].every((img) => img.complete));
    await screenshot(page, 'gallery-desktop-dark');
  });
});
