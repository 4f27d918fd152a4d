import { Inject, Logger, OnModuleDestroy } from '@nestjs/common';
import { OnGatewayConnection, OnGatewayInit, WebSocketGateway, WebSocketServer } from '@nestjs/websockets';
import type Redis from 'ioredis';
import type { Server, Socket } from 'socket.io';
import { canModerate, SocketEvents, SocketRooms } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { PeriodicTask } from '../../common/periodic-task';
import { REDIS } from '../../infrastructure/redis.module';
import { ACCOUNT_DIRECTORY, type AccountDirectory, sessionStoreKey } from '../auth';

interface SessionRequest {
  sessionID?: string;
  session?: { userId?: string };
}

/**
 * The browser's live channel. The adapter has already checked the session and the Origin; here
 * each socket joins its user's room and its login session's room (closed on logout), and admins
 * also join the admin room (audit feed) — the role read from the database on every join.
 *
 * A session can also end without anyone closing its sockets (it expires, or is deleted in Redis):
 * every SOCKET_SESSION_CHECK_SECONDS each instance checks the sessions of its own sockets in one
 * Redis round trip and closes the sockets whose session is gone.
 */
@WebSocketGateway()
export class RealtimeGateway implements OnGatewayConnection, OnGatewayInit, OnModuleDestroy {
  private readonly logger = new Logger(RealtimeGateway.name);
  private readonly sessionChecks = new PeriodicTask(() =>
    this.closeEndedSessions().catch((err: Error) => this.logger.warn(`session check failed: ${err.message}`)),
  );
  @WebSocketServer() private server?: Server;

  constructor(
    @Inject(ACCOUNT_DIRECTORY) private readonly accounts: AccountDirectory,
    @Inject(REDIS) private readonly redis: Redis,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
  ) {}

  afterInit(): void {
    this.sessionChecks.start(this.config.SOCKET_SESSION_CHECK_SECONDS * 1000);
  }

  async onModuleDestroy(): Promise<void> {
    await this.sessionChecks.stop();
  }

  /**
   * Nest does not look at this promise: a database or Redis failure while the socket joins (a part
   * went down after the handshake was let through) closes the socket, which the browser retries,
   * instead of rejecting unhandled, which would end the process.
   */
  handleConnection(socket: Socket): Promise<void> {
    return this.join(socket).catch((err: Error) => {
      this.logger.warn(`socket ${socket.id} not joined: ${err.message}`);
      socket.disconnect(true);
    });
  }

  private async join(socket: Socket): Promise<void> {
    const request = socket.request as SessionRequest;
    const userId = request.session?.userId;
    const sessionId = request.sessionID;
    const account = userId ? await this.accounts.findById(userId) : null;
    if (!account || !sessionId) {
      socket.disconnect(true);
      return;
    }
    socket.data.sessionId = sessionId;
    await socket.join([SocketRooms.user(account.id), SocketRooms.session(sessionId)]);
    if (account.role === 'admin') await socket.join(SocketRooms.admins);
    if (canModerate(account.role)) await socket.join(SocketRooms.moderators);
    // The cookie was read when the transport opened, which may be long before this join: a logout
    // in between closed its session room while this socket was not in it yet. Checked after
    // joining, so a logout from now on finds the socket in the room.
    if (!(await this.redis.exists(sessionStoreKey(this.config, sessionId)))) {
      socket.disconnect(true);
      return;
    }
    socket.emit(SocketEvents.ready, { username: account.username });
    this.logger.debug(`socket ${socket.id} joined for ${account.username}`);
  }

  /** Closes this instance's sockets whose login session no longer exists in Redis. */
  async closeEndedSessions(): Promise<void> {
    const sockets = [...(this.server?.of('/').sockets.values() ?? [])];
    const bySession = new Map<string, Socket[]>();
    for (const socket of sockets) {
      const sessionId = socket.data.sessionId as string | undefined;
      if (sessionId) bySession.set(sessionId, [...(bySession.get(sessionId) ?? []), socket]);
    }
    if (!bySession.size) return;
    const checks = this.redis.pipeline();
    const sessionIds = [...bySession.keys()];
    for (const sid of sessionIds) checks.exists(sessionStoreKey(this.config, sid));
    const results = (await checks.exec()) ?? [];
    sessionIds.forEach((sid, i) => {
      const [err, exists] = results[i] ?? [];
      if (!err && exists === 0) bySession.get(sid)?.forEach((socket) => socket.disconnect(true));
    });
  }
}
