import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { PASSWORD, signIn, uniqueName } from '../../backend/test/clients';
import { startTestApp, type TestApp } from '../../backend/test/test-app';
import { AccountsRepository } from '../../backend/src/modules/accounts/accounts.repository';
import { FRONTEND_DIST, launchBrowser, logInAs } from './browser';

/**
 * Issue 25 point 1 in a real browser: a page served on another port of the same host (same site,
 * so the SameSite=Lax cookie rides along) posts no-cors form and multipart bodies at the studio
 * with the victim's cookie. Nothing may change.
 */
describe('forged requests from another port of the same host', () => {
  let t: TestApp;
  let browser: Browser;
  let attacker: Server;
  let attackerUrl: string;

  beforeAll(async () => {
    t = await startTestApp({ FRONTEND_DIST });
    browser = await launchBrowser();
    // The hostile page: its script is given the studio's address and the forged requests to send.
    attacker = createServer((_req, res) => {
      res.setHeader('Content-Type', 'text/html');
      res.end('<!doctype html><title>cats</title><p>cute cats</p>');
    });
    await new Promise<void>((resolve) => attacker.listen(0, '127.0.0.1', resolve));
    attackerUrl = `http://127.0.0.1:${(attacker.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await browser?.close();
    await new Promise((resolve) => attacker?.close(resolve));
    await t?.close();
  });

  it("a same-site page can neither create a folder with a user's cookie nor make support credit anyone", async () => {
    const repo = t.app.get(AccountsRepository);
    const staff = await signIn(t, uniqueName('help'));
    await repo.setRole((await repo.findByUsername(staff.username))!.id, 'support');
    const beneficiary = await signIn(t, uniqueName('mal'));

    const context = await browser.newContext();
    const page = await context.newPage();
    await logInAs(page, t.url, staff.username, PASSWORD);
    await page.goto(attackerUrl);
    await page.evaluate(
      async ({ studio, username }) => {
        const form = new URLSearchParams({ username, amount: '50', reason: 'gift' });
        const multipart = new FormData();
        multipart.set('title', 'forged');
        const sent = [
          fetch(`${studio}/api/support/reimburse`, {
            method: 'POST',
            mode: 'no-cors',
            credentials: 'include',
            body: form,
          }),
          fetch(`${studio}/api/makeFolder`, {
            method: 'POST',
            mode: 'no-cors',
            credentials: 'include',
            body: multipart,
          }),
        ];
        // The page cannot read the answers (no-cors; Cross-Origin-Resource-Policy even turns them
        // into network errors): what matters is what the server did, checked below.
        await Promise.allSettled(sent);
      },
      { studio: t.url, username: beneficiary.username },
    );

    const account = await repo.findByUsername(beneficiary.username);
    expect((await repo.balanceOf(account!.id)).balance).toBe(0);
    const profile = await staff.agent.get(`/api/getProfile/${staff.username}`);
    expect(profile.body.content.folders).toEqual([]);

    // The same browser on the studio's own page still works.
    await page.goto(`${t.url}/profile`);
    const own = await page.evaluate(async () => {
      const res = await fetch('/api/makeFolder', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ title: 'mine' }),
      });
      return res.status;
    });
    expect(own).toBe(200);
    await context.close();
  });
});
