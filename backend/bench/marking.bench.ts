/**
 * npm run bench -- marking (issue 54): where the time of marking one output goes, step by step,
 * beside the engine's own time for the same output, as before issue 54 and now, in turns in one run.
 * Outputs: a 256 px clone, a 1 MP clone, a 1 MP super resolution (512 px x2), a 1 MP face swap
 * (JPEG) and a 512 px Magic Brush, each made once by the local engine (its wall time is the
 * engine's), then marked BENCH_MARKING_RUNS times (default 11) by two provenance child processes in
 * turns: `before` (`--as-before-54`: PNG at zlib's default strategy, the PSNR in float64, c2pa
 * writing the file) and `now`. Steps (medians, ms): in the child: decode, embed (the watermark),
 * psnr, encode, sign (c2pa: manifest, signature, the file written); in this process: manifest (the
 * definition, its inputs hashed), files (temporary files written and read back), round trip (the
 * pipe, JSON and the child's turn on the CPU); db: the watermark id recorded by
 * ProvenanceService.reserveId in the bench's FerretDB (now: one insert; before: a look-up of the
 * id, then the insert, as it was).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import mongoose from 'mongoose';
import sharp from 'sharp';
import { benchSigning, testFaceFiles } from './bench-signing';
import { LocalCpuEngine } from '../../libs/inference/src/local-engine';
import {
  ProvenanceMarker,
  type MarkRequest,
  type OutputFormat,
} from '../../libs/inference/src/provenance-marker';
import type { AppConfig } from '../src/config/app-config';
import type { AuditService } from '../src/modules/audit';
import { ProvenanceMarkSchema, type ProvenanceMark } from '../src/modules/provenance/provenance-mark.schema';
import {
  markIdCandidate,
  ProvenanceService,
  type JobToMark,
} from '../src/modules/provenance/provenance.service';

const RUNS = Number(process.env.BENCH_MARKING_RUNS ?? 11);
const STEPS = ['decode', 'embed', 'psnr', 'encode', 'sign', 'manifest', 'files', 'roundTrip', 'db'];
/** The steps in the child process (the others are this process's, timed in wall time only). */
const CHILD_STEPS = ['decode', 'embed', 'psnr', 'encode', 'sign'];
const ENGINE_RUNS = Number(process.env.BENCH_MARKING_ENGINE_RUNS ?? 3);

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)] : NaN;
};

interface Output {
  name: string;
  data: Buffer;
  format: OutputFormat;
  engine: { wall: number; cpu: number };
  request: Partial<MarkRequest>;
}

