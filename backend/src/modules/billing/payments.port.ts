/** What billing needs from a card payment provider; Stripe is the adapter. */
export interface CheckoutInput {
  userId: string;
  username: string;
  packs: number;
  customerId?: string;
  successUrl: string;
  cancelUrl: string;
}

export interface CompletedCheckout {
  sessionId: string;
  userId: string;
  packs: number;
  customerId?: string;
  paid: boolean;
}

export type VerifiedPaymentEvent =
  | { type: 'checkout.completed'; eventId: string; checkout: CompletedCheckout }
  | { type: 'ignored'; eventId: string; stripeType: string };

export abstract class PaymentsPort {
  abstract readonly configured: boolean;
  abstract createCheckout(input: CheckoutInput): Promise<{ id: string; url: string }>;
  abstract createPortal(customerId: string, returnUrl: string): Promise<string>;
  /** The customer of a checkout session, when that session belongs to the given user. */
  abstract customerOfCheckout(sessionId: string, userId: string): Promise<string | null>;
  /** Deletes the customer at the provider (account deletion): its saved cards and details go with it. */
  abstract deleteCustomer(customerId: string): Promise<void>;
  /** Verifies the signature over the raw body; throws when it does not match. */
  abstract verifyWebhook(rawBody: Buffer, signature: string): VerifiedPaymentEvent;
}
