import type { JobTool } from '@studio/contracts';
import { Alert } from 'antd';
import type { ReactNode } from 'react';
import { noticesFor, type Operations } from './useOperations';

interface NoticeAlertsProps {
  operations: Operations;
  tool: JobTool;
  /** Shown before the maintenance notices, whatever the admins set (the video swap's beta notice). */
  before?: ReactNode;
}

/**
 * The maintenance notices of one tool as alerts above the screen; they follow the admins'
 * changes live (they replace the spec's hard-coded 'technical difficulties' toasts).
 */
export function NoticeAlerts({ operations, tool, before }: NoticeAlertsProps) {
  const notices = noticesFor(operations, tool);
  if (!before && notices.length === 0) return null;
  return (
    <div className="tool-notices" data-testid="tool-notices">
      {before}
      {notices.map((notice) => (
        <Alert
          key={`${notice.tool}-${notice.updatedAt}`}
          type={notice.severity}
          showIcon
          message={notice.text}
          data-testid="maintenance-notice"
        />
      ))}
    </div>
  );
}
