import { API_PREFIX, REPORT_DEADLINE_HOURS, type TransparencyReport } from '@studio/contracts';
import { Alert, Button, Card, Descriptions, Form, Input, Space, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { apiGet, errorText, queryString } from '../../api/client';
import { RequireRole, SUPPORT_STAFF } from '../../admin/RequireRole';

const day = (date: Date) => date.toISOString().slice(0, 10);

const figure = (value: number | null, unit = '') => (value === null ? '—' : `${value}${unit}`);
const share = (value: number | null) => (value === null ? '—' : `${Math.round(value * 1000) / 10} %`);

/** The figures of the transparency report, in the order the CSV has them. */
export function transparencyRows(report: TransparencyReport): [string, string][] {
  return [
    ['Notices received', String(report.received)],
    ['Notices decided: removed', String(report.removed)],
    ['Notices decided: rejected', String(report.rejected)],
    ['Items removed', String(report.itemsRemoved)],
    ['Appeals filed', String(report.appealed)],
    ['Appeals upheld (removal stands)', String(report.appealsUpheld)],
    ['Appeals reversed (item restored)', String(report.appealsReversed)],
    ['Median time to decision', figure(report.medianHoursToDecision, ' h')],
    ['95th percentile time to decision', figure(report.p95HoursToDecision, ' h')],
    [`Decided within ${REPORT_DEADLINE_HOURS} hours`, share(report.decidedWithin48h)],
    ['Received in the period, still open at its end', String(report.openAtEnd)],
  ];
}

/**
 * Staff: the counts a transparency report needs (DSA Art. 15 and 24; the TAKE IT DOWN Act's 48
 * hours) over a chosen period, from the records only, with a CSV export.
 */
export function TransparencyPage() {
  const today = new Date();
  const [period, setPeriod] = useState({
    from: day(new Date(today.getTime() - 30 * 24 * 3600_000)),
    to: day(new Date(today.getTime() + 24 * 3600_000)),
  });
  const [report, setReport] = useState<TransparencyReport | null>(null);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async (from: string, to: string) => {
    const answer = await apiGet<{ transparency: TransparencyReport }>(
      `/admin/reports/transparency${queryString({ from, to })}`,
    );
    if (answer.ok && answer.body && typeof answer.body.content === 'object') {
      setReport(answer.body.content.transparency);
      setError(null);
    } else {
      setReport(null);
      setError(errorText(answer));
    }
  }, []);
  useEffect(() => {
    void load(period.from, period.to);
  }, [load, period]);

  return (
    <RequireRole roles={SUPPORT_STAFF}>
      <Card title="Transparency report (notice and removal)">
        <Space direction="vertical" size="large" style={{ width: '100%' }}>
          <Typography.Paragraph type="secondary">
            Counted from the records (statuses and times) only. Notices by the day they were received;
            decisions, their times and appeals by the day they were decided or filed. The period runs from the
            first day to the day before the second (UTC).
          </Typography.Paragraph>
          <Form
            layout="inline"
            initialValues={period}
            onFinish={(values: { from: string; to: string }) => setPeriod(values)}
            aria-label="Period"
          >
            <Form.Item name="from" label="From">
              <Input type="date" aria-label="From" />
            </Form.Item>
            <Form.Item name="to" label="To">
              <Input type="date" aria-label="To" />
            </Form.Item>
            <Button htmlType="submit" type="primary">
              Show
            </Button>
          </Form>
          {error && <Alert type="error" showIcon message={error} data-testid="transparency-error" />}
          {report && (
            <>
              <Descriptions bordered column={1} size="small" data-testid="transparency-figures">
                {transparencyRows(report).map(([label, value]) => (
                  <Descriptions.Item key={label} label={label}>
                    {value}
                  </Descriptions.Item>
                ))}
              </Descriptions>
              <a
                href={`${API_PREFIX}/admin/reports/transparency.csv${queryString(period)}`}
                download
                data-testid="transparency-csv"
              >
                Download as CSV
              </a>
            </>
          )}
        </Space>
      </Card>
    </RequireRole>
  );
}
