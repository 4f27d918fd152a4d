import sharp from 'sharp';
import type { JobView } from '@studio/contracts';
import { eventually, grantCredits, makeFolder, signIn, uniqueName } from '../../../test/clients';
import { rectangleMask } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';

/**
 * The job tray counts a batch from the jobs GET /api/jobs gives it: with a window of the latest 20
 * jobs, a batch of 30 read "19 of 19 done". The list now brings every job of each batch in it.
 */
describe('job tray list: whole batches (real FerretDB, Redis, CPU engine)', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp({ MAX_OPEN_JOBS_PER_USER: '100' });
  });
  afterAll(() => t.close());

  it('lists all 30 jobs of a batch submitted after 25 other jobs, before and after a reconnect', async () => {
    const user = await signIn(t, uniqueName('tray'));
    await grantCredits(t, user.username, 200);
    const small = await sharp({ create: { width: 24, height: 24, channels: 3, background: '#a55' } })
      .png()
      .toBuffer();
    for (let i = 0; i < 25; i += 1) {
      const res = await user.agent
        .post('/api/generateNoise')
        .field('author', user.username)
        .attach('Clone0', small, 'a.png');
      expect(res.status).toBe(200);
    }
    const folderId = await makeFolder(user, 'Tray');
    const batch = await user.agent
      .post('/api/bulkInpaintImage')
      .field('author', user.username)
      .field('prompt', 'freckles')
      .field('amount', '30')
      .field('folder', folderId)
      .field('inpaintName', 'Thirty')
      .attach('original', small, 'a.png')
      .attach('mask', await rectangleMask(24, 24, { left: 8, top: 8, w: 8, h: 8 }), 'mask.png');
    expect(batch.status).toBe(200);
    const batchId = (batch.body.content.jobs as JobView[])[0]!.batch!.id;
    // Each job names the batch's size, so the tray counts 30 from the first job it hears of.
    expect((batch.body.content.jobs as JobView[]).map((job) => job.batch?.size)).toEqual(Array(30).fill(30));

    const listed = async () => (await user.agent.get('/api/jobs')).body.content as JobView[];
    const ofBatch = (jobs: JobView[]) => jobs.filter((job) => job.batch?.id === batchId);
    expect(ofBatch(await listed())).toHaveLength(30);

    // Once every job of the batch has ended, the list (as a reconnecting tray reloads it) still
    // has all 30, ended: "30 of 30 done".
    await eventually(async () => {
      const ended = ofBatch(await listed()).filter(
        (job) => job.state !== 'queued' && job.state !== 'running',
      );
      expect(ended).toHaveLength(30);
    }, 120_000);
    const again = await listed();
    expect(ofBatch(again)).toHaveLength(30);
    expect(ofBatch(again).every((job) => job.batch?.size === 30)).toBe(true);
    // Newest first, and the older single jobs beyond the window stay out.
    expect(again.filter((job) => !job.batch)).toHaveLength(0);
    const times = again.map((job) => job.createdAt);
    expect([...times].sort().reverse()).toEqual(times);
  }, 240_000);
});
