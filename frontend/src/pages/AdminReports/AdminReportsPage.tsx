import {
  API_PREFIX,
  REPORT_CATEGORY_LABELS,
  REPORT_LIMITS,
  type AppealOutcome,
  type ReportMatchView,
  type ReportView,
} from '@studio/contracts';
import { Alert, Button, Card, Input, Modal, Segmented, Space, Table, Tag, Typography } from 'antd';
import { useCallback, useEffect, useState } from 'react';
import { Link } from 'react-router-dom';
import { apiGet, apiPost, errorText } from '../../api/client';
import { RequireRole, SUPPORT_STAFF } from '../../admin/RequireRole';
import { Paths } from '../../paths';

/** "5 h 12 min left" or "overdue by 2 h 3 min". */
export function timeLeft(ms: number): string {
  const minutes = Math.floor(Math.abs(ms) / 60_000);
  const text = `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
  return ms < 0 ? `overdue by ${text}` : `${text} left`;
}

function useReports(status: 'open' | 'decided') {
  const [reports, setReports] = useState<ReportView[]>([]);
  const [error, setError] = useState<string | null>(null);
  const load = useCallback(async () => {
    const answer = await apiGet<{ reports: ReportView[] }>(`/admin/reports?status=${status}`);
    if (answer.ok && answer.body && typeof answer.body.content === 'object') {
      setReports(answer.body.content.reports);
      setError(null);
    } else setError(errorText(answer));
  }, [status]);
  useEffect(() => {
    void load();
  }, [load]);
  return { reports, error, reload: load };
}

function DecisionButton({
  report,
  action,
  onDone,
}: {
  report: ReportView;
  action: 'remove' | 'reject';
  onDone(): void;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const decide = async () => {
    setBusy(true);
    const answer = await apiPost(`/admin/reports/${report.id}/decision`, { action, reason });
    setBusy(false);
    if (answer.ok) {
      setOpen(false);
      onDone();
    } else setError(errorText(answer));
  };
  const label =
    action === 'remove'
      ? `Remove all ${report.matches.length} cop${report.matches.length === 1 ? 'y' : 'ies'}`
      : 'Reject';
  return (
    <>
      <Button danger={action === 'remove'} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal
        open={open}
        title={`${label}: statement of reasons`}
        okText={label}
        okButtonProps={{ danger: action === 'remove', disabled: !reason.trim(), loading: busy }}
        onOk={() => void decide()}
        onCancel={() => setOpen(false)}
      >
        <Typography.Paragraph type="secondary">
          The reporter{action === 'remove' ? ' and every owner' : ''} read this reason.
        </Typography.Paragraph>
        <ReasonField reason={reason} onChange={setReason} error={error} />
      </Modal>
    </>
  );
}

/**
 * Decides an owner's appeal (DSA Art. 20(4)): the removal upheld, or reversed (the file put back
 * and unblocked). The server refuses it to whoever decided the removal.
 */
function AppealButton({
  report,
  match,
  outcome,
  onDone,
}: {
  report: ReportView;
  match: ReportMatchView;
  outcome: AppealOutcome;
  onDone(): void;
}) {
  const [open, setOpen] = useState(false);
  const [reason, setReason] = useState('');
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const decide = async () => {
    setBusy(true);
    const answer = await apiPost(
      `/admin/reports/${report.id}/appeals/${encodeURIComponent(match.itemId)}/decision`,
      { outcome, reason },
    );
    setBusy(false);
    if (answer.ok) {
      setOpen(false);
      onDone();
    } else setError(errorText(answer));
  };
  const label = outcome === 'upheld' ? 'Uphold removal' : 'Reverse: restore';
  return (
    <>
      <Button size="small" danger={outcome === 'reversed'} onClick={() => setOpen(true)}>
        {label}
      </Button>
      <Modal
        open={open}
        title={`${label}: appeal of ${match.ownerName}`}
        okText={label}
        okButtonProps={{ disabled: !reason.trim(), loading: busy }}
        onOk={() => void decide()}
        onCancel={() => setOpen(false)}
      >
        <Typography.Paragraph type="secondary">
          {outcome === 'reversed'
            ? match.restorable
              ? 'The item is put back as it was and its picture leaves the block list.'
              : 'The file is no longer kept: the item cannot be restored, only the decision reversed.'
            : 'The removal stands and the kept copy of the file is deleted.'}{' '}
          The owner reads this reason.
        </Typography.Paragraph>
        <ReasonField reason={reason} onChange={setReason} error={error} />
      </Modal>
    </>
  );
}

/** One matched item or stored input, how it was found, and its appeal. */
function MatchLine({
  report,
  match,
  onDone,
}: {
  report: ReportView;
  match: ReportMatchView;
  onDone(): void;
}) {
  const what = match.kind === 'input' ? `input ${match.itemId}` : `item ${match.itemId}`;
  return (
    <span data-testid="report-match">
      {match.ownerName} · {what} · {match.method}
      {match.method === 'perceptual' ? ` (${match.distance} bits)` : ''}
      {match.copyOf ? ` copy of ${match.copyOf}` : ''}
      {match.removed ? ' · removed' : ''}
      {match.appeal ? ` · appealed: “${match.appeal.text}”` : ''}
      {match.appeal?.decision
        ? ` · appeal ${match.appeal.decision.outcome} by ${match.appeal.decision.by}`
        : ''}
      {match.appeal && !match.appeal.decision && (
        <Space size="small" style={{ marginLeft: 8 }}>
          <AppealButton report={report} match={match} outcome="upheld" onDone={onDone} />
          <AppealButton report={report} match={match} outcome="reversed" onDone={onDone} />
        </Space>
      )}
    </span>
  );
}

function ReportsTable({ status }: { status: 'open' | 'decided' }) {
  const { reports, error, reload } = useReports(status);
  return (
    <>
      {error && <Alert type="error" showIcon message={error} />}
      <Table<ReportView>
        rowKey="id"
        dataSource={reports}
        pagination={false}
        // Wider than a phone or its card: the table scrolls inside the card, not the page, and the
        // decision buttons stay within it.
        scroll={{ x: 'max-content' }}
        data-testid={`reports-${status}`}
        expandable={{
          expandedRowRender: (report) => (
            <Space direction="vertical" style={{ width: '100%' }}>
              <Typography.Text>
                <b>Explanation:</b> {report.explanation}
              </Typography.Text>
              <Typography.Text>
                <b>Reporter:</b> {report.reporter.name} &lt;{report.reporter.email}&gt; ({report.reporterRole}
                ), signed “{report.signature}”
              </Typography.Text>
              {report.url && (
                <Typography.Text>
                  <b>Address:</b> {report.url}
                </Typography.Text>
              )}
              {report.hasFile && (
                <a href={`${API_PREFIX}/admin/reports/${report.id}/file`}>Download the reported copy</a>
              )}
              {report.decision && (
                <Typography.Text>
                  <b>Decision:</b> {report.decision.action} by {report.decision.by} on{' '}
                  {new Date(report.decision.at).toLocaleString()}: {report.decision.reason}
                </Typography.Text>
              )}
            </Space>
          ),
        }}
        columns={[
          { title: 'Received', render: (_, r) => new Date(r.receivedAt).toLocaleString() },
          {
            title: 'Deadline',
            render: (_, r) => (
              <Space direction="vertical" size={0}>
                {new Date(r.deadline).toLocaleString()}
                {r.status === 'open' && (
                  <Tag
                    color={r.overdue ? 'red' : r.msLeft < 12 * 3600_000 ? 'orange' : 'blue'}
                    data-testid="report-clock"
                  >
                    {timeLeft(r.msLeft)}
                  </Tag>
                )}
              </Space>
            ),
          },
          { title: 'Category', render: (_, r) => REPORT_CATEGORY_LABELS[r.category] ?? r.category },
          {
            title: 'Matched items',
            render: (_, r) =>
              r.matches.length === 0 ? (
                <Typography.Text type="secondary">none found</Typography.Text>
              ) : (
                <Space direction="vertical" size={0}>
                  {r.matches.map((m) => (
                    <MatchLine key={m.itemId} report={r} match={m} onDone={() => void reload()} />
                  ))}
                </Space>
              ),
          },
          {
            title: status === 'open' ? 'Decide' : 'Decision',
            render: (_, r) =>
              r.status === 'open' ? (
                <Space>
                  <DecisionButton report={r} action="remove" onDone={() => void reload()} />
                  <DecisionButton report={r} action="reject" onDone={() => void reload()} />
                </Space>
              ) : (
                <Tag color={r.status === 'removed' ? 'red' : 'default'}>{r.status}</Tag>
              ),
          },
        ]}
      />
    </>
  );
}

/** The staff's reports queue: open reports by time left on their 48-hour clock; overdue in red. */
export function AdminReportsPage() {
  const [status, setStatus] = useState<'open' | 'decided'>('open');
  return (
    <RequireRole roles={SUPPORT_STAFF}>
      <Card title="Reports" extra={<Link to={Paths.adminTransparency}>Transparency report</Link>}>
        <Space direction="vertical" style={{ width: '100%' }}>
          <Segmented
            value={status}
            onChange={(value) => setStatus(value as 'open' | 'decided')}
            options={[
              { label: 'Open', value: 'open' },
              { label: 'Decided', value: 'decided' },
            ]}
          />
          <ReportsTable key={status} status={status} />
        </Space>
      </Card>
    </RequireRole>
  );
}

/** The reason a decision gives (its readers are named above it), and what the server refused. */
function ReasonField({
  reason,
  onChange,
  error,
}: {
  reason: string;
  onChange: (reason: string) => void;
  error?: string | null;
}) {
  return (
    <>
      <Input.TextArea
        rows={4}
        value={reason}
        maxLength={REPORT_LIMITS.reasonChars}
        onChange={(e) => onChange(e.target.value)}
        aria-label="Reason"
      />
      {error && <Alert type="error" showIcon message={error} style={{ marginTop: 12 }} />}
    </>
  );
}
