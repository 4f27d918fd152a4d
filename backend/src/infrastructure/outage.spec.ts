import { MaxRetriesPerRequestError } from 'ioredis/built/errors';
import { MongoNetworkError, MongoServerSelectionError } from 'mongodb';
import { Error as MongooseError } from 'mongoose';
import { isOutage } from './outage';

describe('isOutage: which errors mean "Redis or the database is down"', () => {
  it.each([
    [
      'the driver finding no server',
      new MongoServerSelectionError('connect ECONNREFUSED 127.0.0.1:27017', {
        servers: new Map(),
      } as never),
    ],
    ['a connection to the database lost', new MongoNetworkError('connection 3 to 127.0.0.1:27017 closed')],
    [
      'mongoose holding a query without a connection',
      new MongooseError('Operation `jobs.findOne()` buffering timed out after 1500ms'),
    ],
    ['ioredis giving up on a command', new MaxRetriesPerRequestError(0)],
    ['a command to a Redis that does not answer', new Error('Command timed out')],
    ['a command on a closed Redis connection', new Error('Connection is closed.')],
    ['a Redis loading its data after a restart', new Error('LOADING Redis is loading the dataset in memory')],
    ['one wrapped by another layer', new Error('could not save', { cause: new Error('Command timed out') })],
    [
      'a write to a database connection that died mid-request (passed on unwrapped)',
      Object.assign(new Error('This socket has been ended by the other party'), { code: 'EPIPE' }),
    ],
  ])('%s', (_what, err) => expect(isOutage(err)).toBe(true));

  it.each([
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a duplicate key', Object.assign(new Error('E11000 duplicate key error'), { code: 11000 })],
    [
      'a remote engine that refuses connections',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.5:7860'), {
        code: 'ECONNREFUSED',
        syscall: 'connect',
      }),
    ],
    ['a plain string', 'Command timed out'],
  ])('not %s', (_what, err) => expect(isOutage(err)).toBe(false));
});
