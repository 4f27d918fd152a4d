import { InjectionToken } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import request from 'supertest';
import {
  ContentMessages,
  ModerationMessages,
  SAFETY_REASONS,
  TOOL_LABELS,
  type ContentCheck,
  type HeldItem,
  type JobView,
} from '@studio/contracts';
import type { RunContext } from '@studio/inference';
import { AccountsRepository } from '../accounts';
import { EngineRegistry } from '../engines';
import { ContentItem } from '../folders';
import { ContentClassifierPort, ContentSafety } from '.';
import { Job } from '../generation';
import {
  balanceOf,
  downloadBytes,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture, rectangleMask } from '../../../test/fixtures';
import { marked, MarkedImageClassifier, NEUTRAL_SCORES } from '../../../test/marked-classifier';
import { ScriptedEngine } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { photoToolRequests } from '../../../test/photo-tool-requests';

const TOKEN = 'metrics-token-for-safety-tests';

/** A generation engine (a GPU server's stand-in) whose picture carries the minor-face mark. */
/** A classifier that cannot run (its model failed to load, its engine thread died...). */
class BrokenClassifier extends ContentClassifierPort {
  calls = 0;
  inspect(): Promise<never> {
    this.calls += 1;
    return Promise.reject(new Error('classifier model failed to load'));
  }
}

class MarkedGenerator extends ScriptedEngine {
  constructor(private readonly picture: Buffer) {
    super();
  }
  override generate = async (_r: unknown, _c?: RunContext) => ({
    data: this.picture,
    format: 'png' as const,
    width: 256,
    height: 256,
  });
}

