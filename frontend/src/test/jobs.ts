import type { ContentItem, JobSocketPayloads, JobTool, JobView } from '@studio/contracts';
import { act, fireEvent, screen } from '@testing-library/react';
import { openSocket } from './fakeSocket';
import type { FakeAnswer } from './fetchMock';

let counter = 0;

/** A job as the server would describe it. */
export function jobView(overrides: Partial<JobView> & { tool: JobTool }): JobView {
  counter += 1;
  return {
    _id: `job${counter}`,
    state: 'queued',
    progress: 0,
    cost: 1,
    folderId: 'folder1',
    createdAt: new Date(Date.UTC(2026, 10, 21, 12, 0, counter)).toISOString(),
    items: [],
    settings: {},
    inputCount: overrides.tool === 'generate' ? 0 : 1,
    ...overrides,
  };
}

export function contentItems(count: number, jobId = 'job'): ContentItem[] {
  return Array.from({ length: count }, (_, i) => ({
    _id: `${jobId}-item${i}`,
    url: `/api/content/${jobId}-item${i}.png`,
    kind: 'image' as const,
    createdAt: '2026-11-21T12:00:00.000Z',
    jobId,
  }));
}

export function jobsAnswer(jobs: JobView[]): FakeAnswer {
  return { status: 200, body: { message: 'success', content: jobs } };
}

export function submitAnswer(message: 'success' | 'processing', job: JobView, url?: string): FakeAnswer {
  return { status: 200, body: { message, content: url ? { job, url } : { job } } };
}

/** An answer the test releases when it wants (the request "waits" on the server meanwhile). */
export function deferred() {
  let release!: (answer: FakeAnswer) => void;
  const answer = new Promise<FakeAnswer>((resolve) => {
    release = resolve;
  });
  return { responder: () => answer, release };
}

/** Pushes a job event from the fake server. */
export function pushJobEvent<N extends keyof JobSocketPayloads>(
  name: N,
  payload: JobSocketPayloads[N],
): void {
  act(() => openSocket()!.serverEmit(name, payload));
}

/** Chooses a file in the dropzone whose input carries this label. */
export async function pickImage(label: string, name = 'photo.png'): Promise<File> {
  const file = new File([new Uint8Array([137, 80, 78, 71])], name, { type: 'image/png' });
  const input = screen.getByLabelText(label);
  await act(async () => {
    fireEvent.change(input, { target: { files: [file] } });
  });
  return file;
}
