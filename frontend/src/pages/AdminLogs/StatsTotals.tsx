import type { AdminStats, CreditTotal } from '@studio/contracts';
import { Card, Col, Row, Statistic, theme } from 'antd';
import { formatDollars } from '../../admin/format';

const PERIODS: { key: keyof AdminStats['totals']; title: string }[] = [
  { key: 'today', title: 'Today' },
  { key: 'yesterday', title: 'Yesterday' },
  { key: 'week', title: 'Week' },
  { key: 'month', title: 'Month' },
];

/** Credits used Today, Yesterday, this Week (from Monday) and this Month, with dollars. */
export function StatsTotals({ totals, loading }: { totals: AdminStats['totals']; loading: boolean }) {
  return (
    <Row gutter={[16, 16]}>
      {PERIODS.map(({ key, title }) => (
        <Col key={key} xs={12} md={6}>
          <TotalCard title={title} total={totals[key] ?? { credits: 0, dollars: 0 }} loading={loading} />
        </Col>
      ))}
    </Row>
  );
}

function TotalCard({ title, total, loading }: { title: string; total: CreditTotal; loading: boolean }) {
  // The theme's secondary text (4.5:1 in light and dark), not a fixed grey.
  const { token } = theme.useToken();
  return (
    <Card size="small" data-testid={`total-${title.toLowerCase()}`}>
      <Statistic title={title} value={total.credits} suffix="credits" loading={loading} />
      <Statistic
        value={formatDollars(total.dollars)}
        valueStyle={{ fontSize: 16, color: token.colorTextDescription }}
      />
    </Card>
  );
}
