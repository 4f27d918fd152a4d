import {
  JobTools,
  OperationsSocketEvents,
  type FeatureFlags,
  type JobTool,
  type MaintenanceNotice,
  type OperationsState,
} from '@studio/contracts';
import { act, screen, waitFor } from '@testing-library/react';
import { openSocket } from './fakeSocket';
import type { FakeAnswer } from './fakeAnswer';

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

/**
 * One tool screen's maintenance notices: only its own enabled notices show, with their severity,
 * and the admins' changes replace them live. `open` renders the screen with these extra answers.
 */
export async function expectLiveToolNotices({
  tool,
  otherTool,
  text,
  liveText = 'Back to full speed soon.',
  open,
}: {
  tool: JobTool;
  otherTool: JobTool;
  text: string;
  liveText?: string;
  open: (answers: Record<string, FakeAnswer>) => Promise<unknown>;
}): Promise<void> {
  await open({
    'GET /api/operations': operationsAnswer(
      operationsState({
        notices: [
          notice(tool, text, { severity: 'error' }),
          notice(otherTool, 'Another tool is slow today.'),
          notice(tool, 'An old notice', { enabled: false }),
        ],
      }),
    ),
  });
  const notices = await screen.findAllByTestId('maintenance-notice');
  expect(notices.map((n) => n.textContent)).toEqual([text]);
  expect(notices[0]).toHaveClass('ant-alert-error');

  await operationsListening();
  pushOperations(operationsState({ notices: [notice(tool, liveText, { severity: 'info' })] }));
  expect(screen.getAllByTestId('maintenance-notice').map((n) => n.textContent)).toEqual([liveText]);
  expect(screen.getByTestId('maintenance-notice')).toHaveClass('ant-alert-info');
  pushOperations(operationsState());
  expect(screen.queryByTestId('maintenance-notice')).not.toBeInTheDocument();
}
