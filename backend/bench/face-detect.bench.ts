/**
 * npm run bench -- faces: which face search finds the most faces, on a measured set made from the
 * test faces (../shared/testdata/faces or BENCH_FACES_DIR): each face as it is, tilted 25° and 45°,
 * mirrored, partly covered (the lower third of the face under a grey bar), small (the whole picture
 * shrunk so its face is about 40 px, on a 1600 x 1000 canvas), and sheets of six full-body figures.
 * The truth is the face each original picture shows (found on the original, then moved by the same
 * transform). A face is found when a detected box holds its centre and is 0.5..2 times its size.
 *
 * Candidates: Human's BlazeFace + mesh (the only face detector Human ships in its npm package) on
 * the whole image or on the whole image plus overlapping tiles, each with and without Human's
 * rotation correction; and the two other face detectors whose weights ship in an npm package,
 * @vladmandic/face-api's SSD MobileNet V1 (trained on WIDER FACE; whole image, and with the same
 * tiles) and its Tiny Face Detector, run on the same tfjs-core and wasm backend (faceapi-tfjs.cjs).
 * All run in this process, one after another (no services). Pictures larger than 2048 px a side
 * are searched on a 2048 px copy by every candidate, as the engine does.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import sharp from 'sharp';
import Module from 'node:module';
import {
  cropRgb,
  FaceAnalyzer,
  searchTiles,
  withoutDuplicates,
  type FaceSearch,
} from '../../libs/inference/src/face-analyzer';
import { decodeRgb, type RgbImage } from '../../libs/inference/src/image-io';
import { initTf, tf } from '../../libs/inference/src/tf-runtime';

const ROOT = path.resolve(__dirname, '..', '..');
const FACES_DIR = process.env.BENCH_FACES_DIR ?? path.resolve(ROOT, '..', 'shared', 'testdata', 'faces');

type Box = [number, number, number, number];
interface Case {
  name: string;
  kind: string;
  image: Buffer;
  truth: Box[];
}

const centreOf = (b: Box) => [b[0] + b[2] / 2, b[1] + b[3] / 2];

/** The box moved by rotating the picture `degrees` about its centre (sharp grows the canvas). */
function rotatedBox(box: Box, width: number, height: number, degrees: number): Box {
  const a = (degrees * Math.PI) / 180;
  const [cx, cy] = centreOf(box);
  const [ox, oy] = [width / 2, height / 2];
  const nw = Math.abs(width * Math.cos(a)) + Math.abs(height * Math.sin(a));
  const nh = Math.abs(width * Math.sin(a)) + Math.abs(height * Math.cos(a));
  const x = (cx - ox) * Math.cos(a) - (cy - oy) * Math.sin(a) + nw / 2;
  const y = (cx - ox) * Math.sin(a) + (cy - oy) * Math.cos(a) + nh / 2;
  return [x - box[2] / 2, y - box[3] / 2, box[2], box[3]];
}

