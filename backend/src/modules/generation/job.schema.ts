import { Prop, Schema, SchemaFactory } from '@nestjs/mongoose';
import type { KeyCharge } from '../api-keys';
import { Types } from 'mongoose';
import type {
  ContentCheck,
  ContentItem,
  JobState,
  JobTool,
  ModerationDecision,
  SafetyReason,
} from '@studio/contracts';

/** Tool parameters a job was asked with (only what the engine call needs). */
export interface JobParams {
  /** Clones per input image. */
  amount?: number;
  /** Inpaint and generation prompt (generation prompts always state adult age). */
  prompt?: string;
  /** Size of a generated image. */
  width?: number;
  height?: number;
  /** The bulk inpaint batch the job belongs to. */
  batchId?: string;
  batchName?: string;
  /** How many jobs the batch has (the tray's count before every job's event has arrived). */
  batchSize?: number;
  /** Measured duration of a video input, seconds. */
  durationSeconds?: number;
  /** Super resolution factor (2 when absent: jobs from before the choice). */
  scale?: 2 | 4;
  /** Generation tags (category key -> tag) the prompt was built from, for "Edit and run". */
  tags?: Record<string, string>;
  /** Face swap: the source face and the target faces chosen (largest first; 0 and [0] when absent). */
  sourceFace?: number;
  targetFaces?: number[];
  /** Video face swap: the face of the first frame to replace and follow (0 when absent). */
  targetFace?: number;
  /** Size of the job's work for estimated times (job-eta.ts): megapixels, seconds of video. */
  work?: number;
}

/** Who cancelled a job: its owner, or a member of staff (audited with their name). */
export interface JobCancel {
  userId: string;
  username: string;
  staff: boolean;
  at: Date;
}

/**
 * One record per tool request: who asked, what it costs, where its results go, and how far it got.
 * The credits are held by the ledger reservation `job:<_id>` until the job settles.
 */
@Schema({ collection: 'jobs', versionKey: false, minimize: false })
export class Job {
  _id!: Types.ObjectId;

  @Prop({ type: Types.ObjectId, required: true, index: true })
  owner!: Types.ObjectId;

  @Prop({ required: true })
  username!: string;

  @Prop({ type: String, required: true })
  tool!: JobTool;

  @Prop({ type: String, required: true })
  state!: JobState;

  @Prop({ required: true, default: 0 })
  progress!: number;

  @Prop({ required: true })
  cost!: number;

  @Prop({ type: Types.ObjectId, required: true })
  folder!: Types.ObjectId;

  /**
   * Storage keys of the uploaded inputs. Kept as long as the job's outputs are ("Run again", "Edit
   * and run"): removed with the last of them, with the account, or, for a job that ended without
   * outputs, at `inputsExpireAt`. Emptied when removed.
   */
  @Prop({ type: [String], required: true })
  inputs!: string[];

  /** When the inputs of a job that ended without outputs go (JOB_INPUTS_RETENTION_DAYS). */
  @Prop()
  inputsExpireAt?: Date;

  /** Priced units of the request (images made, seconds of video): "Run again" quotes them again. */
  @Prop()
  units?: number;

  /** Set (before the refund) when the owner or staff cancels the job. */
  @Prop({ type: Object })
  cancel?: JobCancel;

  @Prop({ type: Object, default: {} })
  params!: JobParams;

  /**
   * What the content check saw in each image input and output (nsfwjs' class scores, face ages),
   * and what it decided: shown, withheld (sexual output of a photo tool, refunded) or held.
   */
  @Prop({ type: Object })
  safety?: {
    inputs?: ContentCheck[];
    outputs?: ContentCheck[];
    verdict?: 'show' | 'withhold' | 'hold';
    reason?: SafetyReason;
    /** A held job's outputs were decided by a moderator (the first decision). */
    decided?: ModerationDecision;
  };

  /** The items the job made, as their owner sees them (kept here so no lookup is needed). */
  @Prop({ type: [Object], default: [] })
  outputs!: ContentItem[];

  @Prop()
  error?: string;

  @Prop()
  refunded?: number;

  @Prop({ required: true, default: 0 })
  attempts!: number;

  /** Set with the final state (job-state.ts): credits settled and the end announced. */
  @Prop({ required: true, default: false })
  settled!: boolean;

  @Prop({ required: true })
  createdAt!: Date;

  @Prop()
  startedAt?: Date;

  /** The worker process of the latest attempt (host:pid). */
  @Prop()
  worker?: string;

  @Prop()
  finishedAt?: Date;

  /** The submitting browser's mark (JOB_REF_HEADER), echoed to the owner: nothing reads it here. */
  @Prop()
  ref?: string;

  /** The personal API key that asked for the job, and the month its coins count in (its cap). */
  @Prop({ type: Object })
  apiKey?: KeyCharge;
}

export type JobRecord = Job;
export const JobSchema = SchemaFactory.createForClass(Job);
// The sweep's question: which jobs have not ended yet (an indexed equality, so the answer does not
// grow with the number of jobs ever run).
JobSchema.index({ state: 1 });
// The jobs page: one owner's jobs newest first by keyset on _id (the owner leads, so the embedded
// database narrows to the owner and reads _id in order; MongoDB uses the index as is).
JobSchema.index({ owner: 1, _id: -1 });
// A bulk batch's jobs (its status line, cancelling the batch).
JobSchema.index({ 'params.batchId': 1 }, { sparse: true });
// The retention sweep: inputs of ended jobs without outputs whose time is up.
JobSchema.index({ inputsExpireAt: 1 }, { sparse: true });

/** The ledger key of a job's reservation. */
export { jobReservationKey as reservationKeyOf } from '../billing';
