import type { AllowanceStats } from '@studio/contracts';
import { Card, Col, Row, Statistic } from 'antd';
import { useEffect, useState } from 'react';
import { apiGet } from '../../api/client';

const PERIODS: { key: 'today' | 'week' | 'month'; title: string }[] = [
  { key: 'today', title: 'Today' },
  { key: 'week', title: 'Last 7 days' },
  { key: 'month', title: 'Last 30 days' },
];

/**
 * Free allowances granted (GET /api/admin/allowances), apart from purchases and from the credits
 * used above: coins given away, not money taken. Hidden while the allowance is off and none given.
 */
export function AllowanceTotals() {
  const [stats, setStats] = useState<AllowanceStats | null>(null);
  useEffect(() => {
    let live = true;
    void apiGet<AllowanceStats>('/admin/allowances').then((result) => {
      if (live && result.ok && result.body) setStats(result.body.content);
    });
    return () => {
      live = false;
    };
  }, []);
  if (!stats || (stats.coinsEach === 0 && stats.month.count === 0)) return null;
  return (
    <Card
      size="small"
      title={`Free allowances (${stats.coinsEach} coins each)`}
      data-testid="allowance-totals"
    >
      <Row gutter={[16, 16]}>
        {PERIODS.map(({ key, title }) => (
          <Col key={key} xs={8}>
            <Statistic title={title} value={stats[key].count} suffix={`· ${stats[key].coins} coins`} />
          </Col>
        ))}
      </Row>
    </Card>
  );
}
