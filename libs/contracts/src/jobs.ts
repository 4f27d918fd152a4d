import type { SafetyReason } from './age-assurance';
import type { ContentItem } from './content';

import type { JobTool } from './tools';

/**
 * The job pipeline's shared vocabulary: one record per request, its states, what the API answers
 * and what the socket pushes. The tools themselves: tools.ts.
 */

export const JobStates = ['queued', 'running', 'succeeded', 'failed', 'cancelled'] as const;
export type JobState = (typeof JobStates)[number];

/** Job states in words for people (the jobs page's filter and tags). */
export const JOB_STATE_LABELS: Record<JobState, string> = {
  queued: 'Waiting',
  running: 'Running',
  succeeded: 'Done',
  failed: 'Failed',
  cancelled: 'Cancelled',
};

/** States a job can still leave: it may be cancelled, and it is shown with a place in line or progress. */
export const OPEN_JOB_STATES: readonly JobState[] = ['queued', 'running'];
export const isOpenJobState = (state: JobState) => OPEN_JOB_STATES.includes(state);

/** Names people see for each tool (job tray, folder titles, audit). */
export const TOOL_LABELS: Record<JobTool, string> = {
  clone: 'Clones',
  superResolution: 'Super resolution',
  faceSwap: 'Face swap',
  inpaint: 'Magic Brush',
  generate: 'Generated',
  faceSwapVideo: 'Video face swap',
};

/** A job as its owner sees it (GET /api/jobs/:id, the job tray). */
export interface JobView {
  _id: string;
  tool: JobTool;
  state: JobState;
  /** 0..100 */
  progress: number;
  cost: number;
  folderId: string;
  createdAt: string;
  finishedAt?: string;
  /** Items made by a job that succeeded. */
  items: ContentItem[];
  /** Why a failed job failed, in words for people. */
  error?: string;
  /** Credits returned when the job failed. */
  refunded?: number;
  /**
   * The bulk batch the job belongs to (the tray shows a batch as one row). `size` is how many jobs
   * it has, so the row counts them all from the first job's event on (absent for batches made
   * before it was recorded: the tray then counts the jobs it knows).
   */
  batch?: { id: string; name: string; size?: number };
  /** While queued: 1 is next in line (within the tool's queue, after fair-share ordering). */
  position?: number;
  /** While queued or running: seconds until it should finish, from recent measured durations. */
  etaSeconds?: number;
  /** What the job was asked with, for "Edit and run" (never another user's data). */
  settings: JobSettings;
  /** How many of the job's inputs are still stored (GET /api/jobs/:id/inputs/:index); 0 when gone. */
  inputCount: number;
  /** Set when a member of staff (not the owner) cancelled the job. */
  cancelledByStaff?: boolean;
  /** The job's outputs wait for a moderator (the reason code): not shown until released. */
  held?: SafetyReason;
  /**
   * The submission's own mark (JOB_REF_HEADER), echoed to its owner only: a browser tab knows its
   * job among the owner's others before the answer names it, so two tabs never follow each other's.
   */
  ref?: string;
}

/** Header a tool request may carry: an opaque mark of the submission, echoed as JobView.ref. */
export const JOB_REF_HEADER = 'x-job-ref';
/** What a submission mark may be: a short token (a UUID fits); anything else is ignored. */
export const JOB_REF_PATTERN = /^[A-Za-z0-9_-]{8,64}$/;

/** The settings of a job that "Run again" repeats and "Edit and run" pre-fills. */
export interface JobSettings {
  /** Clones per input image. */
  amount?: number;
  /** Inpaint or generation prompt. */
  prompt?: string;
  /** Generation tags (category -> value), when the job came from the Generate screen. */
  tags?: Record<string, string>;
  /** Super resolution factor. */
  scale?: 2 | 4;
}

/** GET /api/jobs/history: all of the caller's jobs, newest first, by keyset pages. */
export interface JobHistoryQuery {
  /** The previous page's `next`: jobs older than it. */
  before?: string;
  tool?: JobTool;
  state?: JobState;
  /** Jobs created on or after this day (YYYY-MM-DD, UTC). */
  from?: string;
  /** Jobs created on or before this day (YYYY-MM-DD, UTC). */
  to?: string;
  pageSize?: number;
}
export interface JobHistoryPage {
  items: JobView[];
  pageSize: number;
  /** Cursor of the next (older) page, null on the last. */
  next: string | null;
}
export const JOB_HISTORY_PAGE_SIZE = { default: 20, max: 100 } as const;

/**
 * What a tool endpoint answers (spec shape): 'success' with the finished job when it completed while
 * the request waited, 'processing' with the job when it is still queued or running.
 */
