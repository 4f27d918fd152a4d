import type { JobTool } from '@studio/contracts';
import { NoticeAlerts } from './NoticeAlerts';
import { useOperations } from './useOperations';

/** The maintenance notices of a tool whose screen needs nothing else from the operations state. */
export function ToolNotices({ tool }: { tool: JobTool }) {
  return <NoticeAlerts operations={useOperations()} tool={tool} />;
}