describe('content policy (marked-image classifier double, real engine pool, ledger, FerretDB, Redis)', () => {
  let t: TestApp;
  let admin: Client;
  let moderator: Client;
  let face: Buffer;
  let sexual: Buffer;
  let mask: Buffer;
  const adminName = uniqueName('chief');

  beforeAll(async () => {
    t = await startTestApp({
      JOB_WAIT_MS: '60000',
      METRICS_TOKEN: TOKEN,
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    admin = await signIn(t, adminName, 'admin-password-1');
    // Admins grant the moderator role (the role change ends the old sessions).
    const moderatorName = uniqueName('mod');
    await signIn(t, moderatorName);
    const granted = await admin.agent
      .put(`/api/admin/users/${moderatorName}/role`)
      .send({ role: 'moderator' });
    expect(granted.status).toBe(200);
    moderator = await signIn(t, moderatorName);
    face = await sharp(fixture('ai-face.jpg')).png().toBuffer(); // 256 x 256
    sexual = await marked(face, 'sexual');
    mask = await rectangleMask(256, 256, { left: 100, top: 150, w: 60, h: 40 });
  }, 120_000);
  afterAll(() => t?.close());

  const newcomer = async (coins: number) => {
    const client = await signIn(t, uniqueName('adult'));
    await grantCredits(t, client.username, coins);
    return client;
  };
  const { swapCheck, swap, inpaint } = photoToolRequests(() => mask);
  const jobs = () => t.app.get<Model<Job>>(getModelToken(Job.name) as InjectionToken);
  const items = () => t.app.get<Model<ContentItem>>(getModelToken(ContentItem.name) as InjectionToken);
  const safetyLines = async (username: string) =>
    (
      (await admin.agent.get('/api/admin/logs').query({ category: 'Safety', pageSize: '100' })).body.content
        .items as { message: string; detail?: string; author?: { username: string } }[]
    ).filter((line) => line.author?.username === username || line.detail?.includes(`User ${username}`));
  const metric = async (action: string, reason: string) => {
    const text = (await request(t.url).get('/metrics').set('Authorization', `Bearer ${TOKEN}`)).text;
    const line = text
      .split('\n')
      .find((l) => l.startsWith(`studio_safety_decisions_total{action="${action}",reason="${reason}",`));
    return line ? Number(line.split(' ').pop()) : 0;
  };

  it('face swap: a source or target classified sexual is refused in the free check and the swap, before any charge', async () => {
    const user = await newcomer(10);
    const before = await metric('refused', 'sexual_input');
    for (const [source, target] of [
      [face, sexual],
      [sexual, face],
    ]) {
      for (const res of [await swapCheck(user, source, target), await swap(user, source, target)]) {
        expect(res.status).toBe(403);
        expect(res.body).toEqual({
          message: 'error',
          content: SAFETY_REASONS.sexual_input,
          reason: 'sexual_input',
        });
      }
    }
    expect(await balanceOf(user)).toBe(10);
    expect((await user.agent.get('/api/credits/history')).body.content.items).toHaveLength(1); // the grant
    await eventually(async () => {
      const lines = await safetyLines(user.username);
      expect(lines.filter((l) => l.message === 'Refused Face swap: sexual_input.')).toHaveLength(4);
      expect(lines[0].detail).toContain('sexual 0.92');
      expect(await metric('refused', 'sexual_input')).toBe(before + 4);
    });

    // Neutral pictures pass the content check (and the swap's own face check).
    expect((await swapCheck(user, face, face)).status).toBe(200);
  }, 120_000);

  it('Magic Brush: an output classified sexual is withheld and refunded with the reason; scores stored with the job', async () => {
    const user = await newcomer(5);
    const res = await inpaint(user, sexual); // the mark is outside the mask: the output keeps it
    expect(res.status).toBe(422);
    expect(res.body.content).toBe(SAFETY_REASONS.sexual_output);
    expect(await balanceOf(user)).toBe(5);
    const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
    expect(job).toMatchObject({ state: 'failed', error: SAFETY_REASONS.sexual_output });
    const kinds = (await user.agent.get('/api/credits/history')).body.content.items.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(['reservation', 'refund']));
    const record = await jobs().findById(job._id).lean();
    expect(record!.safety).toMatchObject({ verdict: 'withhold', reason: 'sexual_output' });
    expect(record!.safety!.outputs![0].scores.porn).toBeGreaterThan(0.5);
    expect(await items().countDocuments({ jobId: job._id })).toBe(0);
    await eventually(async () => {
      const lines = await safetyLines(user.username);
      expect(lines.map((l) => l.message)).toContain('Withheld Magic Brush: sexual_output.');
      expect(await metric('withheld', 'sexual_output')).toBeGreaterThanOrEqual(1);
    });
  }, 120_000);

  it('a content check that cannot run fails the job once, refunded, with its reason code: never retried, never left running', async () => {
    const broken = new BrokenClassifier();
    t.app.get(ContentSafety).override(broken);
    try {
      const user = await newcomer(5);
      const res = await inpaint(user, face);
      expect(res.status).toBe(422);
      expect(res.body.content).toBe(SAFETY_REASONS.check_failed);
      const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
      expect(job).toMatchObject({ state: 'failed', error: SAFETY_REASONS.check_failed });
      expect(await balanceOf(user)).toBe(5);
      expect(broken.calls).toBe(1); // not retried (JOB_ATTEMPTS is 3)
      const record = await jobs().findById(job._id).lean();
      expect(record!.safety).toMatchObject({ reason: 'check_failed' });
      expect(await items().countDocuments({ jobId: job._id })).toBe(0);
      await eventually(async () => {
        const lines = await safetyLines(user.username);
        expect(lines.map((l) => l.message)).toContain(`Withheld ${TOOL_LABELS.inpaint}: check_failed.`);
      });
    } finally {
      t.app.get(ContentSafety).override(new MarkedImageClassifier());
    }
  }, 120_000);

  it('stores the class scores of every input and output with the job and the item', async () => {
    const user = await newcomer(5);
    const res = await inpaint(user, face);
    expect(res.status).toBe(200);
    expect(await balanceOf(user)).toBe(4);
    const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
    const record = await jobs().findById(job._id).lean();
    const neutral: ContentCheck = { scores: NEUTRAL_SCORES, faces: [] };
    // The image input (not the mask) and the output.
    expect(record!.safety).toEqual({ inputs: [neutral], outputs: [neutral], verdict: 'show' });
    const item = await items().findOne({ jobId: job._id }).lean();
    expect(item!.check).toEqual(neutral);
  }, 120_000);

  const holdingGenerator = async () => {
    t.app.get(EngineRegistry).override('generate', new MarkedGenerator(await marked(face, 'minorFace')));
  };
  const generateHeld = async (user: Client) => {
    const res = await user.agent
      .post('/api/generateImage')
      .send({ title: 'portrait', author: user.username, prompt: 'adult woman, portrait' });
    expect(res.status).toBe(200);
    const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
    const held = ((await moderator.agent.get('/api/moderation/held')).body.content as HeldItem[]).find(
      (h) => h.jobId === job._id,
    )!;
    return { job, held };
  };
  const decide = (client: Client, itemId: string, decision: 'release' | 'remove', reason: unknown) =>
    client.agent.post(`/api/moderation/held/${itemId}/${decision}`).send({ reason });

  it('generate: an output with a face the age model puts under 18 is held, not in the gallery until a moderator releases it', async () => {
    await holdingGenerator();
    try {
      const user = await newcomer(5);
      const { job, held: mine } = await generateHeld(user);
      expect(job.state).toBe('succeeded');
      // The owner's job says it is held (their screens say so instead of "added to your folder").
      expect(job).toMatchObject({ held: 'minor_face', items: [] });
      expect(await balanceOf(user)).toBe(4);
      const record = await jobs().findById(job._id).lean();
      expect(record!.safety).toMatchObject({ verdict: 'hold', reason: 'minor_face' });

      const folderContents = async () =>
        (await user.agent.get(`/api/getBulkInpaints/${String(record!.folder)}`)).body.content.inpaints as {
          _id: string;
          url: string;
        }[];
      expect(await folderContents()).toEqual([]);

      // Users cannot see the queue; moderators see the reason, the scores and the face estimates.
      expect((await user.agent.get('/api/moderation/held')).status).toBe(403);
      expect(mine).toMatchObject({
        owner: user.username,
        reason: 'minor_face',
        reasonText: SAFETY_REASONS.minor_face,
        faces: [{ box: [10, 10, 40, 40], age: 15 }],
        scores: NEUTRAL_SCORES,
      });
      // The owner cannot fetch it by its id either.
      expect((await user.agent.get(`/api/content/${mine.itemId}.png`)).status).toBe(404);
      const file = await moderator.agent.get(`/api/moderation/held/${mine.itemId}/file`).buffer(true);
      expect(file.status).toBe(200);

      const why = 'Adult face on a second look, ticket 12';
      expect((await decide(user, mine.itemId, 'release', why)).status).toBe(403);
      // A reason is required, in words.
      const bare = await decide(moderator, mine.itemId, 'release', '   ok    ');
      expect(bare.status).toBe(400);
      expect(bare.body.content).toContain(ModerationMessages.reasonRequired);
      const released = await decide(moderator, mine.itemId, 'release', why);
      expect(released.status).toBe(200);
      expect(released.body.content).toMatchObject({ decision: 'released', note: why, refunded: 0 });
      // Decided once: a second decision is a conflict and changes nothing.
      const again = await decide(moderator, mine.itemId, 'remove', why);
      expect(again.status).toBe(409);
      expect(again.body.content).toBe(ContentMessages.alreadyDecided);
      const shown = await folderContents();
      expect(shown.map((i) => i._id)).toEqual([mine.itemId]);
      expect((await downloadBytes(user, shown[0].url)).length).toBeGreaterThan(0);
      expect(await balanceOf(user)).toBe(4);
      // Its job shows the released item and is no longer held.
      await eventually(async () => {
        const [after] = (await user.agent.get('/api/jobs')).body.content as JobView[];
        expect(after.held).toBeUndefined();
        expect(after.items.map((i) => i._id)).toEqual([mine.itemId]);
      });

      await eventually(async () => {
        const lines = await safetyLines(user.username);
        expect(lines.map((l) => l.message)).toEqual(
          expect.arrayContaining([
            `Held for review ${TOOL_LABELS.generate}: minor_face.`,
            'Released: minor_face.',
          ]),
        );
        const release = lines.find((l) => l.message === 'Released: minor_face.')!;
        expect(release.author?.username).toBe(moderator.username);
        expect(release.detail).toContain(`Why: ${why}`);
      });
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);

  it('a removed held output never appears, its file is gone, its cost comes back once; a second decision is 409', async () => {
    await holdingGenerator();
    try {
      const user = await newcomer(5);
      const { held } = await generateHeld(user);
      expect(await balanceOf(user)).toBe(4);
      const why = 'Looks under 18 to me, removed per policy';
      const removed = await decide(moderator, held.itemId, 'remove', why);
      expect(removed.status).toBe(200);
      expect(removed.body.content).toMatchObject({
        decision: 'removed',
        heldFor: 'minor_face',
        note: why,
        refunded: 1,
      });
      expect(await balanceOf(user)).toBe(5);
      for (const decision of ['remove', 'release'] as const) {
        const again = await decide(moderator, held.itemId, decision, why);
        expect(again.status).toBe(409);
        expect(again.body.content).toBe(ContentMessages.alreadyDecided);
      }
      expect(await balanceOf(user)).toBe(5);
      const history = (await user.agent.get('/api/credits/history')).body.content.items as {
        kind: string;
        amount: number;
        reason: string;
      }[];
      expect(history.filter((e) => e.kind === 'refund')).toEqual([
        expect.objectContaining({ amount: 1, reason: `Removed after review: ${why}` }),
      ]);
      const item = await items().findById(held.itemId).lean();
      expect(item!.moderation).toMatchObject({ state: 'removed', by: moderator.username, note: why });
      // A later bulk reimbursement of Generate does not pay this job's cost again.
      const window = {
        tool: 'generate',
        from: new Date(Date.now() - 120_000).toISOString(),
        to: new Date(Date.now() + 60_000).toISOString(),
        reason: 'outage of the generator',
      };
      const preview = await admin.agent.post('/api/support/reimburse/tool/preview').send(window);
      expect(preview.status).toBe(200);
      expect((preview.body.content.users as { username: string }[]).map((u) => u.username)).not.toContain(
        user.username,
      );
      expect((await moderator.agent.get(`/api/moderation/held/${held.itemId}/file`)).status).toBe(404);
      expect((await user.agent.get(`/api/content/${held.itemId}.png`)).status).toBe(404);
      await eventually(async () => {
        const line = (await safetyLines(user.username)).find((l) => l.message === 'Removed: minor_face.')!;
        expect(line.detail).toContain(`Why: ${why} · Refunded 1 coin`);
      });
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);

  it('a removal cut short before its refund (the process died between the two) is finished by the next remove, once', async () => {
    await holdingGenerator();
    try {
      const user = await newcomer(5);
      const { held } = await generateHeld(user);
      expect(await balanceOf(user)).toBe(4);
      // What a crash right after the guarded update leaves: removed, no refund yet.
      await items().updateOne(
        { _id: held.itemId },
        {
          $set: {
            'moderation.state': 'removed',
            'moderation.note': 'Looks under 18, removed',
            visible: false,
          },
        },
      );
      for (let i = 0; i < 2; i++) {
        const again = await decide(moderator, held.itemId, 'remove', 'Trying again after the error');
        expect(again.status).toBe(409);
        expect(await balanceOf(user)).toBe(5);
      }
      const refunds = (
        (await user.agent.get('/api/credits/history')).body.content.items as {
          kind: string;
          reason: string;
        }[]
      ).filter((e) => e.kind === 'refund');
      expect(refunds).toEqual([
        expect.objectContaining({ reason: 'Removed after review: Looks under 18, removed' }),
      ]);
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);

  it('the moderator role opens the queue and nothing else of staff; nobody decides on or looks at their own held output', async () => {
    expect((await moderator.agent.get('/api/support/users').query({ query: 'x' })).status).toBe(403);
    expect(
      (
        await moderator.agent
          .post('/api/support/reimburse')
          .send({ username: moderator.username, amount: 5, reason: 'mine please' })
      ).status,
    ).toBe(403);
    expect((await moderator.agent.get('/api/admin/logs')).status).toBe(403);
    // Support staff do not moderate unless given the role.
    const supportName = uniqueName('help');
    await signIn(t, supportName);
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(supportName))!.id, 'support');
    const support = await signIn(t, supportName);
    expect((await support.agent.get('/api/moderation/held')).status).toBe(403);

    await holdingGenerator();
    try {
      await grantCredits(t, moderator.username, 1);
      const { held } = await generateHeld(moderator);
      const own = await decide(moderator, held.itemId, 'release', 'This one is fine, honestly');
      expect(own.status).toBe(403);
      expect(own.body.content).toBe(ModerationMessages.ownItem);
      expect((await moderator.agent.get(`/api/moderation/held/${held.itemId}/file`)).status).toBe(403);
      // An admin (another person) decides it.
      expect(
        (await decide(admin, held.itemId, 'remove', 'Removed by the admin, not self-reviewed')).status,
      ).toBe(200);
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);
});
