/** Audit log categories. The admin statistics read FaceSwap entries and 'N credits.' messages. */
export const AuditCategory = {
  account: 'Account',
  credits: 'Credits',
  faceSwap: 'FaceSwap',
  generation: 'Generation',
  operations: 'Operations',
  folders: 'Folders',
  support: 'Support',
} as const;
export type AuditCategory = (typeof AuditCategory)[keyof typeof AuditCategory];

/** A log entry as the spec's admin screen reads it. */
export interface LogEntry {
  _id: string;
  category: string;
  author?: { username: string };
  createdOn: string;
  message: string;
  detail?: string;
}
