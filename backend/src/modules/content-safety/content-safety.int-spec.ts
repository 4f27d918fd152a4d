import { InjectionToken } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import request from 'supertest';
import {
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
  let support: Client;
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
    const supportName = uniqueName('mod');
    await signIn(t, supportName);
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(supportName))!.id, 'support');
    support = await signIn(t, supportName);
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

  it('generate: an output with a face the age model puts under 18 is held, not in the gallery until a moderator releases it', async () => {
    const picture = await marked(face, 'minorFace');
    t.app.get(EngineRegistry).override('generate', new MarkedGenerator(picture));
    try {
      const user = await newcomer(5);
      const res = await user.agent
        .post('/api/generateImage')
        .send({ title: 'portrait', author: user.username, prompt: 'adult woman, portrait' });
      expect(res.status).toBe(200);
      const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
      expect(job.state).toBe('succeeded');
      expect(await balanceOf(user)).toBe(4);
      const record = await jobs().findById(job._id).lean();
      expect(record!.safety).toMatchObject({ verdict: 'hold', reason: 'minor_face' });

      const folderContents = async () =>
        (await user.agent.get(`/api/getBulkInpaints/${String(record!.folder)}`)).body.content.inpaints as {
          _id: string;
          url: string;
        }[];
      expect(await folderContents()).toEqual([]);

      // Users cannot see the queue; staff see the reason, the scores and the face estimates.
      expect((await user.agent.get('/api/moderation/held')).status).toBe(403);
      const held = (await support.agent.get('/api/moderation/held')).body.content as HeldItem[];
      const mine = held.find((h) => h.owner === user.username)!;
      expect(mine).toMatchObject({
        reason: 'minor_face',
        reasonText: SAFETY_REASONS.minor_face,
        jobId: job._id,
        faces: [{ box: [10, 10, 40, 40], age: 15 }],
        scores: NEUTRAL_SCORES,
      });
      // The owner cannot fetch it by its id either.
      expect((await user.agent.get(`/api/content/${mine.itemId}.png`)).status).toBe(404);
      const file = await support.agent.get(`/api/moderation/held/${mine.itemId}/file`).buffer(true);
      expect(file.status).toBe(200);

      expect((await user.agent.post(`/api/moderation/held/${mine.itemId}/release`)).status).toBe(403);
      expect((await support.agent.post(`/api/moderation/held/${mine.itemId}/release`)).status).toBe(200);
      // Decided once: a second decision finds nothing held.
      expect((await support.agent.post(`/api/moderation/held/${mine.itemId}/remove`)).status).toBe(404);
      const shown = await folderContents();
      expect(shown.map((i) => i._id)).toEqual([mine.itemId]);
      expect((await downloadBytes(user, shown[0].url)).length).toBeGreaterThan(0);

      await eventually(async () => {
        const messages = (await safetyLines(user.username)).map((l) => l.message);
        expect(messages).toEqual(
          expect.arrayContaining([
            `Held for review ${TOOL_LABELS.generate}: minor_face.`,
            'Released: minor_face.',
          ]),
        );
      });

      // Another held output, removed: it never appears, and its file is gone.
      await user.agent
        .post('/api/generateImage')
        .send({ title: 'portrait', author: user.username, prompt: 'adult woman, portrait' });
      const second = ((await support.agent.get('/api/moderation/held')).body.content as HeldItem[]).find(
        (h) => h.owner === user.username,
      )!;
      expect((await support.agent.post(`/api/moderation/held/${second.itemId}/remove`)).status).toBe(200);
      expect((await folderContents()).map((i) => i._id)).toEqual([mine.itemId]);
      expect((await support.agent.get(`/api/moderation/held/${second.itemId}/file`)).status).toBe(404);
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);
});
