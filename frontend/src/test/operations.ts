import {
  JobTools,
  OperationsSocketEvents,
  type FeatureFlags,
  type JobTool,
  type MaintenanceNotice,
  type OperationsState,
} from '@studio/contracts';
import { act, waitFor } from '@testing-library/react';
import { openSocket } from './fakeSocket';
import type { FakeAnswer } from './fetchMock';

/** GET /api/operations as the server answers it; every tool capable unless told otherwise. */
export function operationsState({
  notices = [],
  flags = {},
  capabilities = {},
}: {
  notices?: MaintenanceNotice[];
  flags?: Partial<FeatureFlags>;
  capabilities?: Partial<Record<JobTool, boolean>>;
} = {}): OperationsState {
  const all = Object.fromEntries(JobTools.map((tool) => [tool, true])) as Record<JobTool, boolean>;
  return {
    notices,
    flags: { videoFaceSwap: false, ...flags },
    capabilities: { ...all, ...capabilities },
  };
}

export function operationsAnswer(state: OperationsState = operationsState()): FakeAnswer {
  return { status: 200, body: { message: 'success', content: state } };
}

export function notice(
  tool: JobTool,
  text: string,
  overrides: Partial<MaintenanceNotice> = {},
): MaintenanceNotice {
  return {
    tool,
    text,
    severity: 'warning',
    enabled: true,
    updatedAt: '2026-11-21T12:00:00.000Z',
    ...overrides,
  };
}

/** Waits until the screen listens for the admins' changes, so a push cannot come too early. */
export async function operationsListening(): Promise<void> {
  await waitFor(() => expect(openSocket()?.listenerCount(OperationsSocketEvents.changed)).toBeGreaterThan(0));
}

/** The server telling every browser that admins changed notices or flags. */
export function pushOperations(state: OperationsState): void {
  act(() => openSocket()!.serverEmit(OperationsSocketEvents.changed, state));
}

/** The profile answer of the logged-in user, with folders and balance. */
export function ownProfile(
  username: string,
  balance: number,
  folders: { _id: string; title: string; amount: number }[],
) {
  return {
    status: 200,
    body: {
      message: 'success',
      content: { own: true, username, verified: false, early: false, role: 'user', balance, folders },
    },
  };
}
