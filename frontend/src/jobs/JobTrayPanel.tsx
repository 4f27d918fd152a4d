import {
  CheckCircleFilled,
  CloseCircleFilled,
  CloseOutlined,
  CopyOutlined,
  ExpandOutlined,
  HighlightOutlined,
  PictureOutlined,
  SmileOutlined,
  SyncOutlined,
  ThunderboltOutlined,
  VideoCameraOutlined,
} from '@ant-design/icons';
import { formatCount, plural, TOOL_LABELS, type JobTool } from '@studio/contracts';
import { Button, Card, Empty, Progress, Tag, Typography } from 'antd';
import type { ReactNode } from 'react';
import { BRAND_COLOR } from '../ui/theme';
import { refundText } from './JobsProvider';
import { OpenFolderLink } from './OpenFolderLink';
import { batchProgress, isActive, trayRows, waitingText, type TrayJob } from './jobsState';

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
              <JobRow key={row.key} job={row.job} onOpenFolder={onClose} />
            ) : (
              <BatchRow key={row.key} name={row.name} jobs={row.jobs} onOpenFolder={onClose} />
            ),
          )}
        </div>
      )}
    </Card>
  );
}

function JobRow({ job, onOpenFolder }: { job: TrayJob; onOpenFolder(): void }) {
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
        <JobDetail job={job} onOpenFolder={onOpenFolder} />
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
  }
}

function JobDetail({ job, onOpenFolder }: { job: TrayJob; onOpenFolder(): void }) {
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
        <Typography.Text type="secondary" className="job-row-note">
          {job.state === 'queued' ? waitingText(job.position) : 'Working on it…'}
        </Typography.Text>
      </>
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
  return (
    <Typography.Text type="secondary" className="job-row-note">
      {plural(job.items.length, 'image')}
      <OpenFolderLink folderId={job.folderId} onOpen={onOpenFolder} />
    </Typography.Text>
  );
}

/** A bulk batch as one row: how many of its jobs are done, and their progress together. */
function BatchRow({ name, jobs, onOpenFolder }: { name: string; jobs: TrayJob[]; onOpenFolder(): void }) {
  const { done, failed, total, percent } = batchProgress(jobs);
  const running = done < total;
  const state = running ? 'running' : failed === total ? 'failed' : 'succeeded';
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
          <OpenFolderLink folderId={jobs[0].folderId} onOpen={onOpenFolder} />
        </Typography.Text>
      </div>
    </div>
  );
}
