import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import sharp from 'sharp';
import { VerifyMessages, type JobView, type VerifyResult } from '@studio/contracts';
import { ProvenanceMarker } from '@studio/inference';
import {
  downloadBytes,
  eventually,
  grantCredits,
  signIn,
  uniqueName,
  type Client,
} from '../../../test/clients';
import { fixture, pngClaiming, zeroPng } from '../../../test/fixtures';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AuditService } from '../audit/audit.service';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const PYTHON = path.join(ROOT, '.tools', 'provenance', 'bin', 'python');

async function makeChain(dir: string, name: string) {
  await run('bash', [path.join(ROOT, 'deploy', 'local', 'make-signing-cert.sh'), dir, name]);
  return { certChain: path.join(dir, 'chain.pem'), privateKey: path.join(dir, 'signer.key') };
}

/** The data of a PNG's chunks of one type (caBX: the C2PA manifest store), read from the file. */
function pngChunks(png: Buffer, type: string): Buffer[] {
  const found: Buffer[] = [];
  for (let at = 8; at + 12 <= png.length;) {
    const length = png.readUInt32BE(at);
    if (png.toString('latin1', at + 4, at + 8) === type) found.push(png.subarray(at + 8, at + 8 + length));
    at += 12 + length;
  }
  return found;
}

