import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { ProvenanceMarker, type MarkRequest } from './provenance-marker';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..', '..');
const PYTHON = process.env.PROVENANCE_PYTHON ?? path.join(ROOT, '.tools', 'provenance', 'bin', 'python');

/** A textured test picture (smooth noise and bands), like a photo's mix of flat and busy areas. */
export async function testPicture(width: number, height: number, seed: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 3);
  let state = seed >>> 0 || 1;
  for (let i = 0; i < raw.length; i++) {
    state = (state * 1664525 + 1013904223) >>> 0;
    raw[i] = state >>> 24;
  }
  const noise = await sharp(raw, { raw: { width, height, channels: 3 } })
    .blur(2)
    .raw()
    .toBuffer();
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 3;
      const band = 90 + 60 * Math.sin((x + seed) / 37) * Math.cos(y / 23);
      raw[i] = Math.max(0, Math.min(255, band + (noise[i] - 128) * 0.8));
      raw[i + 1] = Math.max(0, Math.min(255, band * 0.8 + (noise[i + 1] - 128) * 0.8));
      raw[i + 2] = Math.max(0, Math.min(255, 200 - band * 0.5 + (noise[i + 2] - 128) * 0.6));
    }
  }
  return sharp(raw, { raw: { width, height, channels: 3 } })
    .png()
    .toBuffer();
}

async function makeChain(dir: string, name: string) {
  await run('bash', [path.join(ROOT, 'deploy', 'local', 'make-signing-cert.sh'), dir, name]);
  return { certChain: path.join(dir, 'chain.pem'), privateKey: path.join(dir, 'signer.key') };
}

/** A certificate's DER bytes, as the manifest's x5chain carries them. */
async function derOf(pemFile: string): Promise<Buffer> {
  return Buffer.from(new X509Certificate(await readFile(pemFile)).raw);
}

