import {
  TOOL_LABELS,
  type CreditHistoryEntry,
  type JobTool,
  type LedgerKind,
  type Page,
} from '@studio/contracts';
import { Tag, type TableColumnsType } from 'antd';
import { formatLocalDateTime } from '../../admin/format';
import { ServerPagedTable } from '../../admin/ServerPagedTable';
import { creditAmountColumn, creditBalanceColumn } from '../Credits/creditColumns';

const KIND_COLORS: Record<LedgerKind, string> = {
  purchase: 'green',
  reservation: 'orange',
  capture: 'default',
  refund: 'blue',
  reimbursement: 'cyan',
  grant: 'purple',
  adjustment: 'gold',
  allowance: 'lime',
};

const columns: TableColumnsType<CreditHistoryEntry> = [
  {
    title: 'Date',
    dataIndex: 'createdAt',
    width: 180,
    render: (createdAt: string) => formatLocalDateTime(createdAt),
  },
  {
    title: 'Kind',
    dataIndex: 'kind',
    width: 130,
    render: (kind: LedgerKind) => <Tag color={KIND_COLORS[kind]}>{kind}</Tag>,
  },
  creditAmountColumn('Amount', 100),
  creditBalanceColumn('Balance', 100),
  {
    title: 'Tool',
    dataIndex: 'tool',
    render: (tool?: string) => (tool ? (TOOL_LABELS[tool as JobTool] ?? tool) : null),
  },
  // At least readable: the fixed columns above leave little room in the support page's panel.
  { title: 'Reason', dataIndex: 'reason', minWidth: 180 },
  { title: 'By', dataIndex: 'by', width: 120 },
];

/** A user's credit history, newest first, paged by the server. */
export function CreditHistoryTable({
  data,
  loading,
  onPageChange,
}: {
  data: Page<CreditHistoryEntry>;
  loading: boolean;
  onPageChange(page: number, pageSize: number): void;
}) {
  return (
    <ServerPagedTable<CreditHistoryEntry>
      columns={columns}
      data={data}
      loading={loading}
      onPageChange={onPageChange}
    />
  );
}
