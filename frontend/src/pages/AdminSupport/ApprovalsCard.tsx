import { formatCount, plural, type CreditApproval } from '@studio/contracts';
import { Button, Card, Space, Table, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, apiPost, errorText } from '../../api/client';
import { formatLocalDateTime } from '../../admin/format';
import { useToast } from '../../ui/toast';

const STATE_COLORS = { pending: 'gold', approved: 'green', rejected: 'red' } as const;

/**
 * Admins see grants above the approval threshold and approve or reject those another admin asked
 * for (GET /api/admin/credits/approvals, POST /api/admin/credits/approvals/{id}).
 */
export function ApprovalsCard({ self, reloadKey }: { self: string | null; reloadKey: number }) {
  const toast = useToast();
  const [rows, setRows] = useState<CreditApproval[]>([]);
  const [loading, setLoading] = useState(false);
  const [busy, setBusy] = useState<string | null>(null);

  const load = useCallback(async () => {
    setLoading(true);
    const result = await apiGet<CreditApproval[]>('/admin/credits/approvals');
    setLoading(false);
    if (result.ok && Array.isArray(result.body?.content)) setRows(result.body.content);
    else toast.error(errorText(result));
  }, [toast]);

  useEffect(() => {
    void load();
  }, [load, reloadKey]);

  const decide = async (row: CreditApproval, decision: 'approve' | 'reject') => {
    setBusy(row._id);
    const result = await apiPost<CreditApproval>(`/admin/credits/approvals/${row._id}`, { decision });
    setBusy(null);
    if (result.ok) {
      toast.success(
        `${decision === 'approve' ? 'Approved' : 'Rejected'}: ${plural(row.amount, 'credit')} to ${row.username}`,
      );
    } else {
      toast.error(errorText(result));
    }
    void load();
  };

  const mine = (row: CreditApproval) =>
    [row.requestedBy, row.username].some((name) => name.toLowerCase() === self?.toLowerCase());

  return (
    <Card
      size="small"
      title="Grants waiting for approval"
      extra={<Button onClick={() => void load()}>Refresh</Button>}
    >
      <Table<CreditApproval>
        size="small"
        rowKey="_id"
        loading={loading}
        dataSource={rows}
        pagination={false}
        // On a phone the table scrolls sideways instead of squeezing "Credits" to "Cre dits".
        scroll={{ x: 'max-content' }}
        locale={{ emptyText: 'No grants wait for approval' }}
        columns={[
          { title: 'User', dataIndex: 'username' },
          { title: 'Credits', dataIndex: 'amount', render: (amount: number) => formatCount(amount) },
          // Wrapped, not cut with "…": a phone has no hover to show the rest.
          { title: 'Reason', dataIndex: 'reason', width: 240 },
          { title: 'Asked by', dataIndex: 'requestedBy' },
          { title: 'When', dataIndex: 'createdAt', render: (at: string) => formatLocalDateTime(at) },
          {
            title: 'State',
            dataIndex: 'state',
            render: (state: CreditApproval['state'], row) => (
              <Space size={4}>
                <Tag color={STATE_COLORS[state]}>{state}</Tag>
                {row.decidedBy && <Typography.Text type="secondary">by {row.decidedBy}</Typography.Text>}
              </Space>
            ),
          },
          {
            title: '',
            key: 'actions',
            render: (_: unknown, row) =>
              row.state === 'pending' &&
              (mine(row) ? (
                <Typography.Text type="secondary">Another admin decides</Typography.Text>
              ) : (
                <Space>
                  <Button
                    size="small"
                    type="primary"
                    loading={busy === row._id}
                    onClick={() => void decide(row, 'approve')}
                  >
                    Approve
                  </Button>
                  <Button
                    size="small"
                    danger
                    disabled={busy === row._id}
                    onClick={() => void decide(row, 'reject')}
                  >
                    Reject
                  </Button>
                </Space>
              )),
          },
        ]}
      />
    </Card>
  );
}
