/** The studio cannot serve for a moment (a part down, or no answer at all). */
const STUDIO_UNAVAILABLE = 'The studio is briefly unavailable: try again in a minute.';

/** Texts shown to people, shared so the server's errors and the screens say the same thing. */
export const Messages = {
  missingFields: 'Missing fields!',
  accountExists: 'Account already exists',
  registered: 'Registered!',
  maxAccounts: 'Max accounts reached!',
  serverError: 'Server error',
  /** A part the request needs (Redis, the database) is down: answered 503 with Retry-After. */
  briefOutage: `${STUDIO_UNAVAILABLE} Nothing was charged.`,
  /**
   * The same, for a submission whose credits may have been reserved before the part went down and
   * could not be given back yet: they are, by themselves (LedgerService.refundSoon, then recovery).
   */
  briefOutageCreditsReturning: `${STUDIO_UNAVAILABLE} If coins were taken for it, they come back by themselves within 20 minutes.`,
  /** The browser's words when nothing answered: whether a write was done is unknown there. */
  studioNotAnswering: STUDIO_UNAVAILABLE,
  loggedIn: 'Logged in!',
  loggedOut: 'Logged out.',
  wrongCredentials: 'Wrong username or password',
  loginDelayed: (seconds: number) => `Too many failed logins for this account: try again in ${seconds} s`,
  mustBeAdult: 'You must confirm that you are 18 or older',
  usernameLength: 'Username must be 3 to 32 characters long',
  usernameCharacters:
    'Username may use letters, digits, dot, dash and underscore, starting with a letter or digit',
  usernameReserved: 'Usernames starting with "deleted-" are reserved for deleted accounts',
  usernameReservedName: 'This name is reserved for the studio itself: choose another',
  passwordLength: 'Password must be at least 8 characters long',
  invalidEmail: 'Email address is not valid',
  needLogin: 'You need to be logged in',
  notYourAccount: 'You can only act as yourself',
  forbidden: 'You are not allowed to do that',
  crossSiteRequest: "This request did not come from the studio's own pages",
  jsonBodyRequired: 'Send the request body as JSON (application/json)',
  notFound: 'Not found',
  tooManyRequests: 'Too many attempts, please wait a minute and try again',
  payloadTooLarge: 'Request is too large',
  malformedJson: 'Request body is not valid JSON',
  notEnoughCredits: 'Not enough credits!',
  selectFolder: 'You need to select a folder',
  folderNameRequired: 'Folder name required',
  /** A name or title with control, text-direction or invisible characters (see nameProblem). */
  unsafeCharacters: 'Names and titles may not contain control, text-direction or invisible characters',
  /** A prompt or tag with a control character (see hasControlCharacter). */
  promptControlCharacters:
    'Prompts and tags may not contain control characters (such as line breaks or U+0007)',
} as const;

/** 'amount must be a whole number from 1 to 500': the one message for a refused number field. */
export function wholeNumberMessage(field: string, range: { min: number; max: number }): string {
  return `${field} must be a whole number from ${range.min} to ${range.max}`;
}

const countFormat = new Intl.NumberFormat('en-US', { maximumFractionDigits: 2 });

/** 5000000 → '5,000,000': the one way a count, balance or amount of credits is written for people. */
export function formatCount(count: number): string {
  return countFormat.format(count);
}

/** '1 credit', '2,000 credits': a count with its noun in the right number. */
export function plural(count: number, noun: string): string {
  return `${formatCount(count)} ${noun}${count === 1 ? '' : 's'}`;
}
