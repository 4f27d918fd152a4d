/**
 * The public notice-and-removal channel (TAKE IT DOWN Act; EU DSA Art. 16, 17, 20): what a report
 * carries, its clock, and what staff and the people involved see. docs/takedown.md has the process.
 */

/** A valid request is decided, and every known copy removed, within this time (the Act's 48 hours). */
export const REPORT_DEADLINE_HOURS = 48;

export const REPORT_LIMITS = {
  nameChars: 200,
  emailChars: 254,
  urlChars: 2048,
  /** The explanation of why the content is illegal / shows the person without consent (DSA Art. 16(2)(a)). */
  explanationChars: 5000,
  signatureChars: 200,
  reasonChars: 2000,
  /** An owner may appeal a removal for this long after being told (DSA Art. 20(1): at least six months). */
  appealDays: 183,
  /** Matches shown and removed for one report (copies of one picture across accounts). */
  maxMatches: 200,
  /**
   * Receipts mailed to one mailbox over a rolling 24 hours, whoever sends the reports (the form
   * takes any address): reports past it are received and queued as usual, without a mail.
   */
  receiptsPerAddressPerDay: 3,
} as const;

/**
 * What the report is about: the Act's intimate images; child sexual abuse material (for which the
 * DSA, Art. 16(2)(c), lets the notifier stay anonymous: name, email and signature are optional);
 * other illegal content under the DSA.
 */
export const REPORT_CATEGORIES = ['intimate_without_consent', 'child_sexual_abuse', 'other_illegal'] as const;

/** Categories whose notices may come without name, email and signature (DSA Art. 16(2)(c)). */
export const ANONYMOUS_REPORT_CATEGORIES: readonly ReportCategory[] = ['child_sexual_abuse'];
export type ReportCategory = (typeof REPORT_CATEGORIES)[number];
/** Each category in words, as staff read it in the reports queue. */
export const REPORT_CATEGORY_LABELS: Record<ReportCategory, string> = {
  intimate_without_consent: 'Intimate image without consent',
  child_sexual_abuse: 'Child sexual abuse material',
  other_illegal: 'Other illegal content',
};

/** Who files: the person shown, or someone authorised to act for them. */
export const REPORTER_ROLES = ['depicted', 'representative', 'other'] as const;
export type ReporterRole = (typeof REPORTER_ROLES)[number];

export type ReportStatus = 'open' | 'removed' | 'rejected';

/** How a stored output was found to be a copy of the reported file. */
export type MatchMethod = 'watermark' | 'exact' | 'perceptual';

export interface ReportReceipt {
  id: string;
  receivedAt: string;
  /** The decision is due by then (48 hours after receipt). */
  deadline: string;
  /**
   * Whether a receipt was mailed: false for an anonymous notice, and when the address already had
   * REPORT_LIMITS.receiptsPerAddressPerDay receipts in the last 24 hours.
   */
  receiptMailed: boolean;
}

export interface ReportMatchView {
  itemId: string;
  ownerId: string;
  ownerName: string;
  method: MatchMethod;
  /** Perceptual matches: differing bits of 64 (0 for watermark and exact matches). */
  distance: number;
  removed: boolean;
  /** An output item, or a picture the owner gave a tool (stored with the job, served back to them). */
  kind: 'item' | 'input';
  /** An exact copy (the same bytes) of this other match. */
  copyOf?: string;
  /** The owner's appeal against the removal (DSA Art. 20), for staff to review, and its decision. */
  appeal?: {
    text: string;
    at: string;
    decision?: { outcome: AppealOutcome; reason: string; by: string; at: string };
  };
  /** Whether the removed file is still kept (quarantined, never served) so a reversal can restore it. */
  restorable: boolean;
}

/** An appeal's outcome (DSA Art. 20(4)): the removal stands, or it was wrong and is undone. */
export type AppealOutcome = 'upheld' | 'reversed';

export interface AppealDecisionInput {
  outcome: AppealOutcome;
  reason: string;
}

/**
 * The counts of a transparency report (DSA Art. 15 and 24) over a period, computed from the
 * records only (statuses and timestamps; never from what a user wrote).
 */
export interface TransparencyReport {
  from: string;
  to: string;
  /** Notices received in the period. */
  received: number;
  /** Notices decided in the period, by outcome. */
  removed: number;
  rejected: number;
  /** Items (outputs and stored inputs) taken down by the removals decided in the period. */
  itemsRemoved: number;
  /** Appeals filed in the period, and the ones decided in it by outcome. */
  appealed: number;
  appealsUpheld: number;
  appealsReversed: number;
  /** Time from receipt to decision of the notices decided in the period (hours; null when none). */
  medianHoursToDecision: number | null;
  p95HoursToDecision: number | null;
  /** Share (0..1) of the notices decided in the period that were decided within 48 hours (null when none). */
  decidedWithin48h: number | null;
  /** Notices received in the period and still open at the end of it. */
  openAtEnd: number;
}

/** The longest period a transparency report covers in one request. */
export const TRANSPARENCY_MAX_DAYS = 731;

/** A report as staff see it in the reports queue. */
export interface ReportView {
  id: string;
  status: ReportStatus;
  category: ReportCategory;
  reporterRole: ReporterRole;
  /** Empty for an anonymous child sexual abuse notice (DSA Art. 16(2)(c)). */
  reporter: { name: string; email: string };
  url?: string;
  explanation: string;
  signature: string;
  hasFile: boolean;
  receivedAt: string;
  deadline: string;
  /** Milliseconds left on the 48-hour clock (negative: overdue). */
  msLeft: number;
  overdue: boolean;
  matches: ReportMatchView[];
  decision?: { action: 'remove' | 'reject'; reason: string; by: string; at: string };
}

export interface ReportDecisionInput {
  action: 'remove' | 'reject';
  reason: string;
}

export const ReportMessages = {
  received:
    'Your report was received. We decide it within 48 hours and email you the outcome; the receipt is on its way.',
  receiptNotMailed:
    'We received your report. We have already sent several receipts to this address today, so no new mail was sent: keep this reference.',
  receiptAnonymous: 'You gave no email address, so no receipt was mailed: keep this reference.',
  fileOrUrlRequired: 'Attach a copy of the image or video, or give the address where it appears',
  badUrl: 'The address must be an http or https link',
  nameRequired: 'Give your name',
  emailRequired: 'Give an email address where we can reach you',
  explanationRequired: 'Explain why the content shows you without consent, or why it is illegal',
  goodFaithRequired: 'Confirm the statement of good faith',
  signatureRequired: 'Type your full name as your signature',
  categoryRequired: 'Choose what the report is about',
  roleRequired: 'Say whether you are the person shown or act for them',
  tooLong: 'A field is too long',
  badForm: 'The report could not be read: send it as a form',
  notFound: 'Report not found',
  alreadyDecided: 'This report was already decided',
  alreadyAppealed: 'You already appealed this removal',
  appealTooLate: 'The time to appeal this removal (six months) has passed',
  reasonRequired: 'Give the reason for the decision',
  noAppeal: 'No appeal against the removal of this item',
  appealDecided: 'This appeal was already decided',
  appealSameStaff:
    'Someone other than the person who decided the removal must decide the appeal (we tell owners so)',
  badPeriod: 'Give the period as two dates, from before to, at most two years apart',
  blockedInput: 'This picture was removed after a valid report and cannot be used. No coins were charged.',
  blockedOutput:
    'This result matches content removed after a valid report and cannot be made again. No coins were charged.',
} as const;