async function main() {
  const dir = mkdtempSync(path.join(tmpdir(), 'marking-bench-'));
  const faceFiles = testFaceFiles(2);
  const face = (i: number, side: number) =>
    sharp(faceFiles[i]).resize(side, side, { fit: 'cover' }).png().toBuffer();
  const signing = await benchSigning(dir);
  const markers = {
    before: new ProvenanceMarker({ ...signing, asBefore54: true }),
    now: new ProvenanceMarker(signing),
  };
  const uri = process.env.MONGODB_URI;
  if (!uri) throw new Error('MONGODB_URI unset (npm run bench starts FerretDB and sets it)');
  const connection = await mongoose.createConnection(uri).asPromise();
  const marks = connection.model<ProvenanceMark>('ProvenanceMark', ProvenanceMarkSchema);
  await marks.init(); // its unique index, as the app has it
  await marks.deleteMany({});
  // the service's own reserveId (its marker unused: no certificate in this config)
  const service = new ProvenanceService({} as AppConfig, marks, undefined as unknown as AuditService);
  const reserveId = (job: JobToMark, itemId: string) =>
    (service as unknown as { reserveId(job: JobToMark, itemId: string): Promise<number> }).reserveId(
      job,
      itemId,
    );
  /** reserveId before issue 54, for a new item: a look-up of the candidate id, then the insert. */
  const reserveAsBefore = async (itemId: string) => {
    const id = markIdCandidate(itemId, 0);
    if (await marks.findById(id).lean()) throw new Error(`bench: id ${id} taken`);
    await marks.create({
      _id: id,
      itemId,
      jobId: 'bench',
      ownerId: 'bench',
      username: 'bench',
      tool: 'clone',
      createdAt: new Date(),
    });
    return id;
  };
  const job: JobToMark = {
    jobId: 'bench',
    ownerId: 'bench',
    username: 'bench',
    tool: 'clone',
    inputs: [],
    when: new Date(),
  };

  const engine = new LocalCpuEngine();
  /** The engine's run, ENGINE_RUNS times: medians of wall and CPU (this process: the pool's threads). */
  const timed = async <T>(work: () => Promise<T>) => {
    const walls: number[] = [];
    const cpus: number[] = [];
    let value!: T;
    for (let i = 0; i < ENGINE_RUNS; i++) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      value = await work();
      walls.push(performance.now() - t0);
      const cpu = process.cpuUsage(cpu0);
      cpus.push((cpu.user + cpu.system) / 1000);
    }
    return { value, engine: { wall: median(walls), cpu: median(cpus) } };
  };
  const parent = (data: Buffer) => ({ data, format: 'image/png', relationship: 'parentOf' as const });
  // each tool's engine loaded (and warm) before its output is timed
  await engine.clone({ image: await face(0, 64), amount: 1 });
  await engine.superResolve({ image: await face(0, 64), scale: 2 });
  await engine.faceSwap({ face: await face(0, 256), target: await face(1, 256) }).catch(() => undefined);

  const outputs: Output[] = [];
  for (const [name, side] of [
    ['clone 256 px', 256],
    ['clone 1 MP', 1024],
  ] as const) {
    const image = await face(0, side);
    const { value, engine: spent } = await timed(() => engine.clone({ image, amount: 1 }));
    outputs.push({ name, ...value[0], engine: spent, request: { ingredients: [parent(image)] } });
  }
  {
    const image = await face(1, 512);
    const { value, engine: spent } = await timed(() => engine.superResolve({ image, scale: 2 }));
    outputs.push({
      name: 'super resolution 1 MP',
      ...value,
      engine: spent,
      request: { ingredients: [parent(image)] },
    });
  }
  for (let i = 1; i < faceFiles.length; i++) {
    const [source, target] = [await face(0, 512), await face(i, 1024)];
    const swapped = await timed(() => engine.faceSwap({ face: source, target })).catch(() => undefined);
    if (!swapped) continue; // a pair the engine refuses
    outputs.push({
      name: 'face swap 1 MP',
      ...swapped.value,
      engine: swapped.engine,
      request: {
        composite: true,
        ingredients: [parent(target), { ...parent(source), relationship: 'componentOf' }],
      },
    });
    break;
  }
  {
    const image = await face(2, 512);
    const mask = await sharp({ create: { width: 512, height: 512, channels: 3, background: '#000' } })
      .composite([
        {
          input: { create: { width: 120, height: 90, channels: 3, background: '#fff' } },
          left: 200,
          top: 260,
        },
      ])
      .png()
      .toBuffer();
    const { value, engine: spent } = await timed(() => engine.inpaint({ image, mask, prompt: '' }));
    outputs.push({
      name: 'Magic Brush 512 px',
      ...value,
      engine: spent,
      request: { ingredients: [parent(image), { ...parent(mask), relationship: 'componentOf' }] },
    });
  }
  await engine.close();

  // both child processes started (Python, c2pa, their identity check) before anything is timed
  const tiny = await face(0, 64);
  for (const marker of Object.values(markers))
    await marker.mark({
      data: tiny,
      format: 'png',
      markId: 1,
      tool: 'warm-up',
      action: 'created',
      when: new Date(),
      title: 'warm-up',
    });

  let item = 0;
  const loadAtStart = loadavg()[0];
  console.log(
    `marking bench: engine: median of ${ENGINE_RUNS} runs; marking: each output ${RUNS} times by each variant, in turns; medians, ms`,
  );
  const cell = (value: number | undefined, width = 9) =>
    (value === undefined || Number.isNaN(value) ? '-' : value.toFixed(1)).padStart(width);
  for (const output of outputs) {
    const meta = await sharp(output.data).metadata();
    const megapixels = (meta.width! * meta.height!) / 1e6;
    type Row = { steps: Record<string, number>; cpu: Record<string, number>; total: number; bytes: number };
    const rows: Record<'before' | 'now', Row[]> = { before: [], now: [] };
    for (let i = 0; i < RUNS; i++) {
      const order = i % 2 ? (['now', 'before'] as const) : (['before', 'now'] as const);
      for (const variant of order) {
        const itemId = `bench-${variant}-${item++}`;
        const t0 = performance.now();
        const markId = variant === 'now' ? await reserveId(job, itemId) : await reserveAsBefore(itemId);
        const db = performance.now() - t0;
        const result = await markers[variant].mark({
          data: output.data,
          format: output.format,
          markId,
          tool: output.name,
          action: 'edited',
          when: new Date(),
          title: output.name,
          ...output.request,
        });
        rows[variant].push({
          steps: { ...result.steps, db },
          cpu: result.cpu,
          total: performance.now() - t0,
          bytes: result.data.length,
        });
      }
    }
    console.log(
      `\n${output.name} (${output.format}, ${megapixels.toFixed(2)} MP): engine ${output.engine.wall.toFixed(0)} ms wall, ${output.engine.cpu.toFixed(0)} ms CPU`,
    );
    console.log(
      `  ${''.padEnd(13)}${STEPS.map((s) => s.padStart(10)).join('')}${'total'.padStart(9)}${'/engine'.padStart(9)}${'bytes'.padStart(10)}`,
    );
    for (const variant of ['before', 'now'] as const) {
      const r = rows[variant];
      const stat = (pick: (x: Row) => number | undefined) => {
        const values = r.map(pick).filter((v): v is number => v !== undefined);
        return values.length ? median(values) : undefined;
      };
      const wall = median(r.map((x) => x.total));
      console.log(
        `  ${`${variant} wall`.padEnd(13)}${STEPS.map((s) =>
          cell(
            stat((x) => x.steps[s]),
            10,
          ),
        ).join('')}${cell(wall)}${`${((100 * wall) / output.engine.wall).toFixed(0)}%`.padStart(9)}${median(
          r.map((x) => x.bytes),
        )
          .toFixed(0)
          .padStart(10)}`,
      );
      const cpu = stat((x) => CHILD_STEPS.reduce((sum, s) => sum + (x.cpu[s] ?? 0), 0))!;
      console.log(
        `  ${`${variant} CPU`.padEnd(13)}${STEPS.map((s) =>
          CHILD_STEPS.includes(s)
            ? cell(
                stat((x) => x.cpu[s]),
                10,
              )
            : ''.padStart(10),
        ).join('')}${cell(cpu)}${`${((100 * cpu) / output.engine.cpu).toFixed(0)}%`.padStart(9)}`,
      );
    }
  }
  console.log(
    `\nload average ${loadAtStart.toFixed(1)} at the start, ${loadavg()[0].toFixed(1)} at the end; CPU rows: the child process's own CPU (its steps; the total of those), against the engine's CPU`,
  );
  await markers.before.close();
  await markers.now.close();
  await marks.deleteMany({});
  await connection.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