async function makeCases(reference: FaceAnalyzer): Promise<Case[]> {
  const names = readdirSync(FACES_DIR)
    .filter((f) => /\.(jpe?g|png)$/i.test(f))
    .sort();
  const cases: Case[] = [];
  const bodies: { image: Buffer; box: Box; width: number; height: number }[] = [];
  for (const name of names) {
    const data = readFileSync(path.join(FACES_DIR, name));
    const rgb = await decodeRgb(data, 4096);
    const [face] = await reference.detectAnySize(rgb);
    if (!face) {
      console.log(`${name}: no face on the original, left out of the set`);
      continue;
    }
    const { width, height } = rgb;
    const png = await sharp(data).rotate().png().toBuffer();
    const box = face.box;
    cases.push({ name, kind: 'original', image: png, truth: [box] });
    cases.push({
      name,
      kind: 'mirrored',
      image: await sharp(png).flop().png().toBuffer(),
      truth: [[width - box[0] - box[2], box[1], box[2], box[3]]],
    });
    for (const degrees of [25, 45]) {
      cases.push({
        name,
        kind: `tilted ${degrees}°`,
        image: await sharp(png).rotate(degrees, { background: '#808080' }).png().toBuffer(),
        truth: [rotatedBox(box, width, height, degrees)],
      });
    }
    const bar = await sharp({
      create: {
        width: Math.round(box[2]),
        height: Math.round(box[3] / 3),
        channels: 3,
        background: '#808080',
      },
    })
      .png()
      .toBuffer();
    cases.push({
      name,
      kind: 'covered',
      image: await sharp(png)
        .composite([{ input: bar, left: Math.round(box[0]), top: Math.round(box[1] + (box[3] * 2) / 3) }])
        .png()
        .toBuffer(),
      truth: [box],
    });
    const scale = 40 / box[2];
    const sw = Math.max(1, Math.round(width * scale));
    const sh = Math.max(1, Math.round(height * scale));
    if (sw < 1600 && sh < 1000) {
      const small = await sharp(png).resize(sw, sh).png().toBuffer();
      const left = Math.round((1600 - sw) / 2);
      const top = Math.round((1000 - sh) / 2);
      cases.push({
        name,
        kind: 'small (40 px face)',
        image: await sharp({ create: { width: 1600, height: 1000, channels: 3, background: '#808080' } })
          .composite([{ input: small, left, top }])
          .png()
          .toBuffer(),
        truth: [[left + box[0] * scale, top + box[1] * scale, box[2] * scale, box[3] * scale]],
      });
    }
    if (height > width) bodies.push({ image: png, box, width, height });
  }
  // Sheets of six full-body figures, 380 px tall each, in a 3 x 2 grid.
  for (let sheet = 0; sheet + 6 <= bodies.length + 5 && sheet < 2; sheet++) {
    const parts: sharp.OverlayOptions[] = [];
    const truth: Box[] = [];
    for (let i = 0; i < 6; i++) {
      const body = bodies[(sheet * 3 + i) % bodies.length];
      const scale = 380 / body.height;
      const w = Math.round(body.width * scale);
      const left = 20 + (i % 3) * 400;
      const top = 20 + Math.floor(i / 3) * 400;
      parts.push({ input: await sharp(body.image).resize(w, 380).png().toBuffer(), left, top });
      const b = body.box;
      truth.push([left + b[0] * scale, top + b[1] * scale, b[2] * scale, b[3] * scale]);
    }
    cases.push({
      name: `sheet ${sheet + 1}`,
      kind: 'six figures',
      image: await sharp({ create: { width: 1240, height: 820, channels: 3, background: '#f0f0f0' } })
        .composite(parts)
        .png()
        .toBuffer(),
      truth,
    });
  }
  return cases;
}

function matches(found: Box, truth: Box): boolean {
  const [cx, cy] = centreOf(truth);
  const inside = cx >= found[0] && cx <= found[0] + found[2] && cy >= found[1] && cy <= found[1] + found[3];
  const ratio = Math.sqrt((found[2] * found[3]) / Math.max(1, truth[2] * truth[3]));
  return inside && ratio >= 0.5 && ratio <= 2;
}

/** A face search under test: the boxes (x, y, width, height in pixels) of the faces in a picture. */
interface Candidate {
  label: string;
  open(): Promise<void>;
  detect(image: RgbImage): Promise<Box[]>;
  close(): Promise<void>;
}

function humanCandidate(label: string, search: FaceSearch, rotation: boolean): Candidate {
  const analyzer = new FaceAnalyzer({ search, rotation });
  return {
    label,
    open: () => analyzer.load(),
    detect: async (image) => (await analyzer.detectAnySize(image)).map((f) => f.box as Box),
    close: () => analyzer.close(),
  };
}

/** The engine's tiled search (the same tiles) around any detector. */
async function tiled(image: RgbImage, detect: (part: RgbImage) => Promise<Box[]>): Promise<Box[]> {
  const boxes = await detect(image);
  for (const tile of searchTiles(image, Math.max(0, ...boxes.map((b) => b[2])))) {
    for (const [x, y, w, h] of await detect(cropRgb(image, tile)))
      boxes.push([x + tile.left, y + tile.top, w, h]);
  }
  const faces = boxes
    .sort((a, b) => b[2] * b[3] - a[2] * a[3])
    .map((box) => ({ box, landmarks: [], score: 1 }));
  return withoutDuplicates(faces).map((f) => f.box as Box);
}

interface FaceApi {
  nets: Record<'ssdMobilenetv1' | 'tinyFaceDetector', { loadFromDisk(dir: string): Promise<void> }>;
  detectAllFaces(
    input: unknown,
    options: unknown,
  ): Promise<{ box: { x: number; y: number; width: number; height: number } }[]>;
  SsdMobilenetv1Options: new (o: { minConfidence: number; maxResults: number }) => unknown;
  TinyFaceDetectorOptions: new (o: { inputSize: number; scoreThreshold: number }) => unknown;
}

