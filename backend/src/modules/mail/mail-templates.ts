import { ACCOUNT_TOKEN_TTL_MINUTES } from '@studio/contracts';

/** A mail ready to send: the same words as plain text and as HTML. */
export interface MailContent {
  subject: string;
  text: string;
  html: string;
}

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/**
 * One layout for every account mail: paragraphs, and at most one button with its link also
 * written out (mail clients that block buttons still show the address).
 */
function compose(
  subject: string,
  paragraphs: string[],
  action?: { label: string; url: string },
): MailContent {
  const text = [...paragraphs, ...(action ? [`${action.label}: ${action.url}`] : []), '— AI Studio'].join(
    '\n\n',
  );
  const button = action
    ? `<p><a href="${escapeHtml(action.url)}" style="display:inline-block;padding:10px 18px;background:#1677ff;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(action.label)}</a></p>` +
      `<p style="color:#666;font-size:13px">Or open this address: ${escapeHtml(action.url)}</p>`
    : '';
  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:560px">` +
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    button +
    `<p style="color:#666">— AI Studio</p></body></html>`;
  return { subject, text, html };
}

export const MailTemplates = {
  verifyEmail: (username: string, url: string) =>
    compose(
      'Verify your email address',
      [
        `Hello ${username},`,
        'Welcome to AI Studio. Please confirm that this address is yours; you can buy coins once it is verified.',
        `The link works for ${ACCOUNT_TOKEN_TTL_MINUTES.verifyEmail / 60} hours and only once.`,
      ],
      { label: 'Verify my email', url },
    ),

  /** Someone tried to register with an address that already has an account: its owner hears of it. */
  alreadyRegistered: (username: string, resetUrl: string) =>
    compose(
      'Someone tried to register with your email address',
      [
        `Hello ${username},`,
        'Somebody just tried to create a new AI Studio account with this email address, which already belongs to your account. If it was you, log in with your user name instead; if you forgot your password, reset it below.',
        'If it was not you, you can ignore this mail: nothing was changed.',
      ],
      { label: 'Reset my password', url: resetUrl },
    ),

  resetPassword: (username: string, url: string) =>
    compose(
      'Reset your password',
      [
        `Hello ${username},`,
        `Someone (hopefully you) asked to reset the password of your AI Studio account. The link works for ${ACCOUNT_TOKEN_TTL_MINUTES.resetPassword} minutes and only once; all your sessions are logged out when it is used.`,
        'If you did not ask for this, ignore this mail: your password stays as it is.',
      ],
      { label: 'Choose a new password', url },
    ),

  passwordChanged: (username: string) =>
    compose('Your password was changed', [
      `Hello ${username},`,
      'The password of your AI Studio account was just changed, and your other sessions were logged out.',
      'If this was not you, reset your password at once with "Forgot password?" on the login page.',
    ]),

  accountDeleted: (username: string) =>
    compose('Your account was deleted', [
      `Hello ${username},`,
      'Your AI Studio account and everything in its folders have been deleted, as you asked.',
    ]),

  /** A webhook endpoint failed for a whole retry window and was switched off. */
  webhookSwitchedOff: (username: string, url: string, window: string, accountUrl: string) =>
    compose(
      'A webhook endpoint was switched off',
      [
        `Hello ${username},`,
        `Every delivery to your webhook endpoint ${url} has failed for ${window}, so it was switched off and its waiting deliveries were given up.`,
        'Fix the receiver, then switch the endpoint on again on your account page; you can send the given-up deliveries again from the list of recent deliveries there.',
      ],
      { label: 'Open my account', url: accountUrl },
    ),
};
