import type { CardFunding } from '@studio/contracts';

/** A card check as the payment provider reports it once the card was entered. */
export interface InspectedCardCheck {
  /** The account the check was started for (from the provider's own record of the session). */
  userId: string;
  /** The card was entered and the provider confirmed it with the issuer (a SetupIntent that succeeded). */
  confirmed: boolean;
  funding: CardFunding;
  /** The provider's reference kept with the result (the SetupIntent's id). */
  reference: string;
  /** The saved payment method, to be removed at once: the studio keeps no card. */
  paymentMethodId?: string;
}

export interface CardCheckInput {
  userId: string;
  successUrl: string;
  cancelUrl: string;
}

/**
 * The credit card age check: the provider takes the card on its own page without charging it
 * (Stripe Checkout in setup mode), and tells the studio whether the issuer accepted it and what
 * kind of card it is. Stripe is the adapter; npm start's local test mode has its own.
 */
export abstract class CardCheckPort {
  abstract readonly configured: boolean;
  /** A page where the user enters the card; `base` is this site's address (for the test page). */
  abstract start(input: CardCheckInput, base: string): Promise<{ id: string; url: string }>;
  /** What the provider knows of the check; null when it does not know the session. */
  abstract inspect(sessionId: string): Promise<InspectedCardCheck | null>;
  /** Removes the card from the provider's records (it is not kept after the check). */
  abstract forget(paymentMethodId: string): Promise<void>;
}
