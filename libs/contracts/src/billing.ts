import { formatCount } from './messages';
import { COINS_PER_PACK, PACK_PRICE_USD } from './pricing';

/** Credits ledger and payments: shapes shared by the API and the screens. */

export const LEDGER_KINDS = [
  'purchase',
  'reservation',
  'capture',
  'refund',
  'reimbursement',
  'grant',
  'adjustment',
  /** The free coins granted once when an account's email is verified (WELCOME_ALLOWANCE_COINS). */
  'allowance',
] as const;
export type LedgerKind = (typeof LEDGER_KINDS)[number];

/** One line of a user's credit history. */
export interface CreditHistoryEntry {
  _id: string;
  kind: LedgerKind;
  /** Signed change of the balance (0 for a capture, which confirms an earlier reservation). */
  amount: number;
  balanceAfter?: number;
  reason: string;
  createdAt: string;
  jobId?: string;
  tool?: string;
  by?: string;
}

/** GET /api/billing/status: what a newcomer can do with coins on this server. */
export interface BillingStatus {
  paymentsConfigured: boolean;
  /** Checkouts go to the site's own test page (STRIPE_TEST_CHECKOUT): no real payment. */
  testMode: boolean;
  /** Coins granted once when an account's email is verified (0: none). */
  welcomeAllowance: number;
}

/** Why the welcome allowance was not granted to a verified account (the server's decision). */
export const ALLOWANCE_REFUSALS = ['disposable', 'address_used', 'address_today'] as const;
export type AllowanceRefusal = (typeof ALLOWANCE_REFUSALS)[number];

/**
 * GET /api/billing/allowance: where the caller's welcome allowance stands. `pending` between the
 * verification and the worker's decision (a moment); `refused` with the decision's reason.
 */
export type AllowanceStatus =
  | { state: 'off' }
  /**
   * `expected`: what would refuse the coins if the address were verified now (seen from this
   * request's network, the address's earlier accounts, a throwaway domain), so a newcomer is not
   * promised coins the server already knows it will not give.
   */
  | { state: 'unverified'; coins: number; expected?: AllowanceRefusal }
  | { state: 'pending' | 'granted'; coins: number }
  | { state: 'refused'; coins: number; reason: AllowanceRefusal };

/** How to get the free coins, for a newcomer who has not verified the address yet. */
export const allowanceOffer = (coins: number) =>
  `Verify your email address to get ${formatCount(coins)} free coins`;

/** For a newcomer whose coins are already known not to come: verifying still opens the studio. */
export const ALLOWANCE_NOT_EXPECTED = 'Verify your email address to finish your account.';

/** Why no free coins came, and what to do instead: one text per refusal of the server. */
const BUY_INSTEAD = `To use the tools now, buy coins: ${formatCount(COINS_PER_PACK)} coins cost $${PACK_PRICE_USD}.`;

export const ALLOWANCE_REFUSAL_TEXTS: Record<AllowanceRefusal, { why: string; next: string }> = {
  address_today: {
    why: 'No free coins this time: another new account on your network (the same internet connection) received them today, and they are given to one new account per network a day.',
    next: BUY_INSTEAD,
  },
  address_used: {
    why: 'No free coins this time: this email address already received them with another account.',
    next: `Log in to the account that received them, or buy coins for this one: ${formatCount(COINS_PER_PACK)} coins cost $${PACK_PRICE_USD}.`,
  },
  disposable: {
    why: 'No free coins this time: they are not given to throwaway email addresses.',
    next: BUY_INSTEAD,
  },
};

/** GET /api/admin/allowances: free allowances granted, apart from purchases (UTC days). */
export interface AllowanceStats {
  coinsEach: number;
  today: { count: number; coins: number };
  week: { count: number; coins: number };
  month: { count: number; coins: number };
}

/** GET /api/stripe/test-checkout/:sessionId (local test payments only). */
export interface TestCheckoutDetails {
  sessionId: string;
  packs: number;
  coins: number;
  amountCents: number;
  testMode: true;
}

/**
 * What one delivery of a payment event did (POST /api/stripe/webhook, and the test page's Pay):
 * the coins this delivery credited, and why it credited none when it did not. A replay of a
 * credited checkout answers `credited: 0, alreadyCredited: true`.
 */
export interface PaymentEventOutcome {
  credited: number;
  alreadyCredited: boolean;
  /**
   * Why nothing was credited: not a checkout event, not paid yet, a session this server never
   * created, or its account is gone.
   */
  ignored?: 'not_checkout' | 'unpaid' | 'unknown_checkout' | 'no_account';
}

