import type { JobTool } from './jobs';

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
