import {
  ConflictException,
  ForbiddenException,
  Inject,
  Injectable,
  Logger,
  OnApplicationBootstrap,
  UnauthorizedException,
} from '@nestjs/common';
import {
  AccountMessages,
  DomainEvents,
  Messages,
  type LoginContent,
  type Role,
  type SessionContent,
} from '@studio/contracts';
import { APP_CONFIG, AppConfig } from '../../config/app-config';
import { DomainEventBus } from '../events';
import { MailService } from '../mail';
import type { AuthUser } from '../auth';
import { AccountRecord, AccountsRepository, isDuplicateKeyError } from './accounts.repository';
import { LoginThrottle } from './login-throttle';
import type { LoginDto, RegisterDto } from './accounts.dto';
import { AccountSecurityService } from './account-security.service';
import { PasswordHasher } from './password-hasher';

export interface RequestContext {
  ip?: string;
}

@Injectable()
export class AccountsService implements OnApplicationBootstrap {
  private readonly logger = new Logger(AccountsService.name);
  private readonly hasher: PasswordHasher;
  /** Compared against when the user is unknown, so both failures take the same time. */
  private dummyHash?: Promise<string>;

  constructor(
    private readonly accounts: AccountsRepository,
    private readonly events: DomainEventBus,
    private readonly security: AccountSecurityService,
    private readonly mail: MailService,
    @Inject(APP_CONFIG) private readonly config: AppConfig,
    private readonly throttle: LoginThrottle,
  ) {
    this.hasher = new PasswordHasher(config.PASSWORD_SCRYPT_LOG_N);
  }

  /**
   * The first admin comes from configuration: created at boot with ADMIN_PASSWORD, and marked as
   * seeded. An existing account of that name that registered itself is never promoted (anyone
   * could have taken the name): the error is logged and the server runs without that admin.
   */
  async onApplicationBootstrap(): Promise<void> {
    const { ADMIN_USERNAME, ADMIN_PASSWORD, ADMIN_EMAIL } = this.config;
    if (!ADMIN_USERNAME) return;
    const existing = await this.accounts.findByUsername(ADMIN_USERNAME);
    if (existing) {
      if (existing.role === 'admin') return;
      if (existing.seededAdmin) {
        await this.accounts.setRole(existing.id, 'admin');
        return;
      }
      this.logger.error(
        `ADMIN_USERNAME ${ADMIN_USERNAME} names an account that registered itself; it is NOT made admin. ` +
          'Set ADMIN_USERNAME to a name no one uses (with ADMIN_PASSWORD) to seed the first admin.',
      );
      return;
    }
    if (!ADMIN_PASSWORD) {
      this.logger.warn(
        `ADMIN_USERNAME ${ADMIN_USERNAME} has no account yet; set ADMIN_PASSWORD to create it`,
      );
      return;
    }
    try {
      const admin = await this.create(
        {
          username: ADMIN_USERNAME,
          email: ADMIN_EMAIL ?? `${ADMIN_USERNAME.toLowerCase()}@admin.invalid`,
          password: ADMIN_PASSWORD,
          adult: true,
        },
        'admin',
        { seededAdmin: true, emailVerified: true },
      );
      await this.announceRegistered(admin);
      this.logger.log(`created the configured admin account ${ADMIN_USERNAME}`);
    } catch (err) {
      // Another instance booting at the same time created it first.
      if (!(err instanceof ConflictException)) throw err;
    }
  }

  /**
   * Everyone registers as a user; the configured admin's name is kept for the boot-time seeding.
   * A taken user name is refused (names are public on profiles anyway). A taken email is not:
   * the answer is the same as for a fresh registration and the address's owner gets a mail
   * instead, so the form tells nobody which addresses have accounts, by its words or its time:
   * both take the same steps before the answer (hash, then an insert that the unique email index
   * accepts or refuses); the event, the mails and the verification link's token come after it.
   */
  async register(dto: RegisterDto): Promise<void> {
    if (this.isConfiguredAdmin(dto.username)) throw new ConflictException(Messages.accountExists);
    if (await this.accounts.findByUsername(dto.username)) throw new ConflictException(Messages.accountExists);
    await this.security.assertStrong(dto.password, [dto.username, dto.email]);
    try {
      const account = await this.create(dto, 'user');
      // A crash before the event is recorded loses it now as before (insert and outbox are two writes).
      this.mail.inBackground('registration event', () => this.announceRegistered(account));
      this.security.sendVerification(account);
    } catch (err) {
      // The name was taken meanwhile (409 stands), or else the email is (answered like a success).
      if (!(err instanceof ConflictException) || (await this.accounts.findByUsername(dto.username)))
        throw err;
      this.security.warnOwnerOfAddress(dto.email.toLowerCase());
    }
  }

