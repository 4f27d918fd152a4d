/** Validation limits and timings from the spec (section 9) and the foundation issue. */

export const USERNAME_MIN = 3;
export const USERNAME_MAX = 32;
/** Letters, digits, dot, dash and underscore; must start with a letter or digit. */
export const USERNAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;
/**
 * Deleted accounts' ledger entries and audit lines carry `deleted-<random hex>`: nobody may
 * register a name with this prefix (any letter case), so no refund or lookup meant for a deleted
 * account can reach a look-alike.
 */
export const RESERVED_USERNAME_PREFIX = 'deleted-';
export const RESERVED_USERNAME_PATTERN = /^(?!deleted-)/i;
// Names the studio speaks as, and names that read as them: reserved-names.ts (isReservedUsername).

export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;
export const EMAIL_MAX = 254;

export const IMAGE_SIDE_MAX = 1024;
/** Generated images are square, this many pixels a side (spec section 9: 512x512). */
export const GENERATED_IMAGE_SIZE = 512;
export const BRUSH_SIZE = { min: 5, max: 50, default: 20 } as const;
export const CANVAS_ZOOM = { min: 0.33, max: 1 } as const;
export const BULK_INPAINT_AMOUNT = { min: 1, max: 100, default: 1 } as const;
export const CLONE_AMOUNT = { min: 1, max: 100 } as const;
export const VIDEO_MAX_SECONDS = 30;
export const FOLDER_TITLE_MAX = 64;

/**
 * Multipart uploads to the tools: what one request may carry in all and how many one user may have
 * in flight. Checked before the body is read (declared Content-Length) and while it streams to disk.
 */
export const UPLOAD_REQUEST_LIMITS = {
  /** Bytes of one whole request to an image tool (every file and field). */
  imageRequestBytes: 128 * 1024 * 1024,
  /** Bytes of one whole request to the video tool: one video (100 MB), one face image, the fields. */
  videoRequestBytes: 120 * 1024 * 1024,
  /** Tool uploads one user may have in progress at once (counted per API instance). */
  concurrentPerUser: 3,
  /** Text fields in one request, and bytes of each. */
  fields: 20,
  fieldBytes: 64 * 1024,
} as const;

export const TOAST_DURATION_MS = 5000;
export const MODAL_CLOSE_DELAY_MS = 5000;
export const PATREON_REDIRECT_MS = 5000;
export const DOWNLOAD_LINK_CLEANUP_MS = 100;
export const ADMIN_CHART_DAYS = 30;

export type UsernameProblem = 'length' | 'characters' | 'reserved';

/** Returns what is wrong with a user name, or null when it is acceptable. */
export function usernameProblem(username: string): UsernameProblem | null {
  if (username.length < USERNAME_MIN || username.length > USERNAME_MAX) return 'length';
  if (!USERNAME_PATTERN.test(username)) return 'characters';
  if (!RESERVED_USERNAME_PATTERN.test(username)) return 'reserved';
  return null;
}

/**
 * Jobs one user may have waiting or running at once, across tools (a full bulk batch fits); the
 * next request gets 429 naming this limit.
 */
export const MAX_OPEN_JOBS_PER_USER = 150;
