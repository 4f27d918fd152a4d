import type { Socket } from 'socket.io-client';
import { DomainEvents, SocketEvents, type LogEntry, type SocketEventPayloads } from '@studio/contracts';
import { connectSocket, signIn, uniqueName } from '../../../test/clients';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import { DomainEventBus } from '../events/domain-event-bus';

function next<E extends keyof SocketEventPayloads>(socket: Socket, event: E, timeoutMs = 5000) {
  return new Promise<SocketEventPayloads[E]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    socket.once(event as string, (payload: SocketEventPayloads[E]) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

describe('realtime gateway', () => {
  let t: TestApp;
  const sockets: Socket[] = [];
  const adminName = uniqueName('root');

  beforeAll(async () => {
    t = await startTestApp({ ADMIN_USERNAME: adminName, ADMIN_PASSWORD: 'admin-password-1' });
  });
  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await t.close();
  });

  it('refuses a handshake without a session', async () => {
    await expect(connectSocket(t)).rejects.toThrow('You need to be logged in');
    await expect(connectSocket(t, 'studio.sid=s%3Aforged.sig')).rejects.toThrow('You need to be logged in');
  });

  it('delivers balance.changed to the right user only', async () => {
    const alice = await signIn(t, uniqueName('alice'));
    const bob = await signIn(t, uniqueName('bob'));
    const aliceSocket = await connectSocket(t, alice.cookie);
    const bobSocket = await connectSocket(t, bob.cookie);
    sockets.push(aliceSocket, bobSocket);

    const bobGot: unknown[] = [];
    bobSocket.on(SocketEvents.balanceChanged, (p) => bobGot.push(p));

    const aliceAccount = (await t.app.get(AccountsRepository).findByUsername(alice.username))!;
    const received = next(aliceSocket, SocketEvents.balanceChanged);
    await t.app.get(DomainEventBus).publish(DomainEvents.balanceChanged, {
      userId: aliceAccount.id,
      username: alice.username,
      balance: 200,
      delta: 200,
      reason: 'test grant',
      kind: 'grant',
      entryId: 'e1',
    });
    await expect(received).resolves.toEqual({
      balance: 200,
      delta: 200,
      reason: 'test grant',
      kind: 'grant',
    });

    // Bob's socket is live (a push of his own arrives) and never saw Alice's.
    const bobAccount = (await t.app.get(AccountsRepository).findByUsername(bob.username))!;
    const bobReceived = next(bobSocket, SocketEvents.balanceChanged);
    await t.app.get(DomainEventBus).publish(DomainEvents.balanceChanged, {
      userId: bobAccount.id,
      username: bob.username,
      balance: 5,
      delta: 5,
      reason: 'test grant',
      kind: 'grant',
      entryId: 'e2',
    });
    await expect(bobReceived).resolves.toMatchObject({ balance: 5 });
    expect(bobGot).toEqual([{ balance: 5, delta: 5, reason: 'test grant', kind: 'grant' }]);
  });

  it('pushes new log entries to admins, and not to users', async () => {
    const admin = await signIn(t, adminName, 'admin-password-1');
    const user = await signIn(t, uniqueName('dave'));
    const adminSocket = await connectSocket(t, admin.cookie);
    const userSocket = await connectSocket(t, user.cookie);
    sockets.push(adminSocket, userSocket);
    const userGot: unknown[] = [];
    userSocket.on(SocketEvents.auditAppended, (p) => userGot.push(p));

    const newcomer = uniqueName('erin');
    const appended = new Promise<LogEntry>((resolve) => {
      adminSocket.on(SocketEvents.auditAppended, (entry: LogEntry) => {
        if (entry.author?.username === newcomer) resolve(entry);
      });
    });
    await signIn(t, newcomer);
    await expect(appended).resolves.toMatchObject({
      category: 'Account',
      message: `Registered account ${newcomer}.`,
    });
    expect(userGot).toEqual([]);
  });

  it('drops the socket session on logout: a new handshake with the old cookie is refused', async () => {
    const user = await signIn(t);
    await user.agent.post('/api/logout');
    await expect(connectSocket(t, user.cookie)).rejects.toThrow('You need to be logged in');
  });
});