  async login(dto: LoginDto, ctx: RequestContext): Promise<AccountRecord> {
    // Per account name, before the password is checked: a refused attempt tests nothing.
    await this.throttle.begin(dto.username);
    let failed = true;
    try {
      const account = await this.checkLogin(dto, ctx);
      failed = false;
      return account;
    } catch (err) {
      // A suspended account's right password is not a failed guess.
      if (err instanceof ForbiddenException) failed = false;
      throw err;
    } finally {
      await this.throttle.end(dto.username, failed);
    }
  }

  private async checkLogin(dto: LoginDto, ctx: RequestContext): Promise<AccountRecord> {
    const account = await this.accounts.findByUsername(dto.username);
    if (!account) {
      await this.hasher.verify(dto.password, await this.getDummyHash());
      await this.events.publish(DomainEvents.accountLoginFailed, {
        username: dto.username,
        ip: ctx.ip,
        reason: 'unknown_user',
      });
      throw new UnauthorizedException(Messages.wrongCredentials);
    }
    if (!(await this.hasher.verify(dto.password, account.passwordHash))) {
      await this.events.publish(DomainEvents.accountLoginFailed, {
        username: account.username,
        ip: ctx.ip,
        reason: 'bad_password',
      });
      throw new UnauthorizedException(Messages.wrongCredentials);
    }
    // Told only to whoever knows the password (a name alone reveals nothing), before any session.
    if (account.suspended) throw new ForbiddenException(AccountMessages.suspended);
    if (this.hasher.needsRehash(account.passwordHash)) {
      // The configured cost changed since this hash was made: store one at today's parameters.
      const rehashed = await this.hasher.hash(dto.password);
      await this.accounts.replacePasswordHash(account.id, account.passwordHash, rehashed);
    }
    await this.accounts.touchLogin(account.id);
    await this.events.publish(DomainEvents.accountLoggedIn, {
      userId: account.id,
      username: account.username,
      ip: ctx.ip,
    });
    return account;
  }

  async logout(user: AuthUser): Promise<void> {
    await this.events.publish(DomainEvents.accountLoggedOut, { userId: user.id, username: user.username });
  }

  async session(user: AuthUser): Promise<SessionContent> {
    const account = await this.requireAccount(user.id);
    return {
      username: account.username,
      verified: account.verified,
      early: account.early,
      role: account.role,
      balance: account.balance,
    };
  }

  private async create(
    dto: RegisterDto,
    role: Role,
    mark: { seededAdmin?: boolean; emailVerified?: boolean } = {},
  ): Promise<AccountRecord> {
    const passwordHash = await this.hasher.hash(dto.password);
    let account: AccountRecord;
    try {
      account = await this.accounts.create({
        username: dto.username,
        email: dto.email.toLowerCase(),
        passwordHash,
        role,
        adultConfirmedAt: new Date(),
        ...mark,
      });
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new ConflictException(Messages.accountExists);
      throw err;
    }
    return account;
  }

  private async announceRegistered(account: AccountRecord): Promise<void> {
    await this.events.publish(DomainEvents.accountRegistered, {
      userId: account.id,
      username: account.username,
      role: account.role,
    });
  }

  private async requireAccount(id: string): Promise<AccountRecord> {
    const account = await this.accounts.findById(id);
    if (!account) throw new UnauthorizedException(Messages.needLogin);
    return account;
  }

  private isConfiguredAdmin(username: string): boolean {
    const admin = this.config.ADMIN_USERNAME;
    return !!admin && admin.toLowerCase() === username.toLowerCase();
  }

  private getDummyHash(): Promise<string> {
    this.dummyHash ??= this.hasher.hash('not-a-real-password');
    return this.dummyHash;
  }
}

export function toLoginContent(account: AccountRecord): LoginContent {
  return { username: account.username, verified: account.verified, role: account.role };
}
