import { formatCount, type CreditHistoryEntry } from '@studio/contracts';
import { Typography, type TableColumnType } from 'antd';

/**
 * The number columns of a credit history, for the owner's page and support's alike. A capture
 * confirms an earlier reservation: it moves nothing and has no balance of its own, so both cells
 * show a dash (not "0" or "NaN"). Figures never wrap inside a number.
 */
export function creditAmountColumn(title: string, width: number): TableColumnType<CreditHistoryEntry> {
  return {
    title,
    dataIndex: 'amount',
    width,
    align: 'right',
    render: (amount: number) =>
      amount === 0 ? (
        <Typography.Text type="secondary">—</Typography.Text>
      ) : (
        <Typography.Text type={amount > 0 ? 'success' : 'danger'} className="nowrap">
          {amount > 0 ? `+${formatCount(amount)}` : `−${formatCount(-amount)}`}
        </Typography.Text>
      ),
  };
}

export function creditBalanceColumn(title: string, width: number): TableColumnType<CreditHistoryEntry> {
  return {
    title,
    dataIndex: 'balanceAfter',
    width,
    align: 'right',
    render: (balance?: number) =>
      typeof balance === 'number' && Number.isFinite(balance) ? (
        <span className="nowrap">{formatCount(balance)}</span>
      ) : (
        <Typography.Text type="secondary">—</Typography.Text>
      ),
  };
}
