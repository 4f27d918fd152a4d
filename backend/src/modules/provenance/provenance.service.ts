import { Inject, Injectable, Logger, OnModuleDestroy } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import { access } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { Model } from 'mongoose';
import {
  DECODE_LIMITS,
  TOOL_LABELS,
  UPLOAD_LIMITS,
  type JobTool,
  type VerifyResult,
} from '@studio/contracts';
import {
  IPTC_COMPOSITE_WITH_AI,
  IPTC_TRAINED_ALGORITHMIC_MEDIA,
  PROVENANCE_SCRIPT,
  ProvenanceMarker,
  type IngredientInput,
  type OutputFormat,
  type ProvenanceOptions,
} from '@studio/inference';
import { APP_CONFIG, type AppConfig } from '../../config/app-config';
import type { AuthUser } from '../auth';
import { AuditService } from '../audit';
import { ProvenanceMark } from './provenance-mark.schema';

/** One output of a job, before it is stored. */
export interface OutputToMark {
  itemId: string;
  data: Buffer;
  format: OutputFormat;
}

/** What the marks say about the job that made the outputs (no user data goes into the files). */
export interface JobToMark {
  jobId: string;
  ownerId: string;
  username: string;
  tool: JobTool;
  /** The job's inputs in the order the tool takes them (hashed into the manifest's ingredients). */
  inputs: Buffer[];
  /** Clone jobs: outputs made from each input, so output i's parent is input i / perInput. */
  outputsPerInput?: number;
  when: Date;
}

const EDITING_TOOLS: ReadonlySet<JobTool> = new Set([
  'clone',
  'superResolution',
  'faceSwap',
  'inpaint',
  'faceSwapVideo',
]);
const COMPOSITE_TOOLS: ReadonlySet<JobTool> = new Set(['faceSwap', 'faceSwapVideo']);
const AI_SOURCES: ReadonlySet<string> = new Set([IPTC_TRAINED_ALGORITHMIC_MEDIA, IPTC_COMPOSITE_WITH_AI]);

/** The provenance child process's settings, or undefined when no signing certificate is set. */
export function provenanceOptions(config: AppConfig): ProvenanceOptions | undefined {
  if (!config.PROVENANCE_CERT_CHAIN || !config.PROVENANCE_PRIVATE_KEY) return undefined;
  return {
    python: resolve(config.PROVENANCE_PYTHON),
    certChain: resolve(config.PROVENANCE_CERT_CHAIN),
    privateKey: resolve(config.PROVENANCE_PRIVATE_KEY),
    alg: config.PROVENANCE_SIGNING_ALG,
    maxPixels: UPLOAD_LIMITS.imagePixels,
    maxFramePixels: DECODE_LIMITS.videoFramePixels,
    memoryMb: DECODE_LIMITS.provenanceMemoryMb,
  };
}

/**
 * Why this process could not mark outputs, checked at boot in production (boot.ts refuses to start
 * then): the certificate unset or unreadable, the tool (its Python or script) missing, or the tool
 * failing to sign a test picture with the certificate. Undefined when outputs can be marked.
 */
export async function provenanceProblem(config: AppConfig): Promise<string | undefined> {
  const options = provenanceOptions(config);
  if (!options) return 'no signing certificate (PROVENANCE_CERT_CHAIN / PROVENANCE_PRIVATE_KEY unset)';
  const tool = 'the provenance tool is not installed:';
  const certificate = 'cannot be read (is the signing certificate mounted?)';
  const files: [string, string][] = [
    [options.python, `${tool} PROVENANCE_PYTHON ${options.python} is missing`],
    [PROVENANCE_SCRIPT, `${tool} ${PROVENANCE_SCRIPT} is missing`],
    [options.certChain, `PROVENANCE_CERT_CHAIN ${options.certChain} ${certificate}`],
    [options.privateKey, `PROVENANCE_PRIVATE_KEY ${options.privateKey} ${certificate}`],
  ];
  for (const [file, problem] of files) {
    try {
      await access(file, constants.R_OK);
    } catch {
      return problem;
    }
  }
  const marker = new ProvenanceMarker(options);
  try {
    await marker.selfCheck();
    return undefined;
  } catch (err) {
    return `the provenance tool could not sign with the certificate: ${(err as Error).message}`;
  } finally {
    await marker.close();
  }
}

/** The watermark's id for an item: from a hash of its id, so a rerun of the job marks it the same. */
export function markIdCandidate(itemId: string, attempt: number): number {
  return createHash('sha256').update(`${itemId}:${attempt}`).digest().readUInt32BE(0);
}

/**
 * Marks every output before it is stored (invisible watermark + signed C2PA manifest, in the
 * provenance child process) and reads files for the public verify page.
 */
@Injectable()
export class ProvenanceService implements OnModuleDestroy {
  private readonly logger = new Logger(ProvenanceService.name);
  private readonly marker?: ProvenanceMarker;

  constructor(
    @Inject(APP_CONFIG) config: AppConfig,
    @InjectModel(ProvenanceMark.name) private readonly marks: Model<ProvenanceMark>,
    private readonly audit: AuditService,
  ) {
    const options = provenanceOptions(config);
    if (options) {
      this.marker = new ProvenanceMarker(options);
    } else {
      this.logger.warn(
        'PROVENANCE_CERT_CHAIN / PROVENANCE_PRIVATE_KEY unset: outputs are stored WITHOUT watermark or C2PA manifest',
      );
    }
  }

