import {
  formatCount,
  TOOL_LABELS,
  type CreditHistoryEntry,
  type JobTool,
  type LedgerKind,
} from '@studio/contracts';
import { Card, Typography, type TableColumnsType } from 'antd';
import { Link } from 'react-router-dom';
import { formatLocalDateTime } from '../../admin/format';
import { ServerPagedTable } from '../../admin/ServerPagedTable';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useSession } from '../../session/useSession';
import { useCreditHistory } from '../AdminSupport/useCreditHistory';
import { creditAmountColumn, creditBalanceColumn } from './creditColumns';

const toolName = (tool?: string) => (tool ? (TOOL_LABELS[tool as JobTool] ?? tool) : undefined);

/**
 * What a ledger entry was, in words for the account's owner. A refund made by a member of staff
 * (it names them) is a moderator's removal of an output the job made, not a job that failed.
 */
export function creditEntryText(entry: Pick<CreditHistoryEntry, 'kind' | 'tool' | 'by'>): string {
  const tool = toolName(entry.tool);
  const refund = entry.by
    ? `Refund: ${tool ?? 'a'} result removed after review`
    : tool
      ? `Refund: ${tool} did not finish`
      : 'Refund';
  const kinds: Record<LedgerKind, string> = {
    purchase: 'Coins bought',
    reservation: tool ? `Spent on ${tool}` : 'Spent on a tool',
    capture: tool ? `${tool} finished: payment confirmed` : 'Payment confirmed',
    refund,
    reimbursement: 'Given back by support',
    grant: 'Gift from the studio',
    adjustment: 'Balance corrected by the studio',
    allowance: 'Free allowance for verifying your email',
  };
  return kinds[entry.kind] ?? entry.kind;
}

const columns: TableColumnsType<CreditHistoryEntry> = [
  {
    title: 'Date',
    dataIndex: 'createdAt',
    width: 170,
    render: (createdAt: string) => <span className="nowrap">{formatLocalDateTime(createdAt)}</span>,
  },
  { title: 'What', key: 'what', render: (_: unknown, entry) => creditEntryText(entry) },
  // A confirmation moves nothing: the credits left when the job was reserved.
  creditAmountColumn('Credits', 110),
  creditBalanceColumn('Balance after', 120),
  { title: 'Details', dataIndex: 'reason', minWidth: 200 },
];

/** The user's own credit history (GET /api/credits/history), newest first. */
export function CreditsPage() {
  const loggedIn = useRequireLogin({ explain: true });
  const { balance } = useSession();
  const history = useCreditHistory(loggedIn ? '/credits/history' : null);
  if (!loggedIn) return null;
  return (
    <div className="history-page">
      <Typography.Title level={2}>Credit history</Typography.Title>
      <Typography.Paragraph type="secondary">
        Every change of your balance, newest first.
        {balance !== null && <> You have {formatCount(balance)} credits.</>}{' '}
        <Link to={Paths.refill}>Buy coins</Link> · <Link to={Paths.jobs}>Your jobs</Link>
      </Typography.Paragraph>
      <Card size="small">
        <ServerPagedTable<CreditHistoryEntry>
          columns={columns}
          data={history.data}
          loading={history.loading}
          onPageChange={history.changePage}
        />
      </Card>
    </div>
  );
}