/** GET /api/checkout/:sessionId: the coins one of the caller's checkouts credited, null while pending. */
export interface CheckoutOutcome {
  sessionId: string;
  credited: number | null;
}

export interface Page<T> {
  items: T[];
  total: number;
  page: number;
  pageSize: number;
}

export const HISTORY_PAGE_SIZE = { default: 20, max: 100 } as const;

/** POST /api/createCheckoutSession */
export interface CheckoutRequest {
  coin_id: string;
  coin_amount: number;
}

/** POST /api/createPortalSession */
export interface PortalRequest {
  session_id?: string;
  username?: string;
  cart?: number;
}

/** Support: give one user credits back. */
export interface ReimburseRequest {
  username: string;
  amount: number;
  reason: string;
}

/** Support: give back what everyone spent on a tool in a time window. */
export interface BulkReimburseRequest {
  tool: string;
  from: string;
  to: string;
  reason: string;
}

export interface BulkReimbursePreview {
  tool: string;
  from: string;
  to: string;
  users: Array<{ username: string; amount: number }>;
  totalCredits: number;
}

/** Admin: grant (positive) or adjust (either sign) a balance. */
export interface GrantRequest {
  username: string;
  amount: number;
  reason: string;
}

export const CREDIT_AMOUNT_MAX = 1_000_000;
export const REASON_MAX = 300;

/**
 * How many credits staff may give per call and per UTC day (reimbursements, grants and upward
 * adjustments together; bulk tool reimbursements are bounded by the spends they give back).
 * Usage is counted per staff member and day in Redis, atomically with the check.
 */
export const STAFF_CREDIT_LIMITS = {
  support: { perCall: 500, perDay: 2_000 },
  admin: { perCall: 5_000, perDay: 20_000 },
} as const;

/**
 * Admin grants and upward adjustments above this wait for another admin's approval: judged on the
 * sum of what the admin gave directly over the last CREDIT_APPROVAL_WINDOW_HOURS, this one included.
 */
export const CREDIT_APPROVAL_THRESHOLD = 1_000;
export const CREDIT_APPROVAL_WINDOW_HOURS = 24;

/** A grant or adjustment above the threshold, waiting for (or decided by) a second admin. */
export interface CreditApproval {
  _id: string;
  kind: 'grant' | 'adjustment';
  username: string;
  amount: number;
  reason: string;
  state: 'pending' | 'approved' | 'rejected';
  requestedBy: string;
  decidedBy?: string;
  createdAt: string;
  decidedAt?: string;
}

/**
 * What POST /api/admin/credits/grant (or adjust) answers: the new balance when applied, or the
 * approval request it became.
 */
export type CreditChangeAnswer =
  | { username: string; amount: number; balance: number; pending?: undefined }
  | { username: string; amount: number; pending: CreditApproval };

export const CreditMessages = {
  selfCredit: 'You cannot change your own balance: ask another staff member',
  /** Staff and the accounts they promoted (or that promoted them) never credit each other. */
  promotedLink:
    'You cannot change the balance of an account you promoted or that promoted you: ask another staff member',
  selfCreditInBulk: 'Your own spends are in this window: ask another staff member to reimburse this window',
  perCall: (max: number) => `You may give at most ${max} credits at once`,
  perDay: (max: number, left: number) =>
    `That would pass your daily limit of ${max} credits (${left} left today, UTC)`,
  ownApproval: 'Another admin must approve this: not the one who asked, nor the one it credits',
  alreadyDecided: 'This request was already decided',
  approvalNotFound: 'Approval request not found',
  belowZero: 'That would take the balance below zero',
  requestIdReused: 'This request id was already used for another credit: send a new one',
} as const;

/** Analytics events of the purchase flow (spec section 7). */
export const AnalyticsEvents = {
  startPurchase: 'Start Purchase',
  completedPurchase: 'Completed Purchase',
  canceledPurchase: 'Canceled Purchase',
} as const;

/** Messages of the payment screens. */
export const PaymentMessages = {
  success: 'Payment successful!',
  cancelled: 'Payment cancelled!',
  pleaseWait: 'Please wait while we handle your payment.',
  notConfigured: 'Payments are not configured on this server.',
  checkoutNotFound: 'Checkout session not found',
  checkoutUnknown: 'We know of no such checkout',
  checkoutUnknownDetail:
    'This address names no checkout that you started here, so no payment was taken and no coins were added.',
  checking: 'Checking your payment…',
  confirming: 'Waiting for the payment to be confirmed',
  nothingCharged: 'Nothing was charged and no coins were added.',
  credited: (coins: number) => `${formatCount(coins)} coins added to your balance.`,
  patreonLinked: 'Patreon Linked!',
  patreonFailed: 'Something went wrong...',
} as const;
