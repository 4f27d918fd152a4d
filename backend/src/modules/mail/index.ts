/**
 * The mail module's face: sending a mail (MailService, SMTP or the log) and the mails' texts.
 *
 * At the bottom of the tree: it imports no other module; accounts, account-data and health use it.
 */
export type { MailContent } from './mail-templates';
export { MailTemplates } from './mail-templates';
export { MailModule } from './mail.module';
export { MailService } from './mail.service';
