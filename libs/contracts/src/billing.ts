/** Credits ledger and payments: shapes shared by the API and the screens. */

export const LEDGER_KINDS = [
  'purchase',
  'reservation',
  'capture',
  'refund',
  'reimbursement',
  'grant',
  'adjustment',
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
  credited: (coins: number) => `${coins} coins added to your balance.`,
  patreonLinked: 'Patreon Linked!',
  patreonFailed: 'Something went wrong...',
} as const;
