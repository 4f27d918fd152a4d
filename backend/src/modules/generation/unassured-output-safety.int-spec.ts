import { InjectionToken } from '@nestjs/common';
import { getModelToken } from '@nestjs/mongoose';
import type { Model } from 'mongoose';
import sharp from 'sharp';
import request from 'supertest';
import { SAFETY_REASONS, TOOL_LABELS, type JobTool, type JobView } from '@studio/contracts';
import type { RunContext } from '@studio/inference';
import { AccountsRepository } from '../accounts';
import { AgeAssuranceService } from '../age-assurance';
import { EngineRegistry } from '../engines';
import { ContentItem } from '../folders';
import { balanceOf, eventually, grantCredits, signIn, uniqueName, type Client } from '../../../test/clients';
import { fixture } from '../../../test/fixtures';
import { marked } from '../../../test/marked-classifier';
import { ScriptedEngine } from '../../../test/scripted-engine';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { Job } from './job.schema';

const TOKEN = 'metrics-token-for-unassured-output-tests';

/**
 * An engine (a GPU server's stand-in) whose Generate and clone results are the given picture, once
 * `release` is called when it was made to wait.
 */
class PictureEngine extends ScriptedEngine {
  private gate: Promise<void> = Promise.resolve();
  release: () => void = () => undefined;
  constructor(private readonly picture: Buffer) {
    super();
  }
  /** The next result waits until release() is called. */
  waitForRelease(): void {
    this.gate = new Promise((resolve) => (this.release = resolve));
  }
  private async result() {
    await this.gate;
    return { data: this.picture, format: 'png' as const, width: 256, height: 256 };
  }
  override generate = async (_r: unknown, _c?: RunContext) => this.result();
  override clone = async (_r: unknown, _c?: RunContext) => [await this.result()];
}