describe('ProvenanceMarker (watermark + C2PA through the Python child process)', () => {
  let dir: string;
  let ours: ProvenanceMarker;
  let foreign: ProvenanceMarker;
  const request = (data: Buffer, over: Partial<MarkRequest> = {}): MarkRequest => ({
    data,
    format: 'png',
    markId: 0x1234abcd,
    tool: 'Face swap',
    action: 'edited',
    composite: true,
    when: new Date('2026-11-26T13:00:00Z'),
    title: 'Face swap',
    ingredients: [
      { data: Buffer.from('target'), format: 'image/png', relationship: 'parentOf' },
      { data: Buffer.from('face'), format: 'image/png', relationship: 'componentOf' },
    ],
    ...over,
  });
  const inspectBytes = async (data: Buffer, name: string, kind: 'image' | 'video' = 'image') => {
    const file = path.join(dir, name);
    await writeFile(file, data);
    return ours.inspect(file, kind);
  };

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'provenance-spec-'));
    ours = new ProvenanceMarker({ python: PYTHON, ...(await makeChain(path.join(dir, 'ours'), 'Studio')) });
    foreign = new ProvenanceMarker({
      python: PYTHON,
      ...(await makeChain(path.join(dir, 'foreign'), 'Elsewhere')),
    });
  }, 60_000);

  afterAll(async () => {
    await Promise.all([ours?.close(), foreign?.close()]);
    await rm(dir, { recursive: true, force: true });
  });

  it('marks a black 1x1 picture the watermark cannot change (PSNR infinite, sent as null) and keeps serving', async () => {
    // the worker once wrote {"psnr": Infinity}, not JSON, and the parse error ended the API process
    const tiny = await sharp({ create: { width: 1, height: 1, channels: 3, background: '#000000' } })
      .jpeg()
      .toBuffer();
    const marked = await ours.mark(request(tiny, { format: 'jpeg' }));
    expect(marked.psnr).toBeNull();
    const next = await ours.mark(request(await testPicture(64, 64, 3)));
    expect(next.psnr).toBeGreaterThanOrEqual(40);
  }, 60_000);

  it('signs a valid manifest of ours (edited, composite) and hides the id in the pixels at >= 40 dB', async () => {
    const marked = await ours.mark(request(await testPicture(512, 512, 1)));
    expect(marked.psnr).toBeGreaterThanOrEqual(40);
    const seen = await inspectBytes(marked.data, 'marked.png');
    expect(seen.manifest).toMatchObject({
      state: 'valid',
      ours: true,
      action: 'c2pa.edited',
      tool: 'Face swap',
      digitalSourceType: expect.stringContaining('compositeWithTrainedAlgorithmicMedia'),
    });
    expect(seen.watermark).toMatchObject({ found: true, id: 0x1234abcd });
    const meta = await sharp(marked.data).metadata();
    expect(meta.width).toBe(512);
  }, 60_000);

  it('keeps the manifest to what C2PA requires: no thumbnail, no root certificate, a few KB in PNG, JPEG and WebP; still valid', async () => {
    const signerCert = await derOf(path.join(dir, 'ours', 'signer.pem'));
    const rootCert = await derOf(path.join(dir, 'ours', 'ca.pem'));
    const picture = await testPicture(256, 256, 8);
    for (const format of ['png', 'jpeg', 'webp'] as const) {
      const marked = await ours.mark(request(picture, { format }));
      // the signature box: the signer's certificate, then ES256, COSE headers and c2pa-rs's 1 KB
      // reserve; the claim, actions, two ingredients by hash and the hard binding: about 2.3 KB
      expect(marked.manifestBytes).toBeLessThan(signerCert.length + 1200 + 2560);
      expect(marked.data.includes(signerCert)).toBe(true);
      expect(marked.data.includes(rootCert)).toBe(false); // validators hold their own anchors
      expect(marked.data.includes('c2pa.thumbnail')).toBe(false);
      expect(marked.data.includes('c2pa.placed')).toBe(true); // the face, a component (C2PA 18.15.3)
      const seen = await inspectBytes(marked.data, `small.${format}`);
      expect(seen.manifest).toMatchObject({ state: 'valid', ours: true, validationState: 'Valid' });
    }
  }, 60_000);

  it('reports a file whose pixels were changed after signing as tampered', async () => {
    const marked = await ours.mark(request(await testPicture(384, 384, 2), { format: 'jpeg' }));
    const bytes = Buffer.from(marked.data);
    // a byte of the entropy-coded image data near the end (the manifest sits at the start)
    bytes[bytes.length - 500] ^= 0x55;
    const seen = await inspectBytes(bytes, 'tampered.jpg');
    expect(seen.manifest.state).toBe('tampered');
    expect(seen.manifest.failures).toContain('assertion.dataHash.mismatch');
  }, 60_000);

  it('reports a file signed by someone else as foreign, not ours', async () => {
    const signed = await foreign.mark(request(await testPicture(256, 256, 3), { markId: 77 }));
    const seen = await inspectBytes(signed.data, 'foreign.png');
    expect(seen.manifest).toMatchObject({ state: 'foreign', ours: false });
  }, 60_000);

  it('finds the watermark after the manifest is stripped: JPEG q75 of a half-size copy, and a 10% crop', async () => {
    const marked = await ours.mark(request(await testPicture(640, 512, 4), { markId: 424242 }));
    const half = await sharp(marked.data).resize(320, 256).jpeg({ quality: 75 }).toBuffer();
    const seenHalf = await inspectBytes(half, 'half.jpg');
    expect(seenHalf.manifest.state).toBe('none');
    expect(seenHalf.watermark).toMatchObject({ found: true, id: 424242 });
    const crop = await sharp(marked.data)
      .extract({ left: 32, top: 26, width: 576, height: 460 })
      .jpeg({ quality: 75 })
      .toBuffer();
    expect((await inspectBytes(crop, 'crop.jpg')).watermark).toMatchObject({ found: true, id: 424242 });
  }, 60_000);

  it('finds neither in an unmarked picture', async () => {
    const seen = await inspectBytes(await testPicture(512, 512, 5), 'plain.png');
    expect(seen.manifest.state).toBe('none');
    expect(seen.watermark.found).toBe(false);
  }, 60_000);

  it('marks every frame of a video, and the mark survives an H.264 re-encode at a lower bitrate', async () => {
    const still = path.join(dir, 'still.png');
    await writeFile(still, await testPicture(640, 512, 6));
    const video = path.join(dir, 'in.mp4');
    await run('ffmpeg', [
      ...['-v', 'error', '-y', '-loop', '1', '-i', still, '-t', '2', '-r', '25'],
      ...['-vf', "crop=480:360:x='t*30':y=40,format=yuv420p", '-c:v', 'libx264', '-crf', '23', video],
    ]);
    const marked = await ours.mark(
      request(await readFile(video), { format: 'mp4', markId: 9001, action: 'edited' }),
    );
    const seen = await inspectBytes(marked.data, 'marked.mp4', 'video');
    expect(seen.manifest).toMatchObject({ state: 'valid', ours: true });
    expect(seen.watermark).toMatchObject({ found: true, id: 9001 });
    const markedFile = path.join(dir, 'marked.mp4');
    const lower = path.join(dir, 'lower.mp4');
    await run('ffmpeg', ['-v', 'error', '-y', '-i', markedFile, '-c:v', 'libx264', '-b:v', '300k', lower]);
    const again = await ours.inspect(lower, 'video');
    expect(again.manifest.state).toBe('none');
    expect(again.watermark).toMatchObject({ found: true, id: 9001 });
  }, 120_000);
});
