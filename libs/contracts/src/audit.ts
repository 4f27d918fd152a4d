/**
 * Audit log categories. The admin statistics read no message text: they sum figures the server
 * stores beside the entries of ledger captures and face swap jobs.
 */
export const AuditCategory = {
  account: 'Account',
  credits: 'Credits',
  faceSwap: 'FaceSwap',
  generation: 'Generation',
  operations: 'Operations',
  folders: 'Folders',
  support: 'Support',
  safety: 'Safety',
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
