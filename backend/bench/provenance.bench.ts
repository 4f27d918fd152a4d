/**
 * npm run bench -- provenance (issue 27): every output of the local engine marked as the job runner
 * marks it (ProvenanceMarker: watermark + signed C2PA manifest), then judged by tools apart from
 * the marking code:
 * - the manifest read by c2patool (the c2pa-rs project's own CLI, built from crates.io into
 *   .tools/c2patool) when it is there, else by c2pa-python's Reader; the signer is c2pa-python, so
 *   the reader shares the c2pa-rs core with it (independent process and build, not implementation);
 * - the watermark after each transformation (backend/bench/provenance-judge.py: Pillow and ffmpeg
 *   transform, the detector reads), each reported apart; false positives on unmarked images (the
 *   test faces, noise, test patterns, every unmarked engine output) and videos, and their re-encodes;
 * - PSNR of marked vs unmarked; marking time per megapixel beside the engine's own time;
 * - the manifest store's size per output (issue 39), each output also signed the way it was before
 *   (ProvenanceMarker c2paDefaults: c2pa-rs's claim thumbnail, the chain with its root) by a second
 *   child process, in turns, so before and now are timed side by side on the same outputs.
 * Generate has no local engine (the remote engines make its pictures): a test face at 512 px (the
 * size generate asks for) is marked as the job runner marks a generate output (created, no inputs).
 * Inputs are kept small (images <= 512 px, clips of 1.5 s at 12 fps, 360 px wide) so the run takes
 * minutes on two shared cores. BENCH_PROVENANCE_PER_TOOL (default 50), BENCH_PROVENANCE_VIDEOS (10).
 * No services.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { benchSigning, PROVENANCE_PYTHON, testFaceFiles } from './bench-signing';
import { LocalCpuEngine } from '../../libs/inference/src/local-engine';
import {
  ProvenanceMarker,
  type MarkRequest,
  type OutputFormat,
} from '../../libs/inference/src/provenance-marker';

const run = promisify(execFile);
const ROOT = path.resolve(__dirname, '..', '..');
const C2PATOOL = path.join(ROOT, '.tools', 'c2patool', 'bin', 'c2patool');
const PER_TOOL = Number(process.env.BENCH_PROVENANCE_PER_TOOL ?? 50);
const VIDEOS = Number(process.env.BENCH_PROVENANCE_VIDEOS ?? 10);

type Tool = 'generate' | 'clone' | 'superResolution' | 'faceSwap' | 'inpaint' | 'faceSwapVideo';

interface Case {
  kind: 'image' | 'video';
  tool: Tool | 'unmarked';
  plain: string;
  marked?: string;
  /** The same output signed as before issue 39. */
  before?: string;
  markId?: number;
  psnr?: number | null;
}

interface Marking {
  markMs: number;
  /** Inside the child process (watermark + sign), without file and pipe transfer. */
  innerMs: number;
  /** The C2PA signing alone, inside the child process. */
  signMs: number;
  manifestBytes: number;
  fileBytes: number;
}

