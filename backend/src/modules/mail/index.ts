/**
 * The mail module's face: sending a mail (MailService, SMTP or the log), the mails' texts, and
 * which mailbox an address reaches (mailboxOf, for limits per mailbox: billing, takedown).
 *
 * At the bottom of the tree: it imports no other module; accounts, account-data, billing, health
 * and takedown use it.
 */
export type { MailContent } from './mail-templates';
export { MailTemplates } from './mail-templates';
export { MailModule } from './mail.module';
export { MailService } from './mail.service';
export { FASTMAIL_DOMAINS, mailboxOf } from './mailbox';
