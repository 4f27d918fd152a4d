/**
 * What the fetch stand-in (fetchMock.ts) answers a call with; a file of its own so the answer
 * builders (operations.ts, admin.ts, jobs.ts) and the stand-in can all use it without a cycle.
 */
export interface FakeAnswer {
  status: number;
  body?: unknown;
  /** A file answer (a job's stored input) instead of JSON. */
  blob?: Blob;
  /** Response headers (Retry-After, say), by their lower-case name. */
  headers?: Record<string, string>;
}
