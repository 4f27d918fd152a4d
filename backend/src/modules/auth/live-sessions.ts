import { Injectable } from '@nestjs/common';
import { AccountsRepository, type AccountRecord } from '../accounts/accounts.repository';
import { sessionIsCurrent } from './session';

/**
 * The account behind a login session, for HTTP requests (SessionGuard) and socket handshakes
 * alike: null when there is no session, the account is gone, or the session was made with a
 * password that has changed since (it is destroyed then).
 */
@Injectable()
export class LiveSessions {
  constructor(private readonly accounts: AccountsRepository) {}

  async accountOf(
    session:
      { userId?: string; credentials?: number; destroy?(cb: (err?: unknown) => void): unknown } | undefined,
  ): Promise<AccountRecord | null> {
    const userId = session?.userId;
    const account = userId ? await this.accounts.findById(userId) : null;
    if (!account) return null;
    if (sessionIsCurrent(session, account)) return account;
    session?.destroy?.(() => undefined);
    return null;
  }
}
