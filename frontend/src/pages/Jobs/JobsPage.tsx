import { LeftOutlined, RightOutlined } from '@ant-design/icons';
import {
  formatCount,
  JOB_STATE_LABELS,
  JobStates,
  JobTools,
  plural,
  TOOL_LABELS,
  type JobState,
  type JobTool,
  type JobView,
} from '@studio/contracts';
import { Alert, Button, Card, Grid, Input, Progress, Select, Space, Table, Tag, Typography } from 'antd';
import type { TableColumnsType } from 'antd';
import { useEffect, useMemo } from 'react';
import { Link } from 'react-router-dom';
import { formatLocalDateTime } from '../../admin/format';
import { JobActions } from '../../jobs/JobActions';
import { refundText } from '../../jobs/JobsProvider';
import { OpenFolderLink } from '../../jobs/OpenFolderLink';
import { isActive, type TrayJob } from '../../jobs/jobsState';
import { openJobText } from '../../jobs/queueText';
import { useJobs } from '../../jobs/useJobs';
import { useNow } from '../../jobs/useNow';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';
import { BRAND_COLOR } from '../../ui/theme';
import { useJobHistory, type JobFilters } from './useJobHistory';

const STATE_COLORS: Record<JobState, string> = {
  queued: 'default',
  running: 'processing',
  succeeded: 'success',
  failed: 'error',
  cancelled: 'warning',
};

const TOOL_OPTIONS = JobTools.map((tool) => ({ value: tool, label: TOOL_LABELS[tool] }));
const STATE_OPTIONS = JobStates.map((state) => ({ value: state, label: JOB_STATE_LABELS[state] }));

const columnsAt = (now: number): TableColumnsType<TrayJob> => [
  {
    title: 'Started',
    dataIndex: 'createdAt',
    width: 170,
    render: (createdAt: string) => <span className="nowrap">{formatLocalDateTime(createdAt)}</span>,
  },
  {
    title: 'Tool',
    dataIndex: 'tool',
    render: (tool: JobTool, job) =>
      job.batch?.name ? `${TOOL_LABELS[tool]} · ${job.batch.name}` : TOOL_LABELS[tool],
  },
  {
    title: 'State',
    dataIndex: 'state',
    width: 110,
    render: (state: JobState) => <Tag color={STATE_COLORS[state]}>{JOB_STATE_LABELS[state]}</Tag>,
  },
  {
    title: 'Cost',
    dataIndex: 'cost',
    width: 80,
    align: 'right',
    render: (cost: number) => formatCount(cost),
  },
  { title: 'Result', key: 'result', render: (_: unknown, job) => <JobResult job={job} now={now} /> },
  { title: '', key: 'actions', width: 230, render: (_: unknown, job) => <JobActions job={job} /> },
];

/** A phone's one column: the job's facts, its result and its buttons stacked, no sideways scrolling. */
const narrowColumnsAt = (now: number): TableColumnsType<TrayJob> => [
  {
    title: 'Job',
    key: 'job',
    render: (_: unknown, job) => (
      <div className="history-job-card">
        <div className="history-job-head">
          <Typography.Text strong>
            {job.batch?.name ? `${TOOL_LABELS[job.tool]} · ${job.batch.name}` : TOOL_LABELS[job.tool]}
          </Typography.Text>
          <Tag color={STATE_COLORS[job.state]}>{JOB_STATE_LABELS[job.state]}</Tag>
        </div>
        <Typography.Text type="secondary">
          {formatLocalDateTime(job.createdAt)} · {plural(job.cost, 'credit')}
        </Typography.Text>
        <JobResult job={job} now={now} />
        <JobActions job={job} />
      </div>
    ),
  },
];

function JobResult({ job, now }: { job: TrayJob; now: number }) {
  if (isActive(job)) {
    return (
      <>
        <Progress
          percent={Math.round(job.progress)}
          size="small"
          strokeColor={BRAND_COLOR}
          aria-label={`${TOOL_LABELS[job.tool]} progress`}
        />
        <Typography.Text type="secondary" data-testid="job-wait">
          {openJobText(job, now)}
        </Typography.Text>
      </>
    );
  }
  if (job.state === 'cancelled') {
    return (
      <Typography.Text type="secondary">
        {job.cancelledByStaff ? 'Cancelled by our support team.' : 'Cancelled.'}
        {job.refunded ? ` ${refundText(job.refunded)}` : ''}
      </Typography.Text>
    );
  }
  if (job.state === 'failed') {
    return (
      <Typography.Text type="danger">
        {job.error ?? 'The job failed.'}
        {job.refunded ? ` ${refundText(job.refunded)}` : ''}
      </Typography.Text>
    );
  }
  return (
    <span>
      {plural(job.items.length, 'result')}
      <OpenFolderLink folderId={job.folderId} />
    </span>
  );
}

