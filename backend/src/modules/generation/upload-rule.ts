import type { FeatureFlags, JobTool } from '@studio/contracts';

// What a tool's upload is checked against, apart from the code that reads uploads
// (generation-uploads.ts for multipart, json-upload.ts for data URLs), which both use it.

/** One uploaded file, streamed to a temp file that lives as long as its request. */
export interface UploadedFile {
  fieldname: string;
  path: string;
  size: number;
}

/** What a tool's upload may hold and what must be true before any of it is read. */
export interface UploadRule {
  tool: Exclude<JobTool, 'generate'>;
  /** File fields the tool reads; a part with any other name is refused before its bytes are kept. */
  fileField: (name: string) => boolean;
  maxFiles: number;
  /** Bytes per file, and the answer when one is larger. */
  fileBytes: number;
  fileTooLarge: string;
  /** Bytes of the whole request. */
  requestBytes: number;
  /** The feature flag the tool needs, and the answer (403) while it is off. */
  flag?: { name: keyof FeatureFlags; offMessage: string };
  /** Units of the cheapest request the tool takes: its price must be covered before the body. */
  minUnits: number;
  /**
   * File fields that are one priced unit each (Clone0..N, bulk images): as each one begins, the
   * price of those so far is checked against the balance read before the body (402 at once).
   */
  pricedFile?: (name: string) => boolean;
}
