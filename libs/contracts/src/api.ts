import type { LogEntry } from './audit';
import type { JobTool } from './tools';
import type { EngineReadiness } from './operations';
import type { Role } from './roles';

/** Every JSON answer has this shape (spec section 7); errors carry the human message in content. */
export interface ApiResponse<T = unknown> {
  message: string;
  content: T;
}

export const API_PREFIX = '/api';

export interface RegisterRequest {
  email: string;
  username: string;
  password: string;
  /** The person confirms being 18 or older. */
  adult: boolean;
}

export interface LoginRequest {
  username: string;
  password: string;
}

export interface LoginContent {
  username: string;
  verified: boolean;
  role: Role;
}

export interface FolderSummary {
  _id: string;
  title: string;
  amount: number;
}

/** What anyone may see of a profile. */
export interface PublicProfile {
  username: string;
  verified: boolean;
  early: boolean;
}

/** What the owner sees of their own profile. */
export interface OwnProfile extends PublicProfile {
  own: true;
  role: Role;
  balance: number;
  folders: FolderSummary[];
}

export type ProfileContent = OwnProfile | (PublicProfile & { own: false });

export interface SessionContent {
  username: string;
  verified: boolean;
  early: boolean;
  role: Role;
  balance: number;
}

export type ServiceState = 'up' | 'down';

/** What a job met on a remote GPU engine: no answer, an answer too late, its own error, an unreadable image. */
export type EngineFault = 'down' | 'timeout' | 'server_error' | 'bad_output';
export type StorageState = 'up' | 'full' | 'unavailable';
/** How long a fault met by a job shows in /api/health when nothing has succeeded since. */
export const FAULT_WINDOW_MS = 10 * 60_000;

export interface HealthContent {
  status: 'ok' | 'degraded';
  database: ServiceState;
  redis: ServiceState;
  /** The mail transport: 'up' (SMTP answers), 'down', or 'log' (no SMTP_URL: mails go to the log). */
  mail: ServiceState | 'log';
  /**
   * Per tool: its engine's kind and readiness (remote engines probed, answers cached for
   * ENGINE_PROBE_CACHE_MS; 'ready' for the local engine, 'not_configured' without one) and the
   * jobs on the remote server (every client's) when it tells. Any not ready: status 'degraded'.
   */
  engines: {
    tool: JobTool;
    kind: string;
    readiness: EngineReadiness | 'not_configured';
    remoteQueued?: number;
    /**
     * The last fault a job met on this engine within FAULT_WINDOW_MS, until a job of the tool
     * succeeds again (a server that answers the probe can still fail every job). Any: 'degraded'.
     */
    fault?: { kind: EngineFault; at: string };
  }[];
  /**
   * Content storage: 'up', or the fault a write or read met within FAULT_WINDOW_MS until a write
   * succeeds again: 'full' (the disk), 'unavailable' (S3 answering 5xx or stalling). Not up: 'degraded'.
   */
  storage: StorageState;
  uptimeSeconds: number;
  version: string;
}

export type LogsResponse = ApiResponse<LogEntry[]>;
