import { BadRequestException } from '@nestjs/common';
import type { Request } from 'express';
import { receiveSingleFileForm, type SingleFileForm } from '../../common/single-file-form';
import {
  ANONYMOUS_REPORT_CATEGORIES,
  REPORT_CATEGORIES,
  REPORT_LIMITS,
  REPORTER_ROLES,
  ReportMessages,
  UPLOAD_LIMITS,
  VerifyMessages,
  type ReportCategory,
  type ReporterRole,
} from '@studio/contracts';
import type { NewReport } from './reports.service';

/** The form's text fields and the optional copy, streamed to `path` (refused past the video cap). */
export type ReceivedForm = SingleFileForm;

const FIELDS = ['category', 'reporterRole', 'name', 'email', 'url', 'explanation', 'signature', 'goodFaith'];

export function receiveReportForm(req: Request, path: string): Promise<ReceivedForm> {
  return receiveSingleFileForm(req, path, {
    fields: FIELDS,
    // UTF-8: up to 4 bytes a character
    fieldBytes: REPORT_LIMITS.explanationChars * 4,
    fileBytes: UPLOAD_LIMITS.videoBytes,
    messages: {
      badForm: ReportMessages.badForm,
      tooLarge: VerifyMessages.tooLarge,
      fieldTooLong: ReportMessages.tooLong,
    },
  });
}

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/** The form's fields as a report, or the first problem (400): what the Act and DSA Art. 16 ask for. */
export function parseReport(fields: Record<string, string>, hasFile: boolean): NewReport {
  const text = (name: string) => (fields[name] ?? '').trim();
  const tooLong = (value: string, max: number) => {
    if (value.length > max) throw new BadRequestException(ReportMessages.tooLong);
    return value;
  };
  const category = text('category');
  if (!(REPORT_CATEGORIES as readonly string[]).includes(category)) {
    throw new BadRequestException(ReportMessages.categoryRequired);
  }
  const reporterRole = text('reporterRole');
  if (!(REPORTER_ROLES as readonly string[]).includes(reporterRole)) {
    throw new BadRequestException(ReportMessages.roleRequired);
  }
  const url = tooLong(text('url'), REPORT_LIMITS.urlChars);
  if (url) {
    let parsed: URL | undefined;
    try {
      parsed = new URL(url);
    } catch {
      parsed = undefined;
    }
    if (!parsed || !['http:', 'https:'].includes(parsed.protocol)) {
      throw new BadRequestException(ReportMessages.badUrl);
    }
  }
  if (!hasFile && !url) throw new BadRequestException(ReportMessages.fileOrUrlRequired);
  // Child sexual abuse notices may be anonymous (DSA Art. 16(2)(c)); an address given is still checked.
  const anonymous = ANONYMOUS_REPORT_CATEGORIES.includes(category as ReportCategory);
  const name = tooLong(text('name'), REPORT_LIMITS.nameChars);
  if (!name && !anonymous) throw new BadRequestException(ReportMessages.nameRequired);
  const email = tooLong(text('email'), REPORT_LIMITS.emailChars).toLowerCase();
  if ((email || !anonymous) && !EMAIL.test(email))
    throw new BadRequestException(ReportMessages.emailRequired);
  const explanation = tooLong(text('explanation'), REPORT_LIMITS.explanationChars);
  if (!explanation) throw new BadRequestException(ReportMessages.explanationRequired);
  if (text('goodFaith') !== 'true') throw new BadRequestException(ReportMessages.goodFaithRequired);
  const signature = tooLong(text('signature'), REPORT_LIMITS.signatureChars);
  if (!signature && !anonymous) throw new BadRequestException(ReportMessages.signatureRequired);
  return {
    category: category as ReportCategory,
    reporterRole: reporterRole as ReporterRole,
    name,
    email,
    ...(url ? { url } : {}),
    explanation,
    signature,
    goodFaith: true,
  };
}
