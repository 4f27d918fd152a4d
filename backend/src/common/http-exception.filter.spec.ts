import { ArgumentsHost, ServiceUnavailableException } from '@nestjs/common';
import { MongoNetworkError } from 'mongodb';
import { JobMessages, Messages, PromptMessages } from '@studio/contracts';
import { HttpExceptionFilter } from './http-exception.filter';

/** What the filter writes on a response: status, headers, body. */
function answer(exception: unknown) {
  const headers: Record<string, string> = {};
  const sent: { status?: number; body?: unknown } = {};
  const res = {
    headersSent: false,
    getHeader: (name: string) => headers[name.toLowerCase()],
    setHeader: (name: string, value: string) => (headers[name.toLowerCase()] = value),
    status(code: number) {
      sent.status = code;
      return this;
    },
    json: (body: unknown) => (sent.body = body),
  };
  const host = { switchToHttp: () => ({ getResponse: () => res }) } as unknown as ArgumentsHost;
  new HttpExceptionFilter().catch(exception, host);
  return { ...sent, retryAfter: headers['retry-after'] };
}

describe('HttpExceptionFilter: Retry-After on 503s', () => {
  it('a part down: 503, the plain words and when to come back', () => {
    expect(answer(new MongoNetworkError('connection 2 to 127.0.0.1:27017 closed'))).toEqual({
      status: 503,
      body: { message: 'error', content: Messages.briefOutage },
      retryAfter: expect.stringMatching(/^[1-9]\d*$/),
    });
  });

  it('a GPU server that does not answer: a wait may mend it', () => {
    expect(answer(new ServiceUnavailableException(JobMessages.engineUnreachable)).retryAfter).toBeDefined();
  });

  it.each([PromptMessages.notConfigured, JobMessages.engineUnavailable])(
    'something this studio has not set up (%s): no Retry-After, as no wait mends it',
    (text) => {
      expect(answer(new ServiceUnavailableException(text))).toEqual({
        status: 503,
        body: { message: 'error', content: text },
        retryAfter: undefined,
      });
    },
  );
});