export type JobSubmitMessage = 'success' | 'processing';
export interface JobSubmitContent {
  job: JobView;
  /** The first result's url on success: the spec's screens show `content` as the image. */
  url?: string;
}

/**
 * A tool request's 422 when its job failed or was cancelled while the request waited: the message,
 * and the ended job beside it. A cancel from another tab (or this one) may be answered after this.
 */
export interface JobEndedRefusal {
  message: 'error';
  content: string;
  job: JobView;
}

/** Socket events of the job pipeline, pushed to the owner's room. */
export const JobSocketEvents = {
  queued: 'job.queued',
  progress: 'job.progress',
  completed: 'job.completed',
  failed: 'job.failed',
  /** Places in line of the owner's waiting jobs, pushed when a job of that queue starts. */
  positions: 'job.positions',
  /** A job was cancelled (by its owner in any tab, or by staff); the refund comes with it. */
  cancelled: 'job.cancelled',
} as const;

export interface JobSocketPayloads {
  'job.queued': { job: JobView; position: number };
  'job.progress': { jobId: string; tool: JobTool; progress: number };
  'job.completed': { job: JobView };
  'job.failed': { job: JobView; message: string; refunded: number };
  /** 1 is next in line; etaSeconds estimates when the job finishes. */
  'job.positions': { tool: JobTool; positions: JobPlace[] };
  'job.cancelled': { job: JobView; refunded: number };
}

/** A waiting job's place in line and its estimated seconds to finish. */
export interface JobPlace {
  jobId: string;
  position: number;
  etaSeconds?: number;
}

/**
 * Job control endpoints (paths under /api):
 * - POST jobs/:id/cancel -> CancelJobResult. Owner; support and admin for anyone (audited).
 *   A queued or running job ends `cancelled` with its reservation refunded in full; 409 when it
 *   already ended.
 * - POST jobs/batches/:batchId/cancel -> CancelJobResult: every open job of a bulk batch; what
 *   finished stays, exactly the undelivered share is refunded.
 * - POST jobs/:id/retry {expectedCost} -> JobView of the new job: the same inputs and settings,
 *   charged again; 409 with the current price when expectedCost differs (the client confirms it).
 * - GET jobs/:id/inputs/:index -> the stored input file (owner only), for "Edit and run".
 */
export interface CancelJobResult {
  /** Jobs that this call cancelled. */
  cancelled: number;
  /** Credits returned by this call. */
  refunded: number;
  /** The jobs after the call. */
  jobs: JobView[];
}
export interface RetryJobRequest {
  /** The price the user confirmed; refused with 409 when the job would now cost something else. */
  expectedCost: number;
}

/** Multipart field names of the spec's tool requests. */
export const JobFields = {
  clonePrefix: 'Clone',
  swapFace: 'Swap0',
  swapTarget: 'Swap1',
} as const;

/** Upload limits for tool inputs. */
export const UPLOAD_LIMITS = {
  /** Bytes per uploaded image. */
  imageBytes: 15 * 1024 * 1024,
  /** Pixels an uploaded image may decode to (decompression-bomb guard). */
  imagePixels: 40_000_000,
  /** Image types accepted, detected from the bytes, never from the name. */
  imageTypes: ['jpeg', 'png', 'webp'] as const,
  /** Bytes per uploaded video (30 s at most). */
  videoBytes: 100 * 1024 * 1024,
  /** Extra images in one bulk inpaint request. */
  bulkExtraImages: 20,
} as const;

/**
 * What any decoder may be asked to decode from a file someone sent (uploads, the verify page,
 * a GPU server's answer), read from the file's header and refused before decoding, and the memory
 * ceiling of the processes that decode (issue 35: a 140 KB PNG declaring 6000x6000 drove the
 * provenance reader past 9 GB).
 */
