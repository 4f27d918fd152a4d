/**
 * A fetch stand-in answering by "METHOD /path". A call nobody expected fails the test,
 * so a screen that sends something it should not is caught.
 */
export interface FakeAnswer {
  status: number;
  body?: unknown;
}

type Responder = FakeAnswer | ((init: RequestInit) => FakeAnswer);

export function mockFetch(answers: Record<string, Responder> = {}): jest.Mock {
  const fetchMock = jest.fn(async (input: RequestInfo | URL, init: RequestInit = {}) => {
    const key = `${init.method ?? 'GET'} ${String(input)}`;
    const responder = answers[key];
    if (!responder) throw new Error(`Unexpected request: ${key}`);
    const answer = typeof responder === 'function' ? responder(init) : responder;
    return {
      status: answer.status,
      ok: answer.status >= 200 && answer.status < 300,
      json: async () => answer.body,
    } as Response;
  });
  global.fetch = fetchMock as unknown as typeof fetch;
  return fetchMock;
}

/** The parsed JSON body of the nth call to fetch. */
export function sentBody(fetchMock: jest.Mock, call = 0): unknown {
  const init = fetchMock.mock.calls[call][1] as RequestInit;
  return JSON.parse(String(init.body));
}

/** Logs a remembered account in for the test, with the session call answering for it. */
export function sessionAnswer(content: {
  username: string;
  role?: 'user' | 'support' | 'admin';
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
