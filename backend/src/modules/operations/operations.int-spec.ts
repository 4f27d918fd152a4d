import request from 'supertest';
import { OperationsSocketEvents, type OperationsState } from '@studio/contracts';
import { connectSocket, eventually, nextEvent, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AuditService } from '../audit/audit.service';

describe('operations: maintenance notices and feature flags', () => {
  let t: TestApp;
  const adminName = uniqueName('ops');
  let admin: Awaited<ReturnType<typeof signIn>>;
  let user: Awaited<ReturnType<typeof signIn>>;

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
    admin = await signIn(t, adminName, 'admin-password-1');
    user = await signIn(t, uniqueName('viewer'));
  });

  afterAll(async () => {
    await t?.close();
  });

  it('starts with no notices, video swap off, and generation not configured', async () => {
    const res = await request(t.url).get('/api/operations');
    expect(res.status).toBe(200);
    const state = res.body.content as OperationsState;
    expect(state.notices).toEqual([]);
    expect(state.flags).toEqual({ videoFaceSwap: false });
    expect(state.capabilities).toMatchObject({
      clone: true,
      superResolution: true,
      faceSwap: true,
      inpaint: true,
      generate: false,
      faceSwapVideo: true,
    });
    // the screens say what the CPU engine means (Magic Brush: the prompt is not used)
    expect(state.engines).toMatchObject({ inpaint: 'local', superResolution: 'local', generate: null });
  });

  it('lets only admins set notices and flags', async () => {
    const notice = { text: 'Down for maintenance', severity: 'warning', enabled: true };
    expect((await user.agent.put('/api/admin/notices/inpaint').send(notice)).status).toBe(403);
    expect((await request(t.url).put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(401);
    expect((await user.agent.put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(403);
    expect((await admin.agent.put('/api/admin/notices/nonsense').send(notice)).status).toBe(404);
    expect(
      (await admin.agent.put('/api/admin/notices/inpaint').send({ ...notice, severity: 'loud' })).status,
    ).toBe(400);
    expect((await request(t.url).get('/api/operations')).body.content.notices).toEqual([]);
  });

  it('pushes a new notice and a flag to every connected browser at once, and logs who did it', async () => {
    const socket = await connectSocket(t, user.cookie);
    try {
      const pushed = nextEvent<OperationsState>(socket, OperationsSocketEvents.changed, 10_000);
      const res = await admin.agent
        .put('/api/admin/notices/inpaint')
        .send({ text: 'Magic Brush is slow today', severity: 'warning', enabled: true });
      expect(res.status).toBe(200);
      const state = await pushed;
      expect(state.notices).toEqual([
        expect.objectContaining({
          tool: 'inpaint',
          text: 'Magic Brush is slow today',
          severity: 'warning',
          enabled: true,
          updatedBy: adminName,
        }),
      ]);

      const flagPushed = nextEvent<OperationsState>(socket, OperationsSocketEvents.changed, 10_000);
      expect((await admin.agent.put('/api/admin/flags').send({ videoFaceSwap: true })).status).toBe(200);
      expect((await flagPushed).flags.videoFaceSwap).toBe(true);
      expect((await request(t.url).get('/api/operations')).body.content.flags.videoFaceSwap).toBe(true);

      // Audited through the event queue, so a moment later.
      await eventually(async () => {
        const log = await t.app.get(AuditService).latest(20);
        expect(log.some((e) => e.category === 'Operations' && e.author?.username === adminName)).toBe(true);
      });
    } finally {
      socket.close();
    }
  });
});
