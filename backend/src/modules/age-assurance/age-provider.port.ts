/** Where a check at the external provider stands, as the provider's own API reports it now. */
export type ProviderCheckState = 'pending' | 'approved' | 'declined';

export interface ProviderCheck {
  /** The provider's id of the check (Persona's inquiry id): the reference kept with the result. */
  reference: string;
  /** The account the check was started for, as the provider recorded it at creation. */
  userId: string;
  state: ProviderCheckState;
  /** The provider's own word for it (approved, declined, failed, expired, pending ...), for the log. */
  providerStatus: string;
}

/** A webhook whose signature and time passed: which check it is about. */
export interface ProviderEvent {
  eventId: string;
  name: string;
  reference: string;
}

/** A webhook refused before anything is read from it. */
export class WebhookRejected extends Error {
  constructor(readonly why: 'bad_signature' | 'stale') {
    super(why);
  }
}

/**
 * An external age-assurance provider's hosted check (photo ID or facial age estimation on the
 * provider's pages): the studio starts a check for an account, sends the user to the provider, and
 * learns the result from the provider's signed webhook, then reads the check back from the
 * provider's API itself (the API's current state decides, so replays and out-of-order events
 * cannot). Persona is the adapter; nothing of the person (ID image, date of birth) comes back.
 */
export abstract class AgeProviderPort {
  abstract readonly name: string;
  abstract readonly configured: boolean;
  /** Creates the check for the account and gives the address of the provider's flow. */
  abstract start(input: { userId: string; returnUrl: string }): Promise<{ reference: string; url: string }>;
  /** The check as the provider knows it now; null when it does not know the reference. */
  abstract retrieve(reference: string): Promise<ProviderCheck | null>;
  /** Verifies a webhook on its raw body exactly as the provider documents it; throws WebhookRejected. */
  abstract verifyWebhook(rawBody: Buffer, signatureHeader: string | undefined, now: Date): ProviderEvent;
}
