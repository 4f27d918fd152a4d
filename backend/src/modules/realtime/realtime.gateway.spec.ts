import Redis from 'ioredis';
import type { Socket } from 'socket.io';
import type { AppConfig } from '../../config/app-config';
import { requestRedisOptions } from '../../infrastructure/outage';
import { freePort } from '../../../test/processes';
import type { AccountDirectory } from '../auth';
import { RealtimeGateway } from './realtime.gateway';

describe('RealtimeGateway: a socket whose join meets Redis down', () => {
  it('is closed (the browser retries), and the join does not reject unhandled', async () => {
    // Redis went down after the handshake was let through: nothing listens on this port.
    const redis = new Redis(`redis://127.0.0.1:${await freePort()}`, requestRedisOptions);
    redis.on('error', () => undefined);
    const accounts = { findById: async () => ({ id: 'u1', username: 'alice', role: 'user' }) };
    const gateway = new RealtimeGateway(accounts as unknown as AccountDirectory, redis, {
      REDIS_PREFIX: 'gateway-spec',
    } as AppConfig);
    const disconnect = jest.fn();
    const socket = {
      id: 's1',
      data: {},
      request: { session: { userId: 'u1' }, sessionID: 'sid1' },
      join: async () => undefined,
      emit: jest.fn(),
      disconnect,
    } as unknown as Socket;
    try {
      await expect(gateway.handleConnection(socket)).resolves.toBeUndefined();
      expect(disconnect).toHaveBeenCalledWith(true);
      expect(socket.emit).not.toHaveBeenCalled();
    } finally {
      redis.disconnect();
    }
  });
});
