import { A1111Error } from './a1111-error';
import { RemoteEngineError, remoteFaultOf } from './remote-http';

/** What a failed call says about the GPU server, as the job runner tells the user (issue 53). */
describe('remoteFaultOf', () => {
  it.each([
    [new RemoteEngineError('network', 'refused'), 'down'],
    [new RemoteEngineError('timeout', 'no answer'), 'timeout'],
    [new RemoteEngineError('server', 'HTTP 503', 503), 'server_error'],
    [new RemoteEngineError('protocol', 'not an image'), 'bad_output'],
    [new A1111Error('network', 'refused'), 'down'],
    [new A1111Error('timeout', 'ran too long'), 'timeout'],
    [new A1111Error('server', 'HTTP 500', 500), 'server_error'],
    [new A1111Error('protocol', 'cannot be decoded'), 'bad_output'],
  ])('%s → %s', (error, fault) => {
    expect(remoteFaultOf(error)).toBe(fault);
  });

  it('names nothing for credentials, rate limits and errors that are not the server’s', () => {
    expect(remoteFaultOf(new RemoteEngineError('auth', 'HTTP 401', 401))).toBeUndefined();
    expect(remoteFaultOf(new RemoteEngineError('rate_limited', 'HTTP 429', 429))).toBeUndefined();
    expect(remoteFaultOf(new A1111Error('auth', 'HTTP 403', 403))).toBeUndefined();
    expect(remoteFaultOf(new Error('cancelled by its owner'))).toBeUndefined();
    expect(remoteFaultOf(undefined)).toBeUndefined();
  });
});
