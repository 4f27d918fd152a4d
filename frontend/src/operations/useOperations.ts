import {
  DEFAULT_FEATURE_FLAGS,
  OperationsSocketEvents,
  type JobTool,
  type MaintenanceNotice,
  type OperationsState,
} from '@studio/contracts';
import { useContext, useEffect, useState } from 'react';
import { apiGet } from '../api/client';
import { RealtimeContext } from '../realtime/useRealtime';

export interface Operations extends OperationsState {
  /** False until GET /api/operations has answered (or a socket update arrived). */
  loaded: boolean;
}

const UNKNOWN: Operations = {
  notices: [],
  flags: DEFAULT_FEATURE_FLAGS,
  capabilities: {} as OperationsState['capabilities'],
  loaded: false,
};

/** Accepts only answers shaped like OperationsState, whatever the server or socket sent. */
function read(payload: unknown): Operations | null {
  if (!payload || typeof payload !== 'object') return null;
  const state = payload as Partial<OperationsState>;
  return {
    notices: Array.isArray(state.notices) ? state.notices : [],
    flags: { ...DEFAULT_FEATURE_FLAGS, ...(state.flags ?? {}) },
    capabilities: (state.capabilities ?? {}) as OperationsState['capabilities'],
    engines: state.engines && typeof state.engines === 'object' ? state.engines : {},
    loaded: true,
  };
}

/**
 * Maintenance notices, feature flags and tool capabilities set by admins: GET /api/operations
 * once, then every 'operations.changed' the server pushes to connected browsers.
 */
export function useOperations(): Operations {
  const socket = useContext(RealtimeContext);
  const [state, setState] = useState<Operations>(UNKNOWN);

  useEffect(() => {
    let current = true;
    void apiGet<OperationsState>('/operations').then((result) => {
      const next = result.ok ? read(result.body?.content) : null;
      // A socket update that arrived first is newer than this answer.
      if (current && next) setState((known) => (known.loaded ? known : next));
    });
    return () => {
      current = false;
    };
  }, []);

  useEffect(() => {
    if (!socket) return;
    const listener = (payload: unknown) => {
      const next = read(payload);
      if (next) setState(next);
    };
    socket.on(OperationsSocketEvents.changed, listener);
    return () => {
      socket.off(OperationsSocketEvents.changed, listener);
    };
  }, [socket]);

  return state;
}

/** The enabled notices of one tool, most severe first. */
export function noticesFor(operations: Pick<OperationsState, 'notices'>, tool: JobTool): MaintenanceNotice[] {
  const rank = { error: 0, warning: 1, info: 2 } as const;
  return operations.notices
    .filter((notice) => notice.tool === tool && notice.enabled && notice.text)
    .sort((a, b) => rank[a.severity] - rank[b.severity]);
}
