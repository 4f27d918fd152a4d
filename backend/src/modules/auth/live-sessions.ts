import { Inject, Injectable } from '@nestjs/common';
import { ACCOUNT_DIRECTORY, type AccountDirectory, type SessionAccount } from './account-directory';
import { sessionIsCurrent } from './session';

/**
 * The account behind a login session, for HTTP requests (SessionGuard) and socket handshakes
 * alike: null when there is no session, the account is gone, or the session was made with a
 * password that has changed since, or the account is suspended (it is destroyed then).
 */
@Injectable()
export class LiveSessions {
  constructor(@Inject(ACCOUNT_DIRECTORY) private readonly accounts: AccountDirectory) {}

  async accountOf(
    session:
      { userId?: string; credentials?: number; destroy?(cb: (err?: unknown) => void): unknown } | undefined,
  ): Promise<SessionAccount | null> {
    const userId = session?.userId;
    const account = userId ? await this.accounts.findById(userId) : null;
    if (!account) return null;
    if (sessionIsCurrent(session, account) && !account.suspended) return account;
    session?.destroy?.(() => undefined);
    return null;
  }
}
