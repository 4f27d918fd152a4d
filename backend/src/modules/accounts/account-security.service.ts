import {
  BadRequestException,
  ConflictException,
  Inject,
  Injectable,
  UnauthorizedException,
} from '@nestjs/common';
import { AccountMessages, DomainEvents, Messages, type AccountOverview } from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { type AuthUser, SessionRevoker } from '../auth';
import { DomainEventBus } from '../events';
import { MailService, MailTemplates } from '../mail';
import type { TokenPurpose } from './account-token.schema';
import { AccountTokens } from './account-tokens';
import { AccountRecord, AccountsRepository } from './accounts.repository';
import { PasswordHasher } from './password-hasher';
import { isStrongEnough } from './password-strength';

/** Where the mailed links lead (pages of the frontend). */
export const AccountLinks = {
  verifyEmail: (token: string) => `/verify-email?token=${token}`,
  resetPassword: (token: string) => `/reset-password?token=${token}`,
  forgotPassword: '/forgot-password',
};

/**
 * Email verification, password change and reset. Every answer that a stranger can ask for
 * (forgot password) is the same whatever the address, and the mail goes out in the background,
 * so neither the words nor the timing of an answer tell whether an address has an account.
 */
@Injectable()
export class AccountSecurityService {
  private readonly hasher: PasswordHasher;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly tokens: AccountTokens,
    private readonly mail: MailService,
    private readonly sessions: SessionRevoker,
    private readonly events: DomainEventBus,
    @Inject(APP_CONFIG) config: AppConfig,
  ) {
    this.hasher = new PasswordHasher(config.PASSWORD_SCRYPT_LOG_N);
  }

  async overview(user: AuthUser): Promise<AccountOverview> {
    const account = await this.requireAccount(user.id);
    return {
      username: account.username,
      email: account.email,
      emailVerified: account.emailVerified,
      createdAt: account.createdAt?.toISOString(),
    };
  }

  /** 400 with a clear message when the password is too easy to guess (zxcvbn-ts score). */
  async assertStrong(password: string, personal: string[]): Promise<void> {
    if (!(await isStrongEnough(password, personal)))
      throw new BadRequestException(AccountMessages.weakPassword);
  }

  /**
   * Mails a fresh verification link (at registration, and on request while unverified). The token
   * is issued after the answer, like the lookups of an address below, so that a registration
   * takes the same time whether or not the address already had an account.
   */
  sendVerification(account: AccountRecord): void {
    if (account.emailVerified) return;
    this.mail.inBackground('verification mail', () => this.mailLink(account, 'verifyEmail'));
  }

  /** Someone registered with this address: its owner hears of it (after the answer), nobody else. */
  warnOwnerOfAddress(email: string): void {
    this.mail.inBackground('already-registered mail', async () => {
      const account = await this.accounts.findByEmail(email);
      if (!account) return;
      await this.mail.send(
        account.email,
        MailTemplates.alreadyRegistered(account.username, this.mail.link(AccountLinks.forgotPassword)),
      );
    });
  }

  async resendVerification(user: AuthUser): Promise<void> {
    this.sendVerification(await this.requireAccount(user.id));
  }

  /** The link's token, used once: the address it was sent to is now verified. */
  async verifyEmail(token: string, clientIp?: string): Promise<void> {
    const used = await this.tokens.consume(token, 'verifyEmail');
    const account = used && (await this.accounts.findById(used.userId));
    // A token proves the address it was mailed to, and only while the account still has it.
    if (!used || !account || account.email !== used.email)
      throw new BadRequestException(AccountMessages.badLink);
    if (account.emailVerified) return;
    await this.accounts.setEmailVerified(account.id);
    // The client address goes with the event: the free allowance is limited per address and day.
    await this.events.publish(DomainEvents.emailVerified, {
      userId: account.id,
      username: account.username,
      clientIp,
    });
  }

  /**
   * The same answer for every address, at the same time: the lookup, the token and the mail all
   * happen after the answer, and a link goes out only when an account has the address.
   */
  forgotPassword(email: string): void {
    this.mail.inBackground('password reset mail', async () => {
      const account = await this.accounts.findByEmail(email);
      if (account) await this.mailLink(account, 'resetPassword');
    });
  }

  /**
   * A new password from a mailed link: the token is spent first (so a replay fails even if the
   * rest fails), then the hash is replaced and every session ends. The link proves the address,
   * so an unverified address becomes verified too.
   */
  async resetPassword(token: string, password: string): Promise<number> {
    // A too-weak password is refused before the link is spent, so the person can try another.
    const pending = await this.tokens.peek(token, 'resetPassword');
    const owner = pending && (await this.accounts.findById(pending.userId));
    if (owner) await this.assertStrong(password, [owner.username, owner.email]);
    const used = await this.tokens.consume(token, 'resetPassword');
    const account = used && (await this.accounts.findById(used.userId));
    if (!used || !account || account.email !== used.email)
      throw new BadRequestException(AccountMessages.badLink);
    return this.setNewPassword(account, password, 'reset');
  }

  /**
   * The owner, knowing the current password: every other session ends, this one stays (the caller
   * records the returned credentials version in it).
   */
  async changePassword(user: AuthUser, sessionId: string, current: string, next: string): Promise<number> {
    const account = await this.requireAccount(user.id);
    if (!(await this.hasher.verify(current, account.passwordHash))) {
      throw new BadRequestException(AccountMessages.wrongPassword);
    }
    if (current === next) throw new BadRequestException(AccountMessages.samePassword);
    return this.setNewPassword(account, next, 'change', sessionId);
  }

  async verifyPassword(account: AccountRecord, password: string): Promise<void> {
    if (!(await this.hasher.verify(password, account.passwordHash))) {
      throw new BadRequestException(AccountMessages.wrongPassword);
    }
  }

  async requireAccount(id: string): Promise<AccountRecord> {
    const account = await this.accounts.findById(id);
    if (!account) throw new UnauthorizedException(Messages.needLogin);
    return account;
  }

  /** A fresh one-time token for `purpose`, mailed as a link to its page (the latest link counts). */
  private async mailLink(account: AccountRecord, purpose: TokenPurpose): Promise<void> {
    // Past the address's hourly mail cap nothing happens: a new token would revoke the link the
    // owner may still be about to use, with no mail to replace it.
    if (!(await this.mail.admit(account.email))) return;
    const token = await this.tokens.issue(account.id, account.email, purpose);
    const url = this.mail.link(AccountLinks[purpose](token));
    await this.mail.deliver(account.email, MailTemplates[purpose](account.username, url));
  }

  /**
   * The steps a new password takes, by reset link or by the owner: checked, stored (reset links
   * revoked), sessions ended but `keepSession`, announced, and the owner told by mail. A reset
   * also verifies the address: the link reached it.
   */
  private async setNewPassword(
    account: AccountRecord,
    password: string,
    via: 'reset' | 'change',
    keepSession?: string,
  ): Promise<number> {
    await this.assertStrong(password, [account.username, account.email]);
    const version = await this.replacePassword(account, password);
    if (via === 'reset' && !account.emailVerified) await this.accounts.setEmailVerified(account.id);
    const ended = await this.sessions.endAllSessionsOf(account.id, { except: keepSession });
    await this.events.publish(DomainEvents.passwordChanged, {
      userId: account.id,
      username: account.username,
      via,
      sessionsEnded: ended,
    });
    this.mail.dispatch(account.email, MailTemplates.passwordChanged(account.username));
    return version;
  }

  /** Compare and set on the old hash: of two changes at once, one wins and the other is refused. */
  private async replacePassword(account: AccountRecord, password: string): Promise<number> {
    const version = await this.accounts.setNewPasswordHash(
      account.id,
      account.passwordHash,
      await this.hasher.hash(password),
    );
    if (version === null) throw new ConflictException('The password was changed meanwhile; try again');
    // Any reset link still in a mailbox stops working with the old password.
    await this.tokens.revokeAll(account.id, 'resetPassword');
    return version;
  }
}
