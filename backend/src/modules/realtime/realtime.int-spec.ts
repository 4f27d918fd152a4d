import type Redis from 'ioredis';
import request from 'supertest';
import { Manager, type Socket } from 'socket.io-client';
import { DomainEvents, SocketEvents, type LogEntry, type SocketEventPayloads } from '@studio/contracts';
import { connectSocket, eventually, signIn, uniqueName } from '../../../test/clients';
import { REDIS } from '../../infrastructure/redis.module';
import { sessionStoreKey, SESSION_COOKIE } from '../auth/session';
import { SessionEndListener } from '../auth/session-end.listener';
import { SessionRevoker } from '../auth/session-revoker';
import { RealtimeListener } from './realtime.listener';
import { startTestApp, type TestApp } from '../../../test/test-app';
import { AccountsRepository } from '../accounts/accounts.repository';
import { DomainEventBus } from '../events/domain-event-bus';
import { AuditService } from '../audit/audit.service';

function next<E extends keyof SocketEventPayloads>(socket: Socket, event: E, timeoutMs = 5000) {
  return new Promise<SocketEventPayloads[E]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    socket.once(event as string, (payload: SocketEventPayloads[E]) => {
      clearTimeout(timer);
      resolve(payload);
    });
  });
}

/** Resolves with the reason once the server closes the socket (fails if it stays open). */
function closedByServer(socket: Socket, timeoutMs = 5000) {
  return new Promise<string>((resolve, reject) => {
    if (socket.disconnected) return reject(new Error('socket was not connected'));
    const timer = setTimeout(() => reject(new Error(`still connected after ${timeoutMs} ms`)), timeoutMs);
    socket.once('disconnect', (reason) => {
      clearTimeout(timer);
      resolve(reason);
    });
  });
}

/** The session id inside a signed session cookie (s%3A<id>.<signature>). */
function sessionIdOf(cookie: string): string {
  const value = cookie.split('; ').find((c) => c.startsWith(`${SESSION_COOKIE}=`))!;
  return decodeURIComponent(value.slice(SESSION_COOKIE.length + 1))
    .slice(2)
    .split('.')[0];
}

/** Publishes a grant to the user, as the ledger does: their sockets get balance.changed. */
async function publishGrant(t: TestApp, username: string, amount: number, entryId: string) {
  const account = (await t.app.get(AccountsRepository).findByUsername(username))!;
  await t.app.get(DomainEventBus).publish(DomainEvents.balanceChanged, {
    userId: account.id,
    username,
    balance: amount,
    delta: amount,
    reason: 'test grant',
    kind: 'grant',
    entryId,
  });
}

