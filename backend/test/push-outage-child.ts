/**
 * Child process for the push-outage test: pushes a socket event through the real publisher while
 * its Redis is down (nothing listens on the port given), then says "alive" if the process is still
 * running a second later. Usage: ts-node push-outage-child.ts <redis url>
 */
import 'reflect-metadata';
import Redis from 'ioredis';
import { SocketEvents } from '@studio/contracts';
import type { AppConfig } from '../src/config/app-config';
import { requestRedisOptions } from '../src/infrastructure/outage';
import { RealtimePublisher } from '../src/modules/realtime/realtime.publisher';

const redis = new Redis(process.argv[2], requestRedisOptions);
redis.on('error', () => undefined);
const publisher = new RealtimePublisher(redis, { REDIS_PREFIX: 'push-outage' } as AppConfig);
publisher.toUser('someone', SocketEvents.balanceChanged, { balance: 1 } as never);
setTimeout(() => {
  process.stdout.write('alive\n');
  redis.disconnect();
}, 1_000);