export const DECODE_LIMITS = {
  /** Pixels of an output a GPU server sends back, and of an image sent to the verify page: no
   * output of this studio is larger (a 4x super resolution of a 1024 px input), so nothing larger
   * can carry its marks as made. */
  outputImagePixels: 4096 * 4096,
  /** Pixels of one video frame (tools and verify): 4K UHD. Frames are decoded one at a time. */
  videoFramePixels: 3840 * 2160,
  /** Address space of the provenance child process (its baseline maps about 350 MB). */
  provenanceMemoryMb: 2048,
  /** Address space of each ffmpeg and ffprobe process started on an upload, and of the image
   * decoder process that reads the tools' uploads. */
  ffmpegMemoryMb: 2048,
  /** Tool uploads decoded at once (per API process), each on one thread of the decoder process. */
  imageDecoderConcurrency: 2,
  /**
   * Decompression bombs: above this many pixels (the face swap target's working size; every tool
   * works at 2048 px or less), a file must be large enough for its pixels, or it is refused from its
   * header, before anything decodes it. Below it, decoding costs little whatever the file.
   */
  denseAbovePixels: 2048 * 2048,
  /**
   * The most pixels one byte of file may declare above `denseAbovePixels`, per format. Measured on
   * the test faces enlarged up to 6000 px (smoother than any camera photo): PNG at most 4.1 px per
   * byte, JPEG q50 103, WebP q75 210; flat bombs: PNG 260-310, JPEG 170, WebP 560. docs/security.md.
   */
  pixelsPerByte: { png: 32, jpeg: 128, webp: 256 } as Readonly<Record<string, number>>,
} as const;

/**
 * A decompression bomb, from its header: more pixels than the tools work at, in a file too small
 * for them to be a photo (DECODE_LIMITS.pixelsPerByte, measured per format).
 */
export function isDecompressionBomb(format: string, pixels: number, bytes: number): boolean {
  if (pixels <= DECODE_LIMITS.denseAbovePixels) return false;
  return pixels / Math.max(1, bytes) > (DECODE_LIMITS.pixelsPerByte[format] ?? 1);
}

export const JobMessages = {
  notFound: 'Job not found',
  consentRequired: 'Confirm that you have the consent of the person whose face you use',
  imageRequired: 'An image is required',
  faceImageRequired: 'Choose a face image and a target image',
  badImage: 'The file is not a JPEG, PNG or WebP image',
  imageTooLarge: 'The image is too large',
  imageTooSparse:
    'The image declares more pixels than its file can hold for a photo (a decompression bomb?): save it at 2048 px or less on its longer side and try again',
  videoFrameTooLarge: 'The video’s frames are too large (at most 3840x2160)',
  noFaceSource: 'No face found in the face image',
  noFaceTarget: 'No face found in the target image',
  noFaceVideo: 'No face found in the video',
  posesDiffer:
    'The two faces are turned too differently to swap: choose a face image and a target in which the faces look the same way',
  maskSize: 'The mask must be the size of the image',
  engineUnavailable: 'This tool is not available right now',
  engineUnreachable:
    'This tool is not available right now: its GPU server does not answer. Nothing was charged; please try again later.',
  failed: 'The job failed; your credits were refunded',
  // Faults past the box (issue 53): what went wrong, in the user's words, and that it cost nothing.
  engineDown:
    'The GPU server for this tool stopped answering, so your job could not be made. Nothing was charged; please try again later.',
  engineTimeout:
    'The GPU server for this tool took too long to answer, so your job was stopped. Nothing was charged; please try again later.',
  engineServerError:
    'The GPU server for this tool reported an error while making your job. Nothing was charged; please try again later.',
  engineBadOutput:
    'The GPU server for this tool sent back an image that could not be read. Nothing was charged; please try again.',
  storageFull:
    'The studio could not store your files: its disk is full. Nothing was charged; please try again later.',
  storageUnavailable:
    'The studio could not store or read your files: its storage did not answer. Nothing was charged; please try again later.',
  engineCrashed:
    'The job stopped unexpectedly (it may need more memory than this server gives one job); your credits were refunded',
  cancelled: 'Cancelled; your credits were refunded',
  alreadyEnded: 'This job has already ended',
  inputsGone: 'The inputs of this job are no longer stored',
  priceChanged: 'The price of this job has changed; confirm the new price',
  tooManyWaiting: 'You have too many jobs waiting',
  swapInProgress: 'Face Swap in Progress',
  createFolderFirst: 'Create a folder on your profile page first',
  maskRequired: 'Paint a mask first',
  videoRequired: 'Choose a video and a face image',
  badVideo: 'The file is not a video we can read',
  videoTooLarge: 'The video is too large',
  videoTooLong: 'Max video length is 30 seconds.',
  videoSwapOff: 'Video face swap is turned off for now',
  videoSwapInProgress: 'Video Face Swap in Progress',
  bulkInProgress: 'Bulk inpaint processing',
  tooManyImages: 'Too many images in one batch',
  uploadTooLarge: 'The upload is too large',
  tooManyFiles: 'Too many files in one request',
  unexpectedFile: 'This tool does not take a file named',
  badUpload: 'The upload could not be read',
  uploadAborted: 'The upload was interrupted',
  uploadIdle: 'The upload stalled: no data arrived for too long',
  tooManyUploads: 'Wait for your uploads in progress to finish',
} as const;