describe('realtime gateway', () => {
  let t: TestApp;
  const sockets: Socket[] = [];
  const adminName = uniqueName('root');

  beforeAll(async () => {
    // The periodic session check is left at its default (a minute), so the tests below see the
    // sockets closed by logout and role changes themselves.
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

    const received = next(aliceSocket, SocketEvents.balanceChanged);
    await publishGrant(t, alice.username, 200, 'e1');
    await expect(received).resolves.toEqual({
      balance: 200,
      delta: 200,
      reason: 'test grant',
      kind: 'grant',
    });

    // Bob's socket is live (a push of his own arrives) and never saw Alice's.
    const bobReceived = next(bobSocket, SocketEvents.balanceChanged);
    await publishGrant(t, bob.username, 5, 'e2');
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

  it("closes the session's sockets on logout, and only that session's", async () => {
    const user = await signIn(t, uniqueName('frank'));
    const other = await signIn(t, user.username); // the same user on a second device
    const socket = await connectSocket(t, user.cookie);
    const otherSocket = await connectSocket(t, other.cookie);
    sockets.push(socket, otherSocket);

    const closed = closedByServer(socket);
    expect((await user.agent.post('/api/logout')).status).toBe(200);
    await expect(closed).resolves.toBe('io server disconnect');

    // The other session's socket still gets its pushes.
    const pushed = next(otherSocket, SocketEvents.balanceChanged);
    await publishGrant(t, user.username, 7, 'e-frank');
    await expect(pushed).resolves.toMatchObject({ balance: 7 });
  });

  it("closes an admin's socket on logout: no more audit entries after it", async () => {
    const admin = await signIn(t, adminName, 'admin-password-1');
    const adminSocket = await connectSocket(t, admin.cookie);
    sockets.push(adminSocket);
    const closed = closedByServer(adminSocket);
    await admin.agent.post('/api/logout');
    await expect(closed).resolves.toBe('io server disconnect');
  });

  it("ends all of a user's sessions and sockets when their role changes", async () => {
    const admin = await signIn(t, adminName, 'admin-password-1');
    const again = await signIn(t, adminName, 'admin-password-1');
    const adminSocket = await connectSocket(t, admin.cookie);
    sockets.push(adminSocket);
    const closed = closedByServer(adminSocket);

    const account = (await t.app.get(AccountsRepository).findByUsername(adminName))!;
    await t.app.get(DomainEventBus).publish(DomainEvents.roleChanged, {
      userId: account.id,
      username: adminName,
      role: 'user',
      previousRole: 'admin',
      actor: { userId: 'someone', username: 'someone' },
    });
    await expect(closed).resolves.toBe('io server disconnect');
    expect((await admin.agent.get('/api/session')).status).toBe(401);
    expect((await again.agent.get('/api/session')).status).toBe(401);
    await expect(connectSocket(t, again.cookie)).rejects.toThrow('You need to be logged in');
  });

  it('a role change handled late spares the sessions started after it', async () => {
    const before = await signIn(t, uniqueName('ivan'));
    const oldSocket = await connectSocket(t, before.cookie);
    sockets.push(oldSocket);
    const changedAt = new Date();
    const after = await signIn(t, before.username); // signs in again once the role has changed
    const newSocket = await connectSocket(t, after.cookie);
    sockets.push(newSocket);

    const closed = closedByServer(oldSocket);
    const account = (await t.app.get(AccountsRepository).findByUsername(before.username))!;
    // The event reaches its consumer only now (the queue was slow).
    await t.app.get(SessionEndListener).onRoleChanged({
      id: `late-${account.id}`,
      name: DomainEvents.roleChanged,
      occurredAt: changedAt.toISOString(),
      payload: {
        userId: account.id,
        username: account.username,
        role: 'support',
        previousRole: 'user',
        actor: { userId: 'someone', username: 'someone' },
      },
    });
    await expect(closed).resolves.toBe('io server disconnect');
    expect((await before.agent.get('/api/session')).status).toBe(401);
    expect((await after.agent.get('/api/session')).status).toBe(200);
    expect(newSocket.connected).toBe(true);
  });

  it('keeps a login listed when another login of the same user prunes the list while it is stored', async () => {
    const first = await signIn(t, uniqueName('twin'));
    const account = (await t.app.get(AccountsRepository).findByUsername(first.username))!;
    const redis = t.app.get<Redis>(REDIS);
    const racing = uniqueName('racing-session');
    let second: Awaited<ReturnType<typeof signIn>> | undefined;
    // A login listed but not stored yet, while the same user signs in again over HTTP whole.
    await t.app.get(SessionRevoker).remember(account.id, racing, async () => {
      second = await signIn(t, first.username);
      await redis.set(sessionStoreKey(t.config, racing), '{}', 'EX', 600);
    });

    expect(await t.app.get(SessionRevoker).endAllSessionsOf(account.id)).toBe(3);
    expect(await redis.exists(sessionStoreKey(t.config, racing))).toBe(0);
    expect((await first.agent.get('/api/session')).status).toBe(401);
    expect((await second!.agent.get('/api/session')).status).toBe(401);
  });

  it('takes a demoted admin out of the audit feed, also on a session the index does not know', async () => {
    const admin = await signIn(t, adminName, 'admin-password-1');
    const account = (await t.app.get(AccountsRepository).findByUsername(adminName))!;
    // Not in the index: a session begun before the index existed, or a login cut short between
    // saving the session and recording it. The role change cannot end it.
    await t.app
      .get<Redis>(REDIS)
      .zrem(`${t.config.REDIS_PREFIX}:user-sessions:${account.id}`, sessionIdOf(admin.cookie));
    const socket = await connectSocket(t, admin.cookie);
    sockets.push(socket);
    const feed: LogEntry[] = [];
    socket.on(SocketEvents.auditAppended, (entry: LogEntry) => feed.push(entry));

    const demoted = {
      id: `unindexed-${account.id}`,
      name: DomainEvents.roleChanged,
      occurredAt: new Date().toISOString(),
      payload: {
        userId: account.id,
        username: adminName,
        role: 'user' as const,
        previousRole: 'admin' as const,
        actor: { userId: 'someone', username: 'someone' },
      },
    };
    // The event's consumers: auth ends the sessions it knows of, realtime empties the admin room.
    await t.app.get(SessionEndListener).onRoleChanged(demoted);
    t.app.get(RealtimeListener).onRoleChanged(demoted);
    const marker = uniqueName('demoted');
    await t.app.get(AuditService).append({ category: 'Account', message: `Marker ${marker}.` });
    // Pushed after the entry, through the same Redis channel: once it is here, the entry would be.
    const pushed = next(socket, SocketEvents.balanceChanged);
    await publishGrant(t, adminName, 3, `e-${marker}`);
    await expect(pushed).resolves.toMatchObject({ balance: 3 });
    expect(feed.filter((entry) => entry.message.includes(marker))).toEqual([]);
  });

  it('closes a socket whose transport opened before logout and which joins after it (websocket and polling)', async () => {
    for (const transport of ['websocket', 'polling'] as const) {
      const user = await signIn(t, uniqueName('lena'));
      const manager = new Manager(t.url, {
        transports: [transport],
        extraHeaders: { cookie: user.cookie },
        reconnection: false,
        autoConnect: false,
      });
      // The transport is open under the session (the cookie was read then); no socket joined yet.
      await new Promise<void>((resolve, reject) => manager.open((err) => (err ? reject(err) : resolve())));
      expect((await user.agent.post('/api/logout')).status).toBe(200);

      const socket = manager.socket('/');
      sockets.push(socket);
      const outcome = new Promise<string>((resolve) => {
        socket.once(SocketEvents.ready, () => resolve('joined'));
        socket.once('connect_error', (err) => resolve(`refused: ${err.message}`));
        socket.once('disconnect', (reason) => resolve(`closed: ${reason}`));
      });
      socket.connect();
      await expect(outcome).resolves.not.toBe('joined');
      await eventually(async () => expect(socket.connected).toBe(false));
      manager.engine?.close();

      // And a fresh connection with the old cookie, on either transport, is refused.
      const again = new Manager(t.url, {
        transports: [transport],
        extraHeaders: { cookie: user.cookie },
        reconnection: false,
      }).socket('/');
      sockets.push(again);
      await expect(
        new Promise((resolve, reject) => {
          again.once(SocketEvents.ready, resolve);
          again.once('connect_error', reject);
        }),
      ).rejects.toThrow('You need to be logged in');
    }
  });

  it("refuses a handshake from another site's page, accepts the app's own", async () => {
    const user = await signIn(t, uniqueName('hank'));
    await expect(connectSocket(t, user.cookie, { origin: 'https://evil.example' })).rejects.toThrow();
    await expect(
      connectSocket(t, user.cookie, { origin: `http://${new URL(t.url).host}.evil.example` }),
    ).rejects.toThrow();
    const own = await connectSocket(t, user.cookie, { origin: t.url });
    sockets.push(own);
    expect(own.connected).toBe(true);
    // The same refusal over HTTP long-polling, the transport browsers start on.
    const polling = await request(t.url)
      .get('/socket.io/?EIO=4&transport=polling')
      .set('Origin', 'https://evil.example')
      .set('Cookie', user.cookie);
    expect(polling.status).toBe(403);
  });
});

describe('realtime gateway: sessions that end on their own', () => {
  let t: TestApp;
  const sockets: Socket[] = [];
  beforeAll(async () => {
    // Short, so the socket is closed soon; the test waits for the close itself.
    t = await startTestApp({ SOCKET_SESSION_CHECK_SECONDS: '0.2' });
  });
  afterAll(async () => {
    sockets.forEach((s) => s.close());
    await t.close();
  });

  it('closes a socket whose session expired or was deleted in Redis', async () => {
    const user = await signIn(t, uniqueName('gina'));
    const socket = await connectSocket(t, user.cookie);
    sockets.push(socket);
    const closed = closedByServer(socket);
    // What Redis does when the session's TTL runs out.
    await t.app.get<Redis>(REDIS).del(sessionStoreKey(t.config, sessionIdOf(user.cookie)));
    await expect(closed).resolves.toBe('io server disconnect');
  });
});