interface Timing {
  tool: Tool;
  engineMs: number;
  megapixels: number;
  now: Marking;
  /** The same output signed as before issue 39 (c2pa-rs defaults). */
  before: Marking;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
};
const pct = (hit: number, of: number) => `${hit}/${of} (${((100 * hit) / Math.max(1, of)).toFixed(1)}%)`;

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'provenance-bench-'));
  const faceFiles = testFaceFiles(3);
  // short side 384 px: small enough for minutes of CPU, about the size of a generated image (512)
  const faces = await Promise.all(
    faceFiles.map((f) => sharp(f).resize(384, 384, { fit: 'outside' }).png().toBuffer()),
  );
  const signing = await benchSigning(dir);
  const marker = new ProvenanceMarker(signing);
  const baseline = new ProvenanceMarker({ ...signing, c2paDefaults: true });
  // both child processes started (Python, c2pa, their identity check) before anything is timed
  const tiny = await sharp({ create: { width: 64, height: 64, channels: 3, background: '#468' } })
    .png()
    .toBuffer();
  for (const warm of [marker, baseline]) {
    await warm.mark({
      data: tiny,
      format: 'png',
      markId: 1,
      tool: 'warm-up',
      action: 'created',
      when: new Date(),
      title: 'warm-up',
    });
  }
  const engine = new LocalCpuEngine();
  const cases: Case[] = [];
  const timings: Timing[] = [];
  let next = 1;

  /** Marks one output as the job runner does, and keeps both versions for the judge. */
  const keep = async (
    tool: Tool,
    data: Buffer,
    format: OutputFormat,
    engineMs: number,
    request: Partial<MarkRequest>,
  ) => {
    const markId = (next++ * 2654435761) >>> 0;
    const ext = format === 'jpeg' ? 'jpg' : format;
    const plain = path.join(dir, `${tool}-${markId}.plain.${ext}`);
    const marked = path.join(dir, `${tool}-${markId}.marked.${ext}`);
    await writeFile(plain, data);
    const markWith = async (by: ProvenanceMarker) => {
      const t0 = performance.now();
      const result = await by.mark({
        data,
        format,
        markId,
        tool,
        action: 'edited',
        when: new Date(),
        title: tool,
        ...request,
      });
      const marking: Marking = {
        markMs: performance.now() - t0,
        innerMs: result.watermarkMs + result.signMs,
        signMs: result.signMs,
        manifestBytes: result.manifestBytes,
        fileBytes: result.data.length,
      };
      return { result, marking };
    };
    // in turns, so neither process is always the one that runs first
    const first = await markWith(next % 2 ? marker : baseline);
    const second = await markWith(next % 2 ? baseline : marker);
    const [now, before] = next % 2 ? [first, second] : [second, first];
    const result = now.result;
    await writeFile(marked, result.data);
    const signedBefore = path.join(dir, `${tool}-${markId}.before.${ext}`);
    await writeFile(signedBefore, before.result.data);
    let megapixels: number;
    if (format === 'mp4') {
      const probe = await run('ffprobe', [
        ...['-v', 'error', '-count_frames', '-select_streams', 'v:0'],
        ...['-show_entries', 'stream=width,height,nb_read_frames', '-of', 'csv=p=0', plain],
      ]);
      const [w, h, frames] = probe.stdout.trim().split(',').map(Number);
      megapixels = (w * h * frames) / 1e6;
    } else {
      const meta = await sharp(data).metadata();
      megapixels = (meta.width! * meta.height!) / 1e6;
    }
    timings.push({ tool, engineMs, megapixels, now: now.marking, before: before.marking });
    cases.push({
      kind: format === 'mp4' ? 'video' : 'image',
      tool,
      plain,
      marked,
      before: signedBefore,
      markId,
      psnr: result.psnr,
    });
  };
  const timed = async <T>(work: () => Promise<T>) => {
    const t0 = performance.now();
    const value = await work();
    return { value, ms: performance.now() - t0 };
  };
  const ingredient = (data: Buffer, relationship: 'parentOf' | 'componentOf') => ({
    data,
    format: 'image/png',
    relationship,
  });

  console.log(`provenance bench: ${PER_TOOL} outputs per local image tool, ${VIDEOS} videos (small inputs)`);
  for (let i = 0; i < PER_TOOL; i++) {
    const picture = await sharp(faces[i % faces.length])
      .resize(512, 512, { fit: 'cover' })
      .png()
      .toBuffer();
    await keep('generate', picture, 'png', NaN, { action: 'created' });
  }
  console.log('  generate done (remote engines only: test faces at 512 px marked as generate outputs)');
  for (let i = 0; i < PER_TOOL; i++) {
    const face = faces[i % faces.length];
    const small = await sharp(face)
      .resize(384 + (i % 3) * 64, 384 + (i % 3) * 64, { fit: 'outside' })
      .png()
      .toBuffer();
    const { value, ms } = await timed(() => engine.clone({ image: small, amount: 1 }));
    await keep('clone', value[0].data, value[0].format, ms, { ingredients: [ingredient(small, 'parentOf')] });
  }
  console.log('  clone done');
  for (let i = 0; i < PER_TOOL; i++) {
    const face = faces[i % faces.length];
    const small = await sharp(face)
      .resize(192 + (i % 3) * 32, 192 + (i % 3) * 32, { fit: 'outside' })
      .png()
      .toBuffer();
    const { value, ms } = await timed(() => engine.superResolve({ image: small, scale: 2 }));
    await keep('superResolution', value.data, value.format, ms, {
      ingredients: [ingredient(small, 'parentOf')],
    });
  }
  console.log('  super resolution done');
  for (let i = 0; i < PER_TOOL; i++) {
    const image = faces[i % faces.length];
    const meta = await sharp(image).metadata();
    const w = meta.width!;
    const h = meta.height!;
    const box = {
      left: 20 + ((i * 37) % (w - 120)),
      top: 20 + ((i * 53) % (h - 120)),
      width: 80,
      height: 60,
    };
    const mask = await sharp({ create: { width: w, height: h, channels: 3, background: '#000' } })
      .composite([
        {
          input: await sharp({
            create: { width: box.width, height: box.height, channels: 3, background: '#fff' },
          })
            .png()
            .toBuffer(),
          left: box.left,
          top: box.top,
        },
      ])
      .png()
      .toBuffer();
    const { value, ms } = await timed(() => engine.inpaint({ image, mask, prompt: '' }));
    await keep('inpaint', value.data, value.format, ms, {
      ingredients: [ingredient(image, 'parentOf'), ingredient(mask, 'componentOf')],
    });
  }
  console.log('  inpaint done');
  let swaps = 0;
  let swapFailures = 0;
  for (let attempt = 0; swaps < PER_TOOL && attempt < PER_TOOL * 4; attempt++) {
    const a = attempt % faces.length;
    const b = (a + 1 + Math.floor(attempt / faces.length)) % faces.length;
    if (a === b) continue;
    try {
      const { value, ms } = await timed(() => engine.faceSwap({ face: faces[a], target: faces[b] }));
      await keep('faceSwap', value.data, value.format, ms, {
        composite: true,
        ingredients: [ingredient(faces[b], 'parentOf'), ingredient(faces[a], 'componentOf')],
      });
      swaps++;
    } catch {
      swapFailures++; // a pair the engine refuses (faces turned differently): not an output
    }
  }
  console.log(`  face swap done (${swaps} outputs; ${swapFailures} pairs refused by the engine)`);
  for (let i = 0; i < VIDEOS; i++) {
    const still = path.join(dir, `still-${i}.png`);
    await writeFile(still, faces[i % faces.length]);
    const clip = path.join(dir, `clip-${i}.mp4`);
    await run('ffmpeg', [
      ...['-v', 'error', '-y', '-loop', '1', '-i', still, '-t', '1.5', '-r', '12'],
      ...['-vf', "scale=-2:360,crop=iw-16:ih-16:x='8+7*sin(t*3)':y=8,format=yuv420p"],
      ...['-c:v', 'libx264', '-crf', '22', clip],
    ]);
    cases.push({ kind: 'video', tool: 'unmarked', plain: clip });
    const out = path.join(dir, `swapped-${i}.mp4`);
    const face = faces[(i + 1) % faces.length];
    try {
      const { ms } = await timed(() => engine.faceSwapVideo({ videoPath: clip, face, outputPath: out }));
      await keep('faceSwapVideo', await readFile(out), 'mp4', ms, {
        composite: true,
        ingredients: [
          { data: await readFile(clip), format: 'video/mp4', relationship: 'parentOf' },
          ingredient(face, 'componentOf'),
        ],
      });
    } catch (err) {
      console.log(`  video ${i}: engine refused (${String(err).slice(0, 80)})`);
    }
  }
  console.log('  video face swap done');

  // Unmarked images: the test faces, noise, test patterns (every unmarked engine output is added too).
  for (const [i, face] of faces.entries()) {
    const file = path.join(dir, `face-${i}.png`);
    await writeFile(file, face);
    cases.push({ kind: 'image', tool: 'unmarked', plain: file });
  }
  for (let i = 0; i < 20; i++) {
    const size = 192 + i * 16;
    const noise = Buffer.alloc(size * size * 3);
    let s = i + 1;
    for (let k = 0; k < noise.length; k++) {
      s = (s * 1664525 + 1013904223) >>> 0;
      noise[k] = s >>> 24;
    }
    const file = path.join(dir, `noise-${i}.png`);
    await sharp(noise, { raw: { width: size, height: size, channels: 3 } })
      .blur(i % 2 ? 1.5 : 0.3)
      .png()
      .toFile(file);
    cases.push({ kind: 'image', tool: 'unmarked', plain: file });
  }
  for (let i = 0; i < 10; i++) {
    const file = path.join(dir, `pattern-${i}.png`);
    const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="${320 + i * 24}" height="256">
      <defs><pattern id="p" width="${8 + i * 4}" height="${8 + i * 4}" patternUnits="userSpaceOnUse">
      <rect width="${4 + i * 2}" height="${4 + i * 2}" fill="#222"/></pattern>
      <linearGradient id="g"><stop offset="0" stop-color="#f00"/><stop offset="1" stop-color="#00f"/></linearGradient></defs>
      <rect width="100%" height="100%" fill="url(#g)"/><rect width="100%" height="50%" fill="url(#p)"/></svg>`;
    await sharp(Buffer.from(svg)).png().toFile(file);
    cases.push({ kind: 'image', tool: 'unmarked', plain: file });
  }
  for (const c of [...cases]) {
    if (c.tool !== 'unmarked' && c.kind === 'image')
      cases.push({ kind: 'image', tool: 'unmarked', plain: c.plain });
  }

  // Manifests, by an independent reader where one is built.
  const readerName = existsSync(C2PATOOL) ? 'c2patool (c2pa-rs CLI)' : "c2pa-python's Reader";
  const reader = new ProvenanceMarker(signing); // a process apart from both signers
  /** Valid (intact, ours, no failure but the untrusted development chain) and the reader's verdict. */
  const readManifest = async (file: string): Promise<{ valid: boolean; verdict: string }> => {
    if (!existsSync(C2PATOOL)) {
      const seen = await reader.readManifest(file);
      return {
        valid: seen.state === 'valid',
        verdict: `${seen.validationState} ${(seen.failures ?? []).join(',')}`,
      };
    }
    const out = await run(C2PATOOL, [file], { maxBuffer: 64 * 1024 * 1024 }).catch(
      (e) => e as { stdout: string },
    );
    try {
      const store = JSON.parse(out.stdout) as {
        validation_state?: string;
        validation_status?: { code: string }[];
        active_manifest?: string;
      };
      const codes = (store.validation_status ?? []).map((s) => s.code);
      const failures = codes.filter((code) => code !== 'signingCredential.untrusted');
      return {
        valid:
          Boolean(store.active_manifest) && failures.length === 0 && store.validation_state !== 'Invalid',
        verdict: `${store.validation_state} ${codes.join(',')}`,
      };
    } catch {
      return { valid: false, verdict: 'unreadable' };
    }
  };
  // [valid now, valid as signed before, same verdict for both, outputs]
  const validated: Record<string, [number, number, number, number]> = {};
  for (const c of cases.filter((x) => x.marked)) {
    const now = await readManifest(c.marked!);
    const before = await readManifest(c.before!);
    const entry = (validated[c.tool] ??= [0, 0, 0, 0]);
    entry[0] += Number(now.valid);
    entry[1] += Number(before.valid);
    entry[2] += Number(now.verdict === before.verdict);
    entry[3] += 1;
  }
  await reader.close();

  const casesFile = path.join(dir, 'cases.json');
  const resultsFile = path.join(dir, 'results.json');
  await writeFile(casesFile, JSON.stringify(cases));
  const judgeStart = performance.now();
  await run(PROVENANCE_PYTHON, [path.join(__dirname, 'provenance-judge.py'), casesFile, resultsFile], {
    maxBuffer: 16 * 1024 * 1024,
  });
  const judgeSeconds = (performance.now() - judgeStart) / 1000;
  const judged = JSON.parse(await readFile(resultsFile, 'utf8')) as {
    images: Record<string, Record<string, [number, number]>>;
    videos: Record<string, Record<string, [number, number]>>;
    falsePositives: { images: number; imageChecks: number; videos: number; videoChecks: number };
    psnr: Record<string, number[]>;
    detectSeconds: number[];
  };

  console.log(`\nC2PA manifest valid, read by ${readerName}:`);
  for (const [tool, [ok, okBefore, same, of]] of Object.entries(validated))
    console.log(
      `  ${tool.padEnd(16)} ${pct(ok, of)} (signed as before: ${pct(okBefore, of)}; same verdict ${pct(same, of)})`,
    );
  console.log('\nwatermark found with the right id, per transformation:');
  for (const [tool, per] of Object.entries({ ...judged.images, ...judged.videos })) {
    const cells = Object.entries(per).map(([name, [ok, of]]) => `${name} ${pct(ok, of)}`);
    console.log(`  ${tool.padEnd(16)} ${cells.join('  ')}`);
  }
  const fp = judged.falsePositives;
  const unmarkedImages = cases.filter((c) => c.tool === 'unmarked' && c.kind === 'image').length;
  const unmarkedVideos = cases.filter((c) => c.tool === 'unmarked' && c.kind === 'video').length;
  console.log(
    `\nfalse positives: images ${fp.images}/${fp.imageChecks} checks (${unmarkedImages} unmarked images, each as is, JPEG q75, 50%, 10% crop); ` +
      `videos ${fp.videos}/${fp.videoChecks} checks (${unmarkedVideos} unmarked clips, as is and re-encoded at 400 kb/s)`,
  );
  console.log('\nPSNR marked vs unmarked (dB; videos: worst frame, luma):');
  for (const [tool, values] of Object.entries(judged.psnr)) {
    console.log(
      `  ${tool.padEnd(16)} min ${Math.min(...values).toFixed(2)}  median ${median(values).toFixed(2)}`,
    );
  }
  console.log(
    '\nmanifest store per output (median, max; bytes) and marked file, signed now beside the same output signed as before issue 39 (c2pa-rs defaults):',
  );
  const tools = [...new Set(timings.map((t) => t.tool))];
  for (const tool of tools) {
    const rows = timings.filter((t) => t.tool === tool);
    const stat = (pick: (r: Timing) => number) =>
      `${median(rows.map(pick)).toFixed(0)}, max ${Math.max(...rows.map(pick)).toFixed(0)}`;
    console.log(
      `  ${tool.padEnd(16)} manifest now ${stat((r) => r.now.manifestBytes)}; before ${stat((r) => r.before.manifestBytes)}` +
        ` | file now ${stat((r) => r.now.fileBytes)}; before ${stat((r) => r.before.fileBytes)}`,
    );
  }
  console.log(
    '\ntime per megapixel of output (median; video: all frames), engine vs marking (watermark + sign), now and as before issue 39:',
  );
  for (const tool of tools) {
    const rows = timings.filter((t) => t.tool === tool);
    const perMp = (pick: (r: Timing) => number) => median(rows.map((r) => pick(r) / r.megapixels)).toFixed(0);
    console.log(
      `  ${tool.padEnd(16)} engine ${tool === 'generate' ? '(remote)' : `${perMp((r) => r.engineMs)} ms/MP`}, marking now +${perMp((r) => r.now.markMs)} ms/MP ` +
        `(in the child process ${perMp((r) => r.now.innerMs)}, signing ${perMp((r) => r.now.signMs)}), ` +
        `before +${perMp((r) => r.before.markMs)} ms/MP (${perMp((r) => r.before.innerMs)}, signing ${perMp((r) => r.before.signMs)}) ` +
        `(median output ${median(rows.map((r) => r.megapixels)).toFixed(3)} MP, job ${median(rows.map((r) => r.engineMs)).toFixed(0)} ms + ` +
        `${median(rows.map((r) => r.now.markMs)).toFixed(0)} ms now, ${median(rows.map((r) => r.before.markMs)).toFixed(0)} ms before)`,
    );
  }
  console.log(
    `\ndetection: median ${(median(judged.detectSeconds) * 1000).toFixed(0)} ms per image; judge ran ${judgeSeconds.toFixed(0)} s`,
  );
  await marker.close();
  await baseline.close();
  await engine.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