/** A day filter (the browser's date field, YYYY-MM-DD); cleared means no bound. */
function DayField({
  label,
  value,
  onChange,
}: {
  label: string;
  value?: string;
  onChange(day: string | undefined): void;
}) {
  return (
    <label className="history-date">
      {label}{' '}
      <Input
        type="date"
        aria-label={label}
        value={value ?? ''}
        onChange={(event) => onChange(event.target.value || undefined)}
      />
    </label>
  );
}

/** Every job of the user, newest first, with filters; the tray keeps only the last few. */
export function JobsPage() {
  const loggedIn = useRequireLogin({ explain: true });
  const history = useJobHistory(loggedIn);
  const jobs = useLiveJobs(history.jobs, history.pageNumber === 1 ? history.reload : undefined);
  const now = useNow(jobs.some((job) => isActive(job) && job.etaAt !== undefined));
  // antd's xs is below 576 px; jsdom matches no breakpoint and gets the table.
  const narrow = Grid.useBreakpoint().xs === true;
  const columns = useMemo(() => (narrow ? narrowColumnsAt(now) : columnsAt(now)), [narrow, now]);
  if (!loggedIn) return null;
  const { filters, filter } = history;
  const set = (change: Partial<JobFilters>) => filter({ ...filters, ...change });
  return (
    <div className="history-page">
      <Typography.Title level={2}>Your jobs</Typography.Title>
      <Typography.Paragraph type="secondary">
        Everything you ran, newest first. <Link to={Paths.credits}>Credit history</Link>
      </Typography.Paragraph>
      <Card size="small">
        <Space wrap className="history-filters">
          <Select<JobTool>
            aria-label="Tool"
            placeholder="All tools"
            allowClear
            style={{ width: 180 }}
            options={TOOL_OPTIONS}
            value={filters.tool}
            onChange={(tool) => set({ tool: tool || undefined })}
          />
          <Select<JobState>
            aria-label="State"
            placeholder="Any state"
            allowClear
            style={{ width: 150 }}
            options={STATE_OPTIONS}
            value={filters.state}
            onChange={(state) => set({ state: state || undefined })}
          />
          <DayField label="From" value={filters.from} onChange={(from) => set({ from })} />
          <DayField label="To" value={filters.to} onChange={(to) => set({ to })} />
        </Space>
        {history.error && (
          <Alert type="error" showIcon message={history.error} style={{ marginBottom: 12 }} />
        )}
        <Table<TrayJob>
          rowKey="_id"
          size="small"
          columns={columns}
          dataSource={jobs}
          loading={history.loading}
          pagination={false}
          scroll={narrow ? undefined : { x: 950 }}
          locale={{ emptyText: 'No jobs match.' }}
          onRow={(job) =>
            ({ 'data-testid': 'history-job', 'data-job': job._id }) as React.HTMLAttributes<HTMLElement>
          }
        />
        <Space className="history-pager">
          <Button icon={<LeftOutlined />} disabled={!history.hasNewer} onClick={history.newer}>
            Newer
          </Button>
          <Typography.Text type="secondary">Page {formatCount(history.pageNumber)}</Typography.Text>
          <Button disabled={!history.hasOlder} onClick={history.older}>
            Older <RightOutlined />
          </Button>
        </Space>
      </Card>
    </div>
  );
}

/**
 * The page's jobs as the socket keeps them (state, progress, place in line, cancel from another
 * tab); a job started since the page was read (Run again) reads the newest page again.
 */
function useLiveJobs(listed: JobView[], reloadNewest: (() => void) | undefined): TrayJob[] {
  const { jobs: live } = useJobs();
  const byId = useMemo(() => new Map(live.map((job) => [job._id, job])), [live]);
  const newestListed = listed[0]?.createdAt;
  const newer = live.some((job) => newestListed !== undefined && job.createdAt > newestListed);
  useEffect(() => {
    if (newer) reloadNewest?.();
  }, [newer, reloadNewest]);
  return useMemo(() => listed.map((job) => pickLatest(job, byId.get(job._id))), [listed, byId]);
}

/** The further-along of the page's and the socket's view of a job. */
function pickLatest(listed: JobView, live: TrayJob | undefined): TrayJob {
  if (!live) return listed;
  const rank = (job: JobView) => (job.state === 'queued' ? 0 : job.state === 'running' ? 1 : 2);
  return rank(live) >= rank(listed) ? live : listed;
}
