import { BadRequestException, Injectable } from '@nestjs/common';
import { InjectModel } from '@nestjs/mongoose';
import { Model } from 'mongoose';
import { createHash, randomBytes } from 'node:crypto';
import { DomainEvents, PaymentMessages } from '@studio/contracts';
import { AccountsRepository, isDuplicateKeyError } from '../accounts';
import { assertActingAs, type AuthUser } from '../auth';
import { DomainEventBus } from '../events';
import { PatreonRedemption, PatreonSecret } from './patreon-secret.schema';

const hashOf = (secret: string) => createHash('sha256').update(secret).digest('hex');

/** Patreon link: admins issue one-time secrets; a supporter redeems one to become verified. */
@Injectable()
export class PatreonService {
  constructor(
    @InjectModel(PatreonSecret.name) private readonly secrets: Model<PatreonSecret>,
    @InjectModel(PatreonRedemption.name) private readonly redemptions: Model<PatreonRedemption>,
    private readonly accounts: AccountsRepository,
    private readonly events: DomainEventBus,
  ) {}

  async issue(admin: AuthUser, count = 1): Promise<string[]> {
    const issued: string[] = [];
    for (let i = 0; i < count; i += 1) {
      const secret = randomBytes(18).toString('base64url');
      await this.secrets.create({ _id: hashOf(secret), issuedBy: admin.username });
      issued.push(secret);
    }
    return issued;
  }

  /** Claims the secret once (a used or unknown one changes nothing). */
  async redeem(user: AuthUser, secret: string, claimedUsername?: string): Promise<void> {
    assertActingAs(user, claimedUsername);
    const hash = hashOf(secret);
    if (!(await this.secrets.exists({ _id: hash })))
      throw new BadRequestException(PaymentMessages.patreonFailed);
    try {
      await this.redemptions.create({ _id: hash, usedBy: user.username });
    } catch (err) {
      if (isDuplicateKeyError(err)) throw new BadRequestException(PaymentMessages.patreonFailed);
      throw err;
    }
    await this.accounts.setVerified(user.id);
    await this.events.publish(DomainEvents.accountVerified, {
      userId: user.id,
      username: user.username,
      via: 'patreon',
    });
  }
}
