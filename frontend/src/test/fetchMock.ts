import { Messages, type Role } from '@studio/contracts';
import type { FakeAnswer } from './fakeAnswer';
import { operationsAnswer } from './operations';

export type { FakeAnswer } from './fakeAnswer';

// A fetch stand-in answering by "METHOD /path". A call nobody expected fails the test, so a
// screen that sends something it should not is caught.

type Responder = FakeAnswer | ((init: RequestInit) => FakeAnswer | Promise<FakeAnswer>);

/** The job tray of a logged-in user asks for its jobs on every screen; none unless a test says so. */
export const noJobs: FakeAnswer = { status: 200, body: { message: 'success', content: [] } };

/** The tool screens ask for the admins' notices and flags; none set unless a test says so. */
export const noOperations: FakeAnswer = operationsAnswer();

export function mockFetch(answers: Record<string, Responder> = {}): jest.Mock {
  const known: Record<string, Responder> = {
    'GET /api/jobs': noJobs,
    'GET /api/operations': noOperations,
    ...answers,
  };
  const fetchMock = jest.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const key = `${init.method ?? 'GET'} ${String(input)}`;
    const responder = known[key];
    if (!responder) throw new Error(`Unexpected request: ${key}`);
    const answer = await (typeof responder === 'function' ? responder(init) : responder);
    return {
      status: answer.status,
      ok: answer.status >= 200 && answer.status < 300,
      json: async () => {
        if (answer.blob) throw new SyntaxError('Not JSON');
        return answer.body;
      },
      blob: async () => answer.blob ?? new Blob([JSON.stringify(answer.body)]),
      headers: {
        get: (name: string) =>
          answer.headers?.[name.toLowerCase()] ??
          (name.toLowerCase() === 'retry-after' ? null : (answer.blob?.type ?? 'application/json')),
      },
    } as unknown as Response;
  });
  global.fetch = fetchMock as unknown as typeof fetch;
  return fetchMock;
}

/** The calls made to one "METHOD /path". */
export function callsTo(fetchMock: jest.Mock, key: string): RequestInit[] {
  return fetchMock.mock.calls
    .filter(
      ([input, init]) => `${(init as RequestInit | undefined)?.method ?? 'GET'} ${String(input)}` === key,
    )
    .map(([, init]) => init as RequestInit);
}

/** The multipart form sent by a call. */
export function sentForm(init: RequestInit): FormData {
  if (!(init.body instanceof FormData)) throw new Error('The request body is not a form');
  return init.body;
}

/** The parsed JSON body of the nth call to fetch. */
export function sentBody(fetchMock: jest.Mock, call = 0): unknown {
  const init = fetchMock.mock.calls[call][1] as RequestInit;
  return JSON.parse(String(init.body));
}

/** Logs a remembered account in for the test, with the session call answering for it. */
export function sessionAnswer(content: {
  username: string;
  role?: Role;
  balance?: number;
  verified?: boolean;
  early?: boolean;
}): FakeAnswer {
  return {
    status: 200,
    body: {
      message: 'success',
      content: { verified: false, early: false, role: 'user', balance: 0, ...content },
    },
  };
}

/** The submission's mark a tool request carried (JOB_REF_HEADER): its job echoes it as `ref`. */
export function sentJobRef(init: RequestInit): string {
  const ref = (init.headers as Record<string, string> | undefined)?.['x-job-ref'];
  if (!ref) throw new Error('The request carries no job mark');
  return ref;
}

/** The API's answer while Redis or the database is down (H1's fail-fast 503). */
export function briefOutage(retryAfterSeconds = 10): FakeAnswer {
  return {
    status: 503,
    body: { message: 'error', content: Messages.briefOutage },
    headers: { 'retry-after': String(retryAfterSeconds) },
  };
}
