/** Account basics: email verification, password change and reset, sessions, export and deletion. */

/** How long the one-time links in mails work. */
export const ACCOUNT_TOKEN_TTL_MINUTES = {
  verifyEmail: 24 * 60,
  resetPassword: 30,
} as const;

/**
 * Mails one address may receive per hour. Forgot-password and "register with a taken email" mail
 * an address on a stranger's request; the per-client rate budget alone would let someone with many
 * client addresses fill an owner's inbox. Beyond this, mails are dropped (logged), and the answers
 * stay the same, so the cap tells nobody anything.
 */
export const MAILS_PER_ADDRESS_PER_HOUR = 10;

/**
 * The weakest new password accepted: a zxcvbn score (0 too guessable … 4 very unguessable).
 * 2 means "somewhat guessable": more than 10^6 guesses for an online attacker.
 */
export const PASSWORD_MIN_SCORE = 2;

export const AccountMessages = {
  verifyEmailFirst: 'Please verify your email address before buying coins: use the link we mailed you.',
  verificationSent: 'If the address still needs verifying, a new link is on its way.',
  emailVerified: 'Your email address is verified.',
  badLink: 'This link is invalid or has expired. Ask for a new one.',
  resetMailSent: 'If an account uses that address, a link to reset its password is on its way.',
  passwordChanged: 'Password changed. Your other sessions have been logged out.',
  passwordReset: 'Password reset. Log in with your new password.',
  wrongPassword: 'Your current password is not right',
  samePassword: 'The new password must differ from the current one',
  weakPassword: 'This password is too easy to guess: make it longer, or use a few unrelated words',
  accountDeleted: 'Your account and its content have been deleted.',
  sessionEnded: 'Session logged out.',
  sessionsEnded: 'All other sessions have been logged out.',
  sessionNotFound: 'No such session',
  suspended:
    'This account is suspended: content it stored was removed after repeated valid reports. ' +
    'We mailed you the statement of reasons. To appeal the suspension, reply to that mail; a member of ' +
    'our staff reviews it. A founded appeal against one of the removals lifts the suspension.',
  notSuspended: 'This account is not suspended',
} as const;

/** Why an account is suspended (the reason code kept on the account record). */
export type SuspensionReason = 'repeated_removals';

/** An account's suspension as staff see it (UserSummary). */
export interface SuspensionView {
  at: string;
  reason: SuspensionReason;
  /** The report whose removal made the count. */
  reportId?: string;
  /** Confirmed removals counted when it was imposed. */
  removals?: number;
}

/** One login session of the caller, as the Account page lists it. */
export interface SessionView {
  /** A handle for ending this session (not the session id itself, which is a secret). */
  id: string;
  /** Browser and system from the user agent, e.g. "Chrome 120 on Linux". */
  device: string;
  signedInAt: string;
  lastUsedAt: string;
  current: boolean;
}

export interface AccountOverview {
  username: string;
  email: string;
  emailVerified: boolean;
  createdAt?: string;
}
