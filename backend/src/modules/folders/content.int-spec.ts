import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import request from 'supertest';
import type { Socket } from 'socket.io-client';
import {
  ContentMessages,
  SocketEvents,
  type ContentItem,
  type FolderChange,
  type LogEntry,
} from '@studio/contracts';
import { connectSocket, eventually, nextEvent, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import type { AuthUser } from '../auth/auth-user';
import { FoldersService } from './folders.service';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
const MP4 = Buffer.from('000000186674797069736f6d', 'hex');

describe('folder contents and downloads (ownership)', () => {
  let t: TestApp;
  const adminName = uniqueName('boss');
  let owner: Awaited<ReturnType<typeof signIn>>;
  let stranger: Awaited<ReturnType<typeof signIn>>;
  let folderId: string;
  let portrait: ContentItem;
  let untitled: ContentItem;
  let video: ContentItem;

  const authUser = async (username: string): Promise<AuthUser> => {
    const account = (await t.app.get(AccountsRepository).findByUsername(username))!;
    return { id: account.id, username: account.username, role: account.role };
  };
  const fileOf = (item: ContentItem, ownerId: string) => {
    const dir = join(t.config.STORAGE_DIR, ownerId);
    return { dir, item };
  };

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    owner = await signIn(t, uniqueName('owner'));
    stranger = await signIn(t, uniqueName('stranger'));
    folderId = (await owner.agent.post('/api/makeFolder').send({ author: owner.username, title: 'Model #1' }))
      .body.content._id;
    const folders = t.app.get(FoldersService);
    const me = await authUser(owner.username);
    portrait = await folders.addItem(me, folderId, {
      data: PNG,
      kind: 'image',
      contentType: 'image/png',
      title: 'Portrait',
    });
    untitled = await folders.addItem(me, folderId, { data: PNG, kind: 'image', contentType: 'image/png' });
    video = await folders.addItem(me, folderId, { data: MP4, kind: 'video', contentType: 'video/mp4' });
  });
  afterAll(() => t.close());

  it("lists the owner's folder contents, and 404s everyone else", async () => {
    const res = await owner.agent.get(`/api/getBulkInpaints/${folderId}`);
    expect(res.status).toBe(200);
    expect(res.body.content.title).toBe('Model #1');
    expect(res.body.content.inpaint).toEqual([]);
    expect(res.body.content.inpaints.map((i: ContentItem) => i._id).sort()).toEqual(
      [portrait._id, untitled._id, video._id].sort(),
    );
    expect(video.url).toMatch(/^\/api\/content\/[a-f0-9]{24}\.mp4$/);

    expect((await stranger.agent.get(`/api/getBulkInpaints/${folderId}`)).status).toBe(404);
    expect((await stranger.agent.get('/api/getBulkInpaints/not-an-id')).status).toBe(404);
    expect((await request(t.url).get(`/api/getBulkInpaints/${folderId}`)).status).toBe(401);

    const profile = await owner.agent.get(`/api/getProfile/${owner.username}`);
    expect(profile.body.content.folders).toEqual([{ _id: folderId, title: 'Model #1', amount: 3 }]);
  });

  it('serves files to their owner only', async () => {
    const mine = await owner.agent.get(portrait.url).buffer(true);
    expect(mine.status).toBe(200);
    expect(mine.headers['content-type']).toBe('image/png');
    expect(Buffer.compare(mine.body as Buffer, PNG)).toBe(0);
    expect((await stranger.agent.get(portrait.url)).status).toBe(404);
  });

  it('answers Range requests (video seeking): 206 with Content-Range, 416 outside the file', async () => {
    const bytes = (res: request.Response) => res.body as Buffer;
    const ranged = (range: string, who = owner) =>
      who.agent
        .get(video.url)
        .set('Range', range)
        .buffer(true)
        .parse((stream, done) => {
          const chunks: Buffer[] = [];
          stream.on('data', (c: Buffer) => chunks.push(c));
          stream.on('end', () => done(null, Buffer.concat(chunks)));
        });

    const middle = await ranged('bytes=4-7');
    expect(middle.status).toBe(206);
    expect(middle.headers['content-range']).toBe(`bytes 4-7/${MP4.length}`);
    expect(middle.headers['content-length']).toBe('4');
    expect(middle.headers['content-type']).toBe('video/mp4');
    expect(bytes(middle).equals(MP4.subarray(4, 8))).toBe(true);
    const tail = await ranged('bytes=-3');
    expect([tail.status, tail.headers['content-range']]).toEqual([206, `bytes 9-11/${MP4.length}`]);
    expect(bytes(tail).equals(MP4.subarray(9))).toBe(true);
    // An end past the file is cut to it (RFC 9110), as browsers ask `bytes=0-`.
    const open = await ranged('bytes=2-999');
    expect([open.status, open.headers['content-range']]).toEqual([206, `bytes 2-11/${MP4.length}`]);

    const outside = await ranged(`bytes=${MP4.length}-`);
    expect(outside.status).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${MP4.length}`);
    // What is not one byte range (garbled, several, another unit) gets the whole file; adjacent or
    // overlapping ranges too, not merged into one 206 (`bytes=0-1,2-3` answered `bytes 0-3`).
    for (const range of ['bytes=abc', 'bytes=0-1,5-6', 'bytes=0-1,2-3', 'bytes=0-5,3-8', 'items=0-1']) {
      const whole = await ranged(range);
      expect({ range, status: whole.status, same: bytes(whole).equals(MP4) }).toEqual({
        range,
        status: 200,
        same: true,
      });
      expect(whole.headers['accept-ranges']).toBe('bytes');
    }
    // Another user learns nothing, not even the size.
    for (const range of ['bytes=0-3', `bytes=${MP4.length}-`]) {
      const theirs = await ranged(range, stranger);
      expect([theirs.status, theirs.headers['content-range']]).toEqual([404, undefined]);
    }
  });

  it('downloads as an attachment named after the title, or Content / Swapped Video', async () => {
    const named = await owner.agent
      .post('/api/downloadContent')
      .send({ url: portrait.url, title: 'Portrait' })
      .buffer(true);
    expect(named.status).toBe(200);
    expect(named.headers['content-disposition']).toBe('attachment; filename="Portrait.png"');
    const plain = await owner.agent.post('/api/downloadContent').send({ url: untitled.url });
    expect(plain.headers['content-disposition']).toBe('attachment; filename="Content.png"');
    const clip = await owner.agent.post('/api/downloadContent').send({ url: video.url });
    expect(clip.headers['content-disposition']).toBe('attachment; filename="Swapped Video.mp4"');
  });

  it('refuses another user, path traversal and any outside address with 404', async () => {
    const refused = [
      { who: stranger, url: portrait.url },
      { who: owner, url: '/api/content/../../../etc/passwd' },
      { who: owner, url: `/api/content/${portrait._id}.png/../../x` },
      { who: owner, url: 'http://169.254.169.254/latest/meta-data/' },
      { who: owner, url: `http://example.com${portrait.url}` },
      { who: owner, url: 'file:///etc/passwd' },
    ];
    for (const { who, url } of refused) {
      const res = await who.agent.post('/api/downloadContent').send({ url });
      expect({ url, status: res.status, content: res.body.content }).toEqual({
        url,
        status: 404,
        content: ContentMessages.itemNotFound,
      });
    }
  });

  it("deletes only the owner's items, removing the file from storage", async () => {
    const me = await authUser(owner.username);
    const doomed = await t.app
      .get(FoldersService)
      .addItem(me, folderId, { data: PNG, kind: 'image', contentType: 'image/png', title: 'Doomed' });
    const { dir } = fileOf(doomed, me.id);
    const filesBefore = readdirSync(dir).length;

    expect((await stranger.agent.get(`/api/deleteGen/${doomed._id}`)).status).toBe(404);
    // A link on another site (top-level navigation carries Lax cookies) cannot delete.
    const crossSite = await owner.agent
      .get(`/api/deleteGen/${doomed._id}`)
      .set('Sec-Fetch-Site', 'cross-site');
    expect(crossSite.status).toBe(403);
    expect((await stranger.agent.delete(`/api/content/${doomed._id}`)).status).toBe(404);
    expect((await owner.agent.get(doomed.url)).status).toBe(200);

    const res = await owner.agent.get(`/api/deleteGen/${doomed._id}`).set('Sec-Fetch-Site', 'same-origin');
    expect(res.status).toBe(200);
    expect(res.body.content).toBe('Deleted!');
    expect(readdirSync(dir).length).toBe(filesBefore - 1);
    expect((await owner.agent.get(doomed.url)).status).toBe(404);
    expect((await owner.agent.get(`/api/deleteGen/${doomed._id}`)).status).toBe(404);
    expect(existsSync(dir)).toBe(true);
  });

  it('renames and deletes folders of the owner only; a folder with content stays', async () => {
    expect((await stranger.agent.patch(`/api/folders/${folderId}`).send({ title: 'Mine' })).status).toBe(404);
    expect((await stranger.agent.delete(`/api/folders/${folderId}`)).status).toBe(404);
    const renamed = await owner.agent.patch(`/api/folders/${folderId}`).send({ title: '  Model #2 ' });
    expect(renamed.body.content).toEqual({ _id: folderId, title: 'Model #2', amount: 3 });
    const full = await owner.agent.delete(`/api/folders/${folderId}`);
    expect(full.status).toBe(409);
    expect(full.body.content).toBe(ContentMessages.folderNotEmpty);

    const empty = (await owner.agent.post('/api/makeFolder').send({ title: 'Empty' })).body.content._id;
    expect((await owner.agent.delete(`/api/folders/${empty}`)).status).toBe(200);
    expect((await owner.agent.get(`/api/getBulkInpaints/${empty}`)).status).toBe(404);
  });

  it("pushes a folder's changes to its owner's sockets only", async () => {
    const sockets: Socket[] = [await connectSocket(t, owner.cookie), await connectSocket(t, stranger.cookie)];
    const [mine, theirs] = sockets;
    const strangerGot: FolderChange[] = [];
    theirs.on(SocketEvents.folderChanged, (change: FolderChange) => strangerGot.push(change));
    const nextChange = () => nextEvent<FolderChange>(mine, SocketEvents.folderChanged, 10_000);
    try {
      const folders = t.app.get(FoldersService);
      const me = await authUser(owner.username);
      let change = nextChange();
      const live = await owner.agent.post('/api/makeFolder').send({ title: 'Live' });
      const liveId = live.body.content._id as string;
      await expect(change).resolves.toEqual({
        folderId: liveId,
        folder: { _id: liveId, title: 'Live', amount: 0 },
      });

      change = nextChange();
      const batch = await folders.createBatch(me, liveId, 'STATUS: Beach: 0 of 2 done', 2);
      await folders.setBatchTitle(batch._id, 'STATUS: Beach: 1 of 2 done');
      await expect(change).resolves.toEqual({
        folderId: liveId,
        batch: { _id: batch._id, title: 'STATUS: Beach: 1 of 2 done', amount: 2 },
      });

      change = nextChange();
      const added = await folders.addItem(me, liveId, { data: PNG, kind: 'image', contentType: 'image/png' });
      await expect(change).resolves.toEqual({
        folderId: liveId,
        folder: { _id: liveId, title: 'Live', amount: 1 },
        added: [added],
      });

      change = nextChange();
      await owner.agent.delete(`/api/content/${added._id}`);
      await expect(change).resolves.toEqual({
        folderId: liveId,
        folder: { _id: liveId, title: 'Live', amount: 0 },
        removed: [added._id],
      });

      change = nextChange();
      await owner.agent.patch(`/api/folders/${liveId}`).send({ title: 'Live 2' });
      await expect(change).resolves.toMatchObject({ folder: { title: 'Live 2' } });

      // The stranger's socket is live (a change of their own arrives) and never saw the owner's.
      const own = nextEvent<FolderChange>(theirs, SocketEvents.folderChanged, 10_000);
      await stranger.agent.post('/api/makeFolder').send({ title: 'Theirs' });
      await expect(own).resolves.toMatchObject({ folder: { title: 'Theirs' } });
      expect(strangerGot.map((c) => c.folder?.title)).toEqual(['Theirs']);
    } finally {
      sockets.forEach((s) => s.close());
    }
  });

  it('records folder creation, downloads and deletions in the activity log', async () => {
    const admin = await signIn(t, adminName, 'admin-password-1');
    await eventually(async () => {
      const logs: LogEntry[] = (await admin.agent.get('/api/getlogs')).body.content;
      const mine = logs
        .filter((e) => e.author?.username === owner.username && e.category === 'Folders')
        .map((e) => e.message);
      expect(mine).toEqual(
        expect.arrayContaining([
          'Created folder Model #1.',
          'Downloaded Portrait.',
          'Deleted Doomed.',
          'Deleted folder Empty.',
        ]),
      );
    });
  });
});
