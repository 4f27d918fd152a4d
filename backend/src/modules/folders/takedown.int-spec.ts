import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { ContentItem } from '@studio/contracts';
import { connectSocket, eventually, makeFolder, nextEvent, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { unzip } from '../../../test/zip';
import { AccountsRepository } from '../accounts/accounts.repository';
import { AuditService } from '../audit/audit.service';
import { FoldersService } from './folders.service';

const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

describe('content takedown by admins', () => {
  let t: TestApp;
  const adminName = uniqueName('mod');
  let admin: Awaited<ReturnType<typeof signIn>>;
  let owner: Awaited<ReturnType<typeof signIn>>;
  let ownerId: string;
  let folderId: string;

  const addItem = async (title: string): Promise<ContentItem> =>
    t.app.get(FoldersService).addItem({ id: ownerId, username: owner.username, role: 'user' }, folderId, {
      data: PNG,
      kind: 'image',
      contentType: 'image/png',
      title,
    });

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    admin = await signIn(t, adminName, 'admin-password-1');
    owner = await signIn(t, uniqueName('creator'));
    ownerId = (await t.app.get(AccountsRepository).findByUsername(owner.username))!.id;
    folderId = await makeFolder(owner, 'Mine');
  });

  afterAll(async () => {
    await t?.close();
  });

  it('keeps taken-down files out of the account export (hide and delete), listing them with the reason', async () => {
    const kept = await addItem('Kept');
    const hidden = await addItem('Hidden');
    const removed = await addItem('Removed');
    for (const [item, mode] of [
      [hidden, 'hide'],
      [removed, 'delete'],
    ] as const) {
      const res = await admin.agent
        .post(`/api/admin/content/${item._id}/takedown`)
        .send({ reason: `Taken down (${mode})`, mode });
      expect(res.status).toBe(200);
    }
    const res = await owner.agent
      .get('/api/account/export')
      .buffer(true)
      .parse((stream, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(res.status).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const files = await unzip(res.body as Buffer);
    const itemFiles = [...files.keys()].filter((name) => name.startsWith('items/'));
    expect(itemFiles.some((name) => name.includes(kept._id))).toBe(true);
    expect(itemFiles.filter((name) => name.includes(hidden._id) || name.includes(removed._id))).toEqual([]);
    const listed = files.get('taken-down.csv')!.toString();
    expect(listed).toContain(`${hidden._id},Hidden,`);
    expect(listed).toContain('Taken down (delete)');
  });

  it('hides an item: kept, not served, the owner is told why at once', async () => {
    const item = await addItem('Beach');
    const socket = await connectSocket(t, owner.cookie);
    try {
      const told = nextEvent<{ itemId: string; reason: string; mode: string }>(
        socket,
        'content.taken_down',
        10_000,
      );
      const res = await admin.agent
        .post(`/api/admin/content/${item._id}/takedown`)
        .send({ reason: 'Reported as a real person without consent', mode: 'hide' });
      expect(res.status).toBe(200);
      expect(await told).toMatchObject({
        itemId: item._id,
        mode: 'hide',
        reason: 'Reported as a real person without consent',
      });
    } finally {
      socket.close();
    }
    const contents = (await owner.agent.get(`/api/getBulkInpaints/${folderId}`)).body.content
      .inpaints as ContentItem[];
    expect(contents.find((i) => i._id === item._id)).toMatchObject({
      visible: false,
      takedown: { reason: 'Reported as a real person without consent', mode: 'hide' },
    });
    const served = await owner.agent.get(item.url);
    expect(served.status).toBe(451);
    expect(served.body.content).toContain('Reported as a real person without consent');
    await eventually(async () => {
      const log = await t.app.get(AuditService).latest(20);
      expect(
        log.some((e) => e.message === `Hid Beach of ${owner.username}.` && e.author?.username === adminName),
      ).toBe(true);
    });
  });

  it('deletes the file of an item and keeps the notice', async () => {
    const item = await addItem('Party');
    const files = () => readdirSync(join(t.config.STORAGE_DIR, ownerId)).length;
    const before = files();
    const res = await admin.agent
      .post(`/api/admin/content/${item._id}/takedown`)
      .send({ reason: 'Illegal', mode: 'delete' });
    expect(res.status).toBe(200);
    expect(files()).toBe(before - 1);
    expect((await owner.agent.get(item.url)).status).toBe(410);
  });

  it('is for admins only, with a reason and a known mode', async () => {
    const item = await addItem('Safe');
    expect(
      (await owner.agent.post(`/api/admin/content/${item._id}/takedown`).send({ reason: 'x', mode: 'hide' }))
        .status,
    ).toBe(403);
    expect(
      (await admin.agent.post(`/api/admin/content/${item._id}/takedown`).send({ reason: '', mode: 'hide' }))
        .status,
    ).toBe(400);
    expect(
      (await admin.agent.post(`/api/admin/content/${item._id}/takedown`).send({ reason: 'x', mode: 'burn' }))
        .status,
    ).toBe(400);
    expect(
      (
        await admin.agent
          .post('/api/admin/content/64b000000000000000000000/takedown')
          .send({ reason: 'x', mode: 'hide' })
      ).status,
    ).toBe(404);
    expect((await owner.agent.get(item.url)).status).toBe(200);
  });
});