let faceApi: FaceApi | undefined;
/** @vladmandic/face-api on the project's tfjs-core (its '@tensorflow/tfjs' answered by faceapi-tfjs.cjs). */
async function loadFaceApi(): Promise<FaceApi> {
  if (faceApi) return faceApi;
  await initTf();
  const shim = path.join(__dirname, 'faceapi-tfjs.cjs');
  const resolver = Module as unknown as { _resolveFilename(request: string, ...rest: unknown[]): string };
  const resolve = resolver._resolveFilename;
  resolver._resolveFilename = function (request: string, ...rest: unknown[]) {
    return request === '@tensorflow/tfjs' ? shim : resolve.call(this, request, ...rest);
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const api = require('@vladmandic/face-api/dist/face-api.node-wasm.js') as FaceApi;
  const models = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'model');
  await api.nets.ssdMobilenetv1.loadFromDisk(models);
  await api.nets.tinyFaceDetector.loadFromDisk(models);
  return (faceApi = api);
}

function faceApiCandidate(label: string, detector: 'ssd' | 'tiny', tiles: boolean): Candidate {
  const detect = async (image: RgbImage): Promise<Box[]> => {
    const api = await loadFaceApi();
    const options =
      detector === 'ssd'
        ? new api.SsdMobilenetv1Options({ minConfidence: 0.5, maxResults: 100 })
        : new api.TinyFaceDetectorOptions({ inputSize: 608, scoreThreshold: 0.5 });
    const input = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    try {
      return (await api.detectAllFaces(input, options)).map(({ box }) => [
        box.x,
        box.y,
        box.width,
        box.height,
      ]);
    } finally {
      input.dispose();
    }
  };
  return {
    label,
    open: async () => void (await loadFaceApi()),
    detect: (image) => (tiles ? tiled(image, detect) : detect(image)),
    close: async () => undefined,
  };
}

/** The candidate's faces in the picture's pixels, searched on a copy of at most 2048 px a side. */
async function search(candidate: Candidate, image: Buffer): Promise<Box[]> {
  const full = await sharp(image).metadata();
  const rgb = await decodeRgb(image, 2048);
  const scale = (full.width ?? rgb.width) / rgb.width;
  return (await candidate.detect(rgb)).map((b) => b.map((v) => v * scale) as Box);
}

async function main() {
  const only = process.env.BENCH_FACES_CANDIDATES?.split(',');
  const candidates: Candidate[] = [
    humanCandidate('whole image', 'whole', false),
    humanCandidate('whole + rotation', 'whole', true),
    humanCandidate('tiles (engine)', 'tiles', false),
    humanCandidate('tiles + rotation', 'tiles', true),
    faceApiCandidate('SSD MobileNet V1', 'ssd', false),
    faceApiCandidate('SSD MobileNet + tiles', 'ssd', true),
    faceApiCandidate('Tiny Face Detector', 'tiny', false),
  ].filter((c) => !only || only.some((o) => c.label.toLowerCase().includes(o.toLowerCase())));
  const reference = new FaceAnalyzer({ search: 'whole', rotation: false });
  const cases = await makeCases(reference);
  await reference.close();
  const kinds = [...new Set(cases.map((c) => c.kind))];
  console.log(`\n${cases.length} pictures, ${cases.reduce((n, c) => n + c.truth.length, 0)} faces`);
  const rows: string[] = [];
  for (const candidate of candidates) {
    await candidate.open();
    const perKind = new Map<string, { found: number; total: number }>();
    let extra = 0;
    let ms = 0;
    for (const c of cases) {
      const started = performance.now();
      const faces = await search(candidate, c.image);
      ms += performance.now() - started;
      const used = new Set<number>();
      let found = 0;
      for (const truth of c.truth) {
        const hit = faces.findIndex((box, i) => !used.has(i) && matches(box, truth));
        if (hit >= 0) {
          used.add(hit);
          found += 1;
        }
      }
      extra += faces.length - used.size;
      const k = perKind.get(c.kind) ?? { found: 0, total: 0 };
      perKind.set(c.kind, { found: k.found + found, total: k.total + c.truth.length });
    }
    await candidate.close();
    const all = [...perKind.values()].reduce((a, b) => ({
      found: a.found + b.found,
      total: a.total + b.total,
    }));
    rows.push(
      [
        candidate.label.padEnd(22),
        ...kinds.map((k) => `${perKind.get(k)!.found}/${perKind.get(k)!.total}`.padStart(8)),
        `${all.found}/${all.total}`.padStart(8),
        String(extra).padStart(6),
        `${Math.round(ms / cases.length)}`.padStart(8),
      ].join(' '),
    );
  }
  console.log(
    [
      'candidate'.padEnd(22),
      ...kinds.map((k) => k.slice(0, 8).padStart(8)),
      'all'.padStart(8),
      'extra'.padStart(6),
      'ms/pic'.padStart(8),
    ].join(' '),
  );
  for (const row of rows) console.log(row);
  console.log(`kinds: ${kinds.join(', ')}; extra = detections matching no face`);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
