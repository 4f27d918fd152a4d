import { REPORT_DEADLINE_HOURS } from '@studio/contracts';
import type { MailContent } from '../mail';

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** A time in a mail, in words a person reads ("7 December 2026 at 05:40 UTC"): a mail has no time zone of its reader. */
const MAIL_TIME = new Intl.DateTimeFormat('en-GB', {
  dateStyle: 'long',
  timeStyle: 'short',
  timeZone: 'UTC',
});
export function mailDate(at: Date): string {
  return `${MAIL_TIME.format(at)} UTC`;
}

function mail(subject: string, paragraphs: string[]): MailContent {
  const text = [...paragraphs, '— AI Studio'].join('\n\n');
  const html =
    `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;max-width:560px">` +
    paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join('') +
    `<p style="color:#666">— AI Studio</p></body></html>`;
  return { subject, text, html };
}

/** The mails of the notice-and-removal process (docs/takedown.md). */
export const TakedownMails = {
  receipt: (report: { id: string; receivedAt: Date; deadline: Date }): MailContent =>
    mail(`We received your report ${report.id}`, [
      `We received your report on ${mailDate(report.receivedAt)} (reference ${report.id}).`,
      `We will decide it, and remove the content and every copy we find if the report is valid, within ${REPORT_DEADLINE_HOURS} hours: by ${mailDate(report.deadline)}.`,
      'We will email you the decision. If you did not send this report, you can ignore this mail.',
    ]),
  decision: (
    report: { id: string },
    action: 'remove' | 'reject',
    reason: string,
    removed: number,
  ): MailContent =>
    mail(`Decision on your report ${report.id}`, [
      action === 'remove'
        ? `We removed the content you reported and ${Math.max(0, removed - 1)} other cop${removed - 1 === 1 ? 'y' : 'ies'} we found (${removed} file(s) in all). The same picture is now blocked from being made or stored again.`
        : 'We reviewed your report and did not remove the content.',
      `Reason: ${reason}`,
      'Copies were looked for automatically (by the watermark and by image hashes); the decision was taken by a person.',
      'You can contest this decision by replying to this mail, and you keep every right to go to a court or an out-of-court dispute settlement body.',
    ]),
  /** One per owner and decision (DSA Art. 17), listing every copy the decision removed. */
  statementOfReasons: (
    decision: { reportId: string; at: Date },
    items: { itemId: string; title?: string; appealUrl: string }[],
    reason: string,
  ): MailContent =>
    mail('Statement of reasons: content removed from your account', [
      items.length === 1
        ? `On ${mailDate(decision.at)} we removed "${items[0].title ?? 'an item'}" (item ${items[0].itemId}) from your account and deleted its file.`
        : `On ${mailDate(decision.at)} we removed ${items.length} items from your account and deleted their files:`,
      ...(items.length === 1
        ? []
        : items.map((item) => `- "${item.title ?? 'an item'}" (item ${item.itemId})`)),
      `Why: ${reason}`,
      `Facts: a notice (reference ${decision.reportId}) reported the picture; it was reviewed by a member of our staff, and ${items.length === 1 ? 'the item was' : 'each item was'} found to be the reported picture or a copy of it by its watermark or image hashes. The decision was taken by a person, not an automated system.`,
      'Ground: content that shows a person in an intimate way without their consent, or that is otherwise illegal, is not allowed on this service (our terms, and the law such as the US TAKE IT DOWN Act).',
      items.length === 1
        ? `You can appeal once, free of charge, on ${items[0].appealUrl} — a different member of staff reviews it. You may also use an out-of-court dispute settlement body or a court.`
        : `You can appeal each removal once, free of charge — a different member of staff reviews it: ${items.map((item) => `item ${item.itemId}: ${item.appealUrl}`).join('; ')}. You may also use an out-of-court dispute settlement body or a court.`,
    ]),
  appealDecision: (
    appeal: { reportId: string; itemId: string },
    outcome: 'upheld' | 'reversed',
    reason: string,
    restored: boolean,
  ): MailContent =>
    mail(`Decision on your appeal (item ${appeal.itemId})`, [
      outcome === 'reversed'
        ? restored
          ? 'We reviewed your appeal and reversed our decision: the item is back in your account as it was.'
          : 'We reviewed your appeal and reversed our decision. The file itself could not be restored (it was no longer kept), but the removal no longer counts against your account.'
        : 'We reviewed your appeal and upheld our decision: the removal stands.',
      `Reason: ${reason}`,
      `The appeal was decided by a member of our staff other than the one who decided the removal (notice reference ${appeal.reportId}).`,
      'You may still use an out-of-court dispute settlement body or a court.',
    ]),
  suspension: (
    suspension: { reportId: string; removals: number; at: Date },
    reason: string,
    after: number,
  ): MailContent =>
    mail('Statement of reasons: your account is suspended', [
      `On ${mailDate(suspension.at)} we suspended your account: you cannot log in, your sessions were ended and your API keys no longer work. Your content is kept as it is.`,
      `Why: content stored in your account has now been removed after ${suspension.removals} valid reports (our rule: an account is suspended after ${after} removals that stand). The latest removal (notice reference ${suspension.reportId}) was decided for this reason: ${reason}`,
      'Facts: each removal was decided by a member of our staff after a notice; the suspension followed from their number automatically. We mailed you a statement of reasons for each removal.',
      'Ground: repeatedly storing content that shows a person in an intimate way without their consent, or that is otherwise illegal, is not allowed on this service (our terms, and the law such as the US TAKE IT DOWN Act).',
      'How to appeal: reply to this mail, free of charge; a member of our staff reviews it. An appeal you already filed against one of the removals is still decided, and if it is founded and brings the count below the rule, the suspension is lifted by itself. You may also use an out-of-court dispute settlement body or a court.',
    ]),
  suspensionLifted: (appeal: { reportId: string }): MailContent =>
    mail('Your account is no longer suspended', [
      `An appeal was founded and the removal it concerned was reversed (notice reference ${appeal.reportId}), so your account no longer meets our rule for suspension. You can log in again.`,
    ]),
};