describe('sexual outputs of any tool are withheld from accounts without an age check (AGE_ASSURANCE=required, marked-image classifier double, FerretDB, Redis)', () => {
  let t: TestApp;
  let admin: Client;
  let support: Client;
  let face: Buffer;
  let sexual: Buffer;
  const adminName = uniqueName('chief');

  beforeAll(async () => {
    t = await startTestApp({
      AGE_ASSURANCE: 'required',
      JOB_WAIT_MS: '60000',
      METRICS_TOKEN: TOKEN,
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
    });
    admin = await signIn(t, adminName, 'admin-password-1');
    const supportName = uniqueName('help');
    await signIn(t, supportName);
    const accounts = t.app.get(AccountsRepository);
    await accounts.setRole((await accounts.findByUsername(supportName))!.id, 'support');
    support = await signIn(t, supportName);
    face = await sharp(fixture('ai-face.jpg')).png().toBuffer(); // 256 x 256
    sexual = await marked(face, 'sexual');
  }, 120_000);
  afterAll(() => t?.close());

  const newcomer = async (coins = 5) => {
    const client = await signIn(t, uniqueName('adult'));
    await grantCredits(t, client.username, coins);
    return client;
  };
  const assure = async (user: Client) => {
    const res = await support.agent
      .post(`/api/support/users/${user.username}/age-assurance`)
      .send({ reason: 'Passport seen on a video call, ticket 52' });
    expect(res.status).toBe(200);
  };
  const engineMaking = (tool: JobTool, picture: Buffer) => {
    const engine = new PictureEngine(picture);
    t.app.get(EngineRegistry).override(tool, engine);
    return engine;
  };
  // A prompt the prompt check lets through: what is made decides.
  const generate = (user: Client) =>
    user.agent
      .post('/api/generateImage')
      .send({ title: 'portrait', author: user.username, prompt: 'adult woman, portrait, photorealistic' });
  const clone = (user: Client) =>
    user.agent
      .post('/api/generateNoise')
      .field('author', user.username)
      .field('amount', '1')
      .attach('original', face, 'face.png');

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

  /** The job failed with the reason, refunded, nothing stored; the decision logged and counted. */
  const expectWithheld = async (user: Client, tool: JobTool, res: request.Response) => {
    expect(res.status).toBe(422);
    expect(res.body.content).toBe(SAFETY_REASONS.sexual_output_unassured);
    expect(await balanceOf(user)).toBe(5);
    const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
    expect(job).toMatchObject({ tool, state: 'failed', error: SAFETY_REASONS.sexual_output_unassured });
    const kinds = (await user.agent.get('/api/credits/history')).body.content.items.map(
      (e: { kind: string }) => e.kind,
    );
    expect(kinds).toEqual(expect.arrayContaining(['reservation', 'refund']));
    const record = await jobs().findById(job._id).lean();
    expect(record!.safety).toMatchObject({ verdict: 'withhold', reason: 'sexual_output_unassured' });
    expect(record!.safety!.outputs![0].scores.porn).toBeGreaterThan(0.5);
    expect(await items().countDocuments({ jobId: job._id })).toBe(0);
    await eventually(async () => {
      const lines = await safetyLines(user.username);
      expect(lines.map((l) => l.message)).toContain(
        `Withheld ${TOOL_LABELS[tool]}: sexual_output_unassured.`,
      );
      expect(await metric('withheld', 'sexual_output_unassured')).toBeGreaterThanOrEqual(1);
    });
  };

  /** The job succeeded, charged one coin, its output stored and listed. */
  const expectShown = async (user: Client, res: request.Response) => {
    expect(res.status).toBe(200);
    const job = res.body.content.job as JobView;
    expect(job.state).toBe('succeeded');
    expect(job.items).toHaveLength(1);
    expect(await balanceOf(user)).toBe(4);
    const record = await jobs().findById(job._id).lean();
    expect(record!.safety).toMatchObject({ verdict: 'show' });
    expect(await items().countDocuments({ jobId: job._id })).toBe(1);
    return record!;
  };

  it('Generate: a sexual output for an account without an age check is withheld and refunded, with its reason; a neutral one is shown', async () => {
    engineMaking('generate', sexual);
    try {
      const user = await newcomer();
      await expectWithheld(user, 'generate', await generate(user));
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
    }
    engineMaking('generate', face);
    try {
      const user = await newcomer();
      await expectShown(user, await generate(user));
    } finally {
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);

  it('clone: a sexual output for an account without an age check is withheld and refunded, with its reason', async () => {
    engineMaking('clone', sexual);
    try {
      const user = await newcomer();
      await expectWithheld(user, 'clone', await clone(user));
    } finally {
      t.app.get(EngineRegistry).override('clone', null);
    }
  }, 120_000);

  it('an account with an age check is shown the same Generate and clone outputs, as before', async () => {
    for (const [tool, submit] of [
      ['generate', generate],
      ['clone', clone],
    ] as const) {
      engineMaking(tool, sexual);
      try {
        const user = await newcomer();
        await assure(user);
        const record = await expectShown(user, await submit(user));
        expect(record.safety!.outputs![0].scores.porn).toBeGreaterThan(0.5);
      } finally {
        t.app.get(EngineRegistry).override(tool, null);
      }
    }
  }, 120_000);

  it('the age check is read only for a sexual output: when it cannot be read, a neutral output is still shown and a sexual one fails closed', async () => {
    const read = jest
      .spyOn(t.app.get(AgeAssuranceService), 'maySeeSexualContent')
      .mockRejectedValue(new Error('database unavailable'));
    try {
      engineMaking('generate', face);
      const shown = await newcomer();
      await expectShown(shown, await generate(shown));
      expect(read).not.toHaveBeenCalled();

      engineMaking('generate', sexual);
      const user = await newcomer();
      const res = await generate(user);
      expect(read).toHaveBeenCalledTimes(1);
      expect(res.status).toBe(422);
      expect(res.body.content).toBe(SAFETY_REASONS.check_failed);
      expect(await balanceOf(user)).toBe(5);
      const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
      expect(job).toMatchObject({ tool: 'generate', state: 'failed', error: SAFETY_REASONS.check_failed });
      expect((await jobs().findById(job._id).lean())!.safety).toMatchObject({ reason: 'check_failed' });
      expect(await items().countDocuments({ jobId: job._id })).toBe(0);
      await eventually(async () => {
        const lines = await safetyLines(user.username);
        expect(lines.map((l) => l.message)).toContain(`Withheld ${TOOL_LABELS.generate}: check_failed.`);
      });
    } finally {
      read.mockRestore();
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);

  it('the age check is read when the outputs are judged: a check passed while the job ran counts', async () => {
    const engine = engineMaking('generate', sexual);
    engine.waitForRelease();
    try {
      const user = await newcomer();
      const answer = generate(user).then((res) => res); // sent now, answered when the job ends
      await eventually(async () => {
        const [job] = (await user.agent.get('/api/jobs')).body.content as JobView[];
        expect(job?.state).toBe('running');
      });
      await assure(user);
      engine.release();
      await expectShown(user, await answer);
    } finally {
      engine.release();
      t.app.get(EngineRegistry).override('generate', null);
    }
  }, 120_000);
});