describe('provenance: every output marked, and the public verify page (real app, c2pa, watermark)', () => {
  let t: TestApp;
  let dir: string;
  let alice: Client;
  let bob: Client;
  let admin: Client;
  let foreign: ProvenanceMarker;
  let aliceOutput: Buffer;
  let aliceJob: JobView;
  let chainDir: string;
  const adminName = uniqueName('boss');

  const verify = (data: Buffer, name: string, as?: Client) =>
    (as ? as.agent : request.agent(t.url)).post('/api/verify').attach('file', data, name);

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'verify-int-'));
    chainDir = path.join(dir, 'ours');
    const ours = await makeChain(chainDir, 'Studio');
    foreign = new ProvenanceMarker({
      python: PYTHON,
      ...(await makeChain(path.join(dir, 'other'), 'Other')),
    });
    t = await startTestApp({
      JOB_WAIT_MS: '60000',
      ADMIN_USERNAME: adminName,
      ADMIN_PASSWORD: 'admin-password-1',
      PROVENANCE_CERT_CHAIN: ours.certChain,
      PROVENANCE_PRIVATE_KEY: ours.privateKey,
      PROVENANCE_PYTHON: PYTHON,
      VERIFY_RATE_PER_MINUTE: '40',
    });
    alice = await signIn(t, uniqueName('alice'));
    bob = await signIn(t, uniqueName('bob'));
    admin = await signIn(t, adminName, 'admin-password-1');
    await grantCredits(t, alice.username, 10);
    const res = await alice.agent
      .post('/api/generateNoise')
      .field('author', alice.username)
      .field('amount', '1')
      .attach('original', fixture('cgi-model-1.jpg'), 'model.jpg');
    expect(res.status).toBe(200);
    aliceJob = res.body.content.job as JobView;
    expect(aliceJob.state).toBe('succeeded');
    aliceOutput = await downloadBytes(alice, aliceJob.items[0].url);
  }, 180_000);

  afterAll(async () => {
    await foreign?.close();
    await t?.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("signs the job's stored output (download keeps it): valid, ours, edited by Clones; watermark ours; no personal data", async () => {
    const res = await verify(aliceOutput, 'clone.png');
    expect(res.status).toBe(200);
    const body = res.body.content as VerifyResult;
    expect(body.manifest).toMatchObject({
      state: 'valid',
      tool: 'Clones',
      action: 'c2pa.edited',
      aiGenerated: true,
    });
    expect(body.watermark).toMatchObject({ state: 'ours', tool: 'Clones' });
    expect(body.admin).toBeUndefined();
    // the download route serves the same signed bytes (the manifest is kept)
    const downloaded = await alice.agent
      .post('/api/downloadContent')
      .send({ url: aliceJob.items[0].url })
      .buffer(true)
      .parse((stream, done) => {
        const chunks: Buffer[] = [];
        stream.on('data', (c: Buffer) => chunks.push(c));
        stream.on('end', () => done(null, Buffer.concat(chunks)));
      });
    expect(downloaded.status).toBe(200);
    expect((downloaded.body as Buffer).equals(aliceOutput)).toBe(true);
    const text = JSON.stringify(body);
    expect(text).not.toContain(alice.username);
    expect(text).not.toContain(aliceJob._id);
  }, 60_000);

  it("keeps the clone's manifest to what C2PA requires (a few KB, no thumbnail, no root certificate), read as valid by a separate c2pa reader", async () => {
    const [store, ...more] = pngChunks(aliceOutput, 'caBX');
    expect(more).toHaveLength(0);
    const signerCert = new X509Certificate(await readFile(path.join(chainDir, 'signer.pem'))).raw;
    const rootCert = new X509Certificate(await readFile(path.join(chainDir, 'ca.pem'))).raw;
    // what it must hold: the claim, the actions, the input by hash and the hard binding (under
    // 2.5 KB), and the signature: the signer's certificate, ES256, COSE headers, c2pa-rs's 1 KB reserve
    expect(store.length).toBeLessThan(signerCert.length + 1200 + 2560);
    expect(store.includes(signerCert)).toBe(true);
    expect(store.includes(rootCert)).toBe(false);
    expect(store.includes('c2pa.thumbnail')).toBe(false);
    // another process, another signer identity: the file is intact and signed, by someone else
    const file = path.join(dir, 'stored-clone.png');
    await writeFile(file, aliceOutput);
    expect(await foreign.readManifest(file)).toMatchObject({
      state: 'foreign',
      validationState: 'Valid',
      failures: [],
      action: 'c2pa.edited',
      tool: 'Clones',
    });
  }, 60_000);

  it('finds the watermark when the manifest was stripped (re-encoded to a smaller JPEG)', async () => {
    const meta = await sharp(aliceOutput).metadata();
    const stripped = await sharp(aliceOutput)
      .resize(Math.round(meta.width! / 2))
      .jpeg({ quality: 75 })
      .toBuffer();
    const body = (await verify(stripped, 'shared.jpg')).body.content as VerifyResult;
    expect(body.manifest.state).toBe('none');
    expect(body.watermark).toMatchObject({ state: 'ours', tool: 'Clones' });
  }, 60_000);

  it('reports a file changed after signing as tampered', async () => {
    const changed = Buffer.from(aliceOutput);
    changed[changed.length - 400] ^= 0x5a;
    const body = (await verify(changed, 'changed.png')).body.content as VerifyResult;
    expect(body.manifest.state).toBe('tampered');
  }, 60_000);

  it('reports a file whose pixels no longer decode as tampered, with no watermark (not a 5xx)', async () => {
    const broken = Buffer.from(aliceOutput);
    // a run of bytes in the middle of the compressed pixels: the header still reads, the image does not
    broken.fill(0x5a, Math.floor(broken.length / 2), Math.floor(broken.length / 2) + 64);
    const answer = await verify(broken, 'broken.png');
    expect(answer.status).toBe(200);
    const body = answer.body.content as VerifyResult;
    expect(body.manifest.state).toBe('tampered');
    expect(body.watermark.state).toBe('none');
  }, 60_000);

  it('reports a file signed by someone else as foreign, with no watermark of ours', async () => {
    const signed = await foreign.mark({
      data: await sharp(fixture('ai-face.jpg')).png().toBuffer(),
      format: 'png',
      markId: 5,
      tool: 'Their tool',
      action: 'created',
      when: new Date(),
      title: 'theirs.png',
    });
    const body = (await verify(signed.data, 'theirs.png')).body.content as VerifyResult;
    expect(body.manifest.state).toBe('foreign');
    // their pattern key is ours too (the same code), but id 5 maps to no output of this studio
    expect(body.watermark.state).not.toBe('ours');
  }, 60_000);

  it('shows another signed-in user nothing of the owner; an admin sees job and owner, and it is audited', async () => {
    const asBob = (await verify(aliceOutput, 'clone.png', bob)).body.content as VerifyResult;
    expect(asBob.watermark.state).toBe('ours');
    expect(asBob.admin).toBeUndefined();
    expect(JSON.stringify(asBob)).not.toContain(alice.username);

    const asAdmin = (await verify(aliceOutput, 'clone.png', admin)).body.content as VerifyResult;
    expect(asAdmin.admin).toMatchObject({
      jobId: aliceJob._id,
      itemId: aliceJob.items[0]._id,
      owner: { username: alice.username },
    });
    await eventually(async () => {
      const log = await t.app.get(AuditService).latest(20);
      expect(
        log.some((e) => e.author?.username === adminName && e.message.includes(aliceJob.items[0]._id)),
      ).toBe(true);
    });
  }, 60_000);

  it('refuses a file that is not an image or video, no file, a file over the cap and a pixel bomb (4xx)', async () => {
    const text = await verify(Buffer.from('just some text, not a picture'), 'photo.jpg');
    expect(text.status).toBe(400);
    expect(text.body.content).toMatch(/not a JPEG, PNG or WebP image/);

    const none = await request(t.url).post('/api/verify').field('x', 'y');
    expect(none.status).toBe(400);

    const tiny = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#888' } })
      .png()
      .toBuffer();
    const bomb = await verify(pngClaiming(50_000, 50_000, tiny), 'bomb.png');
    expect(bomb.status).toBe(413);
    expect(bomb.body.content).toMatch(/too many pixels/);

    // 16 MB of noise as a PNG: over the 15 MB image cap (under the 100 MB video cap of the stream)
    const noise = Buffer.alloc(2400 * 2400 * 3);
    for (let i = 0; i < noise.length; i++) noise[i] = (i * 2654435761) >>> 24;
    const big = await sharp(noise, { raw: { width: 2400, height: 2400, channels: 3 } })
      .png({ compressionLevel: 0 })
      .toBuffer();
    expect(big.length).toBeGreaterThan(15 * 1024 * 1024);
    const tooBig = await verify(big, 'big.png');
    expect(tooBig.status).toBe(413);
  }, 60_000);

  it('refuses the 36 MP pixel bomb of issue 35 from its header, within the budget of the largest output (413)', async () => {
    // 140 KB: a PNG declaring 6000x6000 RGBA of zeros (under the tools' 40 MP cap); it drove the
    // reader past 9 GB before
    const bomb = await zeroPng(6000, 6000);
    expect(bomb.length).toBeLessThan(200_000);
    const res = await verify(bomb, 'bomb.png');
    expect(res.status).toBe(413);
    expect(res.body.content).toBe(VerifyMessages.imageTooLarge);
  }, 60_000);

  it('reads a picture at the pixel budget (4096x4096 of zeros) within the reader’s memory ceiling, and keeps answering', async () => {
    // the reader used to enlarge such a plane up to 6.4 times while scanning scales (a 2.7 GB
    // array here), past its memory ceiling
    const res = await verify(await zeroPng(4096, 4096), 'flat.png');
    expect(res.status).toBe(200);
    expect(res.body.content.watermark.state).toBe('none');
    const again = await verify(aliceOutput, 'again.png');
    expect(again.status).toBe(200);
    expect(again.body.content.watermark.state).toBe('ours');
  }, 120_000);

  it('refuses a video whose frames are over the budget (8K) from ffprobe’s answer, before decoding (413)', async () => {
    const video = path.join(dir, 'eight-k.mp4');
    await run('ffmpeg', [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'color=c=gray:s=7680x4320:r=1', '-frames:v', '2'],
      ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', video],
    ]);
    const res = await verify(await readFile(video), 'eight-k.mp4');
    expect(res.status).toBe(413);
    expect(res.body.content).toBe(VerifyMessages.videoFrameTooLarge);
  }, 60_000);

  it('is rate-limited per address (429 past VERIFY_RATE_PER_MINUTE)', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 45 && !statuses.includes(429); i++) {
      statuses.push((await verify(Buffer.from('x'), 'x.txt')).status);
    }
    expect(statuses).toContain(429);
  }, 60_000);
});
