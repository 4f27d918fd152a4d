import type { JobTool } from './tools';

/**
 * Operations set by admins and read by every screen: maintenance notices per tool (they replace
 * the spec's hard-coded 'technical difficulties' toasts) and feature flags.
 */
export type NoticeSeverity = 'info' | 'warning' | 'error';

export interface MaintenanceNotice {
  tool: JobTool;
  text: string;
  severity: NoticeSeverity;
  enabled: boolean;
  updatedAt: string;
  updatedBy?: string;
}

export interface FeatureFlags {
  /** Video face swap (beta): off by default, as in the spec. */
  videoFaceSwap: boolean;
}

export const DEFAULT_FEATURE_FLAGS: FeatureFlags = { videoFaceSwap: false };

/** GET /api/operations: what the screens show (public). */
export interface OperationsState {
  notices: MaintenanceNotice[];
  flags: FeatureFlags;
  /** Whether an engine is configured for each tool (image generation needs a remote one). */
  capabilities: Record<JobTool, boolean>;
  /**
   * Which kind of engine serves each tool (null: none). Screens say what that means for the user:
   * on the local CPU engine Magic Brush fills from the picture itself and does not use the prompt.
   */
  engines?: Partial<Record<JobTool, EngineKind | null>>;
}

/** 'local': this server's CPU engine; 'gpu': a remote GPU engine (Automatic1111 and the like). */
export type EngineKind = 'local' | 'gpu';

/** PUT /api/admin/notices/{tool} */
export interface SetNoticeRequest {
  text: string;
  severity: NoticeSeverity;
  enabled: boolean;
}

/** PUT /api/admin/flags */
export type SetFlagsRequest = Partial<FeatureFlags>;

/** Socket event to every connected browser when notices or flags change. */
export const OperationsSocketEvents = { changed: 'operations.changed' } as const;

/** GET /api/admin/engines: per tool, its engine and whether that engine answers. */
/** Whether a remote engine can take a tool's jobs; see ToolEngineStatus.readiness. */
export type EngineReadiness = 'unreachable' | 'unauthorised' | 'models_missing' | 'ready';

export interface ToolEngineStatus {
  tool: JobTool;
  /** ENGINE_<TOOL>: local, a1111, comfyui, replicate */
  kind: string;
  /** An engine that can do the tool is configured. */
  available: boolean;
  /** Remote engines (ComfyUI, Replicate): the probe's answer. */
  reachable?: boolean;
  /**
   * Remote engines: the first obstacle to this tool's jobs ('unreachable', 'unauthorised',
   * 'models_missing': see `missing`), or 'ready'.
   */
  readiness?: EngineReadiness;
  /** What the server lacks for this tool ("ReActor model inswapper_128.onnx"). */
  missing?: string[];
  /** The GPU and its free memory, the account, or why the server does not answer. */
  detail?: string;
  gpu?: { name: string; vramFreeBytes: number; vramTotalBytes: number };
  /** The remote server's own queue (every client's prompts). */
  remoteQueue?: { running: number; pending: number };
  /** This studio's queue for the tool. */
  queue: { waiting: number; active: number; delayed: number; failed: number };
}
