import { Logger } from '@nestjs/common';
import { OnGatewayConnection, WebSocketGateway } from '@nestjs/websockets';
import type { Socket } from 'socket.io';
import { SocketEvents, SocketRooms } from '@studio/contracts';
import { AccountsRepository } from '../accounts/accounts.repository';

/**
 * The browser's live channel. The adapter has already checked the session; here each socket joins
 * its user's room, and admins also join the admin room (audit feed).
 */
@WebSocketGateway()
export class RealtimeGateway implements OnGatewayConnection {
  private readonly logger = new Logger(RealtimeGateway.name);

  constructor(private readonly accounts: AccountsRepository) {}

  async handleConnection(socket: Socket): Promise<void> {
    const userId = (socket.request as { session?: { userId?: string } }).session?.userId;
    const account = userId ? await this.accounts.findById(userId) : null;
    if (!account) {
      socket.disconnect(true);
      return;
    }
    await socket.join(SocketRooms.user(account.id));
    if (account.role === 'admin') await socket.join(SocketRooms.admins);
    socket.emit(SocketEvents.ready, { username: account.username });
    this.logger.debug(`socket ${socket.id} joined for ${account.username}`);
  }
}
