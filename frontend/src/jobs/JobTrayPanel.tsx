import {
  CheckCircleFilled,
  CloseCircleFilled,
  CloseOutlined,
  CopyOutlined,
  ExpandOutlined,
  HighlightOutlined,
  PictureOutlined,
  SmileOutlined,
  StopOutlined,
  SyncOutlined,
  ThunderboltOutlined,
  VideoCameraOutlined,
} from '@ant-design/icons';
import { formatCount, plural, TOOL_LABELS, type JobTool } from '@studio/contracts';
import { Button, Card, Empty, Progress, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { BRAND_COLOR } from '../ui/theme';
import { CancelBatchButton, JobActions } from './JobActions';
import { refundText } from './JobsProvider';
import { OpenFolderLink } from './OpenFolderLink';
import { batchProgress, isActive, trayRows, type TrayJob } from './jobsState';
import { openJobText } from './queueText';
import { useNow } from './useNow';

/** Finished rows kept in the tray below the active ones. */
const RECENT_FINISHED = 8;

export const TOOL_ICONS: Record<JobTool, ReactNode> = {
  clone: <CopyOutlined />,
  superResolution: <ExpandOutlined />,
  faceSwap: <SmileOutlined />,
  inpaint: <HighlightOutlined />,
  generate: <PictureOutlined />,
  faceSwapVideo: <VideoCameraOutlined />,
};

/** The open tray: active jobs (a bulk batch as one row), then the last finished ones. Loaded on first open. */
export function JobTrayPanel({ jobs, onClose }: { jobs: TrayJob[]; onClose(): void }) {
  const rows = trayRows(jobs);
  const rowActive = (row: (typeof rows)[number]) =>
    row.kind === 'job' ? isActive(row.job) : row.jobs.some(isActive);
  const shown = [
    ...rows.filter(rowActive),
    ...rows.filter((row) => !rowActive(row)).slice(0, RECENT_FINISHED),
  ];
  // Estimates count down between the server's pushes.
  const now = useNow(jobs.some((job) => isActive(job) && job.etaAt !== undefined));

  return (
    <Card
      className="job-tray-panel"
      size="small"
      role="region"
      aria-label="Your jobs"
      data-testid="job-tray"
      title={
        <span>
          <ThunderboltOutlined /> Your jobs
        </span>
      }
      extra={
        <Button
          type="text"
          size="small"
          icon={<CloseOutlined />}
          aria-label="Close the job tray"
          onClick={onClose}
        />
      }
    >
      {shown.length === 0 ? (
        <Empty
          image={Empty.PRESENTED_IMAGE_SIMPLE}
          description="No jobs yet. Clones, upscales and face swaps show up here while they run."
        />
      ) : (
        <div className="job-tray-list">
          {shown.map((row) =>
            row.kind === 'job' ? (
              <JobRow key={row.key} job={row.job} now={now} onOpenFolder={onClose} />
            ) : (
              <BatchRow
                key={row.key}
                batchId={row.batchId}
                name={row.name}
                jobs={row.jobs}
                onOpenFolder={onClose}
              />
            ),
          )}
        </div>
      )}
    </Card>
  );
}

function JobRow({ job, now, onOpenFolder }: { job: TrayJob; now: number; onOpenFolder(): void }) {
  const thumbnail = job.state === 'succeeded' ? job.items.find((item) => item.kind === 'image') : undefined;
  return (
    <div className="job-row" data-testid="tray-job" data-state={job.state} data-job={job._id}>
      <div className={`job-row-icon job-row-icon-${job.state}`}>
        {thumbnail ? <img src={thumbnail.url} alt="" /> : TOOL_ICONS[job.tool]}
      </div>
      <div className="job-row-body">
        <div className="job-row-head">
          <Typography.Text strong>{TOOL_LABELS[job.tool]}</Typography.Text>
          <StateTag job={job} />
        </div>
        <JobDetail job={job} now={now} onOpenFolder={onOpenFolder} />
        <JobActions job={job} onNavigate={onOpenFolder} />
      </div>
    </div>
  );
}

function StateTag({ job }: { job: TrayJob }) {
  switch (job.state) {
    case 'queued':
      return <Tag color="default">Queued</Tag>;
    case 'running':
      return (
        <Tag color="processing" icon={<SyncOutlined spin />}>
          Running
        </Tag>
      );
    case 'succeeded':
      return (
        <Tag color="success" icon={<CheckCircleFilled />}>
          Done
        </Tag>
      );
    case 'failed':
      return (
        <Tag color="error" icon={<CloseCircleFilled />}>
          Failed
        </Tag>
      );
    case 'cancelled':
      return (
        <Tag color="warning" icon={<StopOutlined />}>
          Cancelled
        </Tag>
      );
  }
}

function JobDetail({ job, now, onOpenFolder }: { job: TrayJob; now: number; onOpenFolder(): void }) {
  if (isActive(job)) {
    return (
      <>
        <Progress
          percent={Math.round(job.progress)}
          size="small"
          status="active"
          strokeColor={BRAND_COLOR}
          aria-label={`${TOOL_LABELS[job.tool]} progress`}
        />
        <Typography.Text type="secondary" className="job-row-note" data-testid="job-wait">
          {openJobText(job, now)}
        </Typography.Text>
      </>
    );
  }
  if (job.state === 'cancelled') {
    return (
      <Typography.Text type="secondary" className="job-row-note">
        {job.cancelledByStaff ? 'Cancelled by our support team.' : 'Cancelled.'} {refundText(job.refunded)}
      </Typography.Text>
    );
  }
  if (job.state === 'failed') {
    return (
      <>
        <Typography.Text type="danger" className="job-row-note">
          {job.error ?? 'The job failed.'}
        </Typography.Text>
        {job.refunded ? (
          <Typography.Text type="secondary" className="job-row-note">
            {refundText(job.refunded)}
          </Typography.Text>
        ) : null}
      </>
    );
  }
  if (job.held) {
    return (
      <Typography.Text type="warning" className="job-row-note" data-testid="job-held">
        Held for review: a moderator looks at it before you can see it
      </Typography.Text>
    );
  }
  return (
    <Typography.Text type="secondary" className="job-row-note">
      {plural(job.items.length, 'image')}
      <OpenFolderLink folderId={job.folderId} onOpen={onOpenFolder} />
    </Typography.Text>
  );
}

/** A bulk batch as one row: how many of its jobs are done, and their progress together. */
function BatchRow({
  batchId,
  name,
  jobs,
  onOpenFolder,
}: {
  batchId: string;
  name: string;
  jobs: TrayJob[];
  onOpenFolder(): void;
}) {
  const { ended, done, failed, cancelled, total, percent } = batchProgress(jobs);
  const running = ended < total;
  const state = running
    ? 'running'
    : failed === total
      ? 'failed'
      : cancelled + failed === total
        ? 'cancelled'
        : 'succeeded';
  return (
    <div className="job-row" data-testid="tray-batch" data-state={state} data-jobs={total}>
      <div className={`job-row-icon job-row-icon-${state}`}>{TOOL_ICONS[jobs[0].tool]}</div>
      <div className="job-row-body">
        <div className="job-row-head">
          <Typography.Text strong ellipsis>
            {name || TOOL_LABELS[jobs[0].tool]}
          </Typography.Text>
          <StateTag job={{ ...jobs[0], state }} />
        </div>
        {running && (
          <Progress
            percent={percent}
            size="small"
            status="active"
            strokeColor={BRAND_COLOR}
            aria-label={`${name || TOOL_LABELS[jobs[0].tool]} progress`}
          />
        )}
        <Typography.Text type="secondary" className="job-row-note">
          {formatCount(done)} of {formatCount(total)} done
          {failed > 0 && ` · ${formatCount(failed)} failed, refunded`}
          {cancelled > 0 && ` · ${formatCount(cancelled)} cancelled, refunded`}
          <OpenFolderLink folderId={jobs[0].folderId} onOpen={onOpenFolder} />
        </Typography.Text>
        {running && (
          <div className="job-actions">
            <CancelBatchButton batchId={batchId} openJobs={jobs.filter(isActive)} />
          </div>
        )}
      </div>
    </div>
  );
}