  get enabled(): boolean {
    return Boolean(this.marker);
  }

  async onModuleDestroy(): Promise<void> {
    await this.marker?.close();
  }

  /** The outputs watermarked and signed (unchanged when provenance is not configured). */
  async markOutputs(job: JobToMark, outputs: OutputToMark[]): Promise<Buffer[]> {
    if (!this.marker) return outputs.map((output) => output.data);
    const marked: Buffer[] = [];
    for (const [index, output] of outputs.entries()) {
      const markId = await this.reserveId(job, output.itemId);
      const result = await this.marker.mark({
        data: output.data,
        format: output.format,
        markId,
        tool: TOOL_LABELS[job.tool],
        action: EDITING_TOOLS.has(job.tool) ? 'edited' : 'created',
        composite: COMPOSITE_TOOLS.has(job.tool),
        when: job.when,
        title: `${TOOL_LABELS[job.tool]}.${output.format === 'jpeg' ? 'jpg' : output.format}`,
        ingredients: ingredientsOf(job, index),
      });
      marked.push(result.data);
    }
    return marked;
  }

  /**
   * The id the item's watermark carries, recorded before the file is marked (idempotent). One
   * insert for a new item (the usual case: a look-up first cost a second database round trip per
   * output); a rerun's insert meets its own record (the unique item id) and takes its id.
   */
  private async reserveId(job: JobToMark, itemId: string): Promise<number> {
    for (let attempt = 0; attempt < 8; attempt++) {
      const id = markIdCandidate(itemId, attempt);
      try {
        await this.marks.create({
          _id: id,
          itemId,
          jobId: job.jobId,
          ownerId: job.ownerId,
          username: job.username,
          tool: job.tool,
          createdAt: job.when,
        });
        return id;
      } catch (err) {
        if ((err as { code?: number }).code !== 11000) throw err;
        // recorded before (a rerun, or a concurrent run of the same job), or the id is another
        // output's: then the next candidate
        const mine = await this.marks.findOne({ itemId }).lean();
        if (mine) return mine._id;
      }
    }
    throw new Error(`no free watermark id for item ${itemId}`);
  }

  /**
   * The output a checked upload was made as, by its watermark (the report page: a copy traced to
   * its item even after re-encoding). Undefined without provenance or without a watermark of ours.
   */
  async traceOutput(file: { path: string; kind: 'image' | 'video' }): Promise<MarkedOutput | undefined> {
    if (!this.marker) return undefined;
    const seen = await this.marker.inspect(file.path, file.kind);
    if (!seen.watermark.found || seen.watermark.id === null) return undefined;
    const mark = await this.marks.findById(seen.watermark.id).lean();
    return mark ? { itemId: mark.itemId, jobId: mark.jobId, ownerId: mark.ownerId } : undefined;
  }

  /** Reads a checked upload: its manifest, its watermark, and (admins) whose output it is. */
  async verify(
    caller: AuthUser | undefined,
    file: { path: string; kind: 'image' | 'video' },
  ): Promise<VerifyResult | undefined> {
    if (!this.marker) return undefined;
    const seen = await this.marker.inspect(file.path, file.kind);
    const m = seen.manifest;
    const result: VerifyResult = {
      kind: file.kind,
      manifest: { state: m.state },
      watermark: { state: 'none' },
    };
    if (m.state !== 'none') {
      result.manifest = {
        state: m.state,
        tool: m.tool,
        action: m.action,
        when: m.when,
        generator: m.generator,
        aiGenerated: m.digitalSourceType ? AI_SOURCES.has(m.digitalSourceType) : undefined,
      };
    }
    if (seen.watermark.found && seen.watermark.id !== null) {
      const mark = await this.marks.findById(seen.watermark.id).lean();
      if (!mark) {
        result.watermark = { state: 'unknown' };
      } else {
        result.watermark = {
          state: 'ours',
          tool: TOOL_LABELS[mark.tool as JobTool] ?? mark.tool,
          createdAt: mark.createdAt.toISOString(),
        };
        if (caller?.role === 'admin') {
          result.admin = {
            jobId: mark.jobId,
            itemId: mark.itemId,
            owner: { id: mark.ownerId, username: mark.username },
          };
          await this.audit.append({
            category: 'provenance',
            author: { userId: caller.id, username: caller.username },
            message: `${caller.username} looked up the owner of a watermarked file: item ${mark.itemId} of job ${mark.jobId} (${mark.username})`,
          });
        }
      }
    }
    return result;
  }
}

/** The output a file's watermark points at, if the watermark is ours. */
export interface MarkedOutput {
  itemId: string;
  jobId: string;
  ownerId: string;
}

/** Inputs by hash: the edited picture as parent, the rest (a face, a mask) as components. */
function ingredientsOf(job: JobToMark, outputIndex: number): IngredientInput[] {
  if (job.tool === 'clone') {
    const parent = job.inputs[Math.floor(outputIndex / Math.max(1, job.outputsPerInput ?? 1))];
    return parent ? [{ data: parent, format: 'image/png', relationship: 'parentOf' }] : [];
  }
  const parentIndex = job.tool === 'faceSwap' ? 1 : 0; // face swap: [face, target]
  return job.inputs.map((data, i) => ({
    data,
    format: job.tool === 'faceSwapVideo' && i === 0 ? 'video/mp4' : 'image/png',
    relationship: i === parentIndex ? ('parentOf' as const) : ('componentOf' as const),
  }));
}
