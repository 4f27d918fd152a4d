import { ProfileOutlined } from '@ant-design/icons';
import { JOB_STATE_LABELS, TOOL_LABELS, plural } from '@studio/contracts';
import { Button, Descriptions, Popover, Spin, Typography } from 'antd';
import { useState } from 'react';
import { Link } from 'react-router-dom';
import { editPath, inputsKept, TOOL_PATHS } from '../jobs/jobPaths';
import { readJob, type JobRead } from '../jobs/readJob';
import { formatWhen } from '../ui/formatWhen';

type Loaded = { status: 'idle' | 'loading' } | JobRead;

/**
 * "Job": the job that made an item (GET /api/jobs/{id}, read when first opened) — tool, state,
 * cost and times — with a link to that tool's screen.
 */
export function JobDetails({ jobId, zIndex }: { jobId: string; zIndex: number }) {
  const [loaded, setLoaded] = useState<Loaded>({ status: 'idle' });

  const load = (open: boolean) => {
    if (!open || loaded.status === 'loading' || loaded.status === 'ready') return;
    setLoaded({ status: 'loading' });
    void readJob(jobId).then(setLoaded);
  };

  return (
    <Popover
      trigger="click"
      title="The job that made it"
      zIndex={zIndex}
      onOpenChange={load}
      content={<JobSummary loaded={loaded} />}
    >
      <Button icon={<ProfileOutlined />}>Job</Button>
    </Popover>
  );
}

function JobSummary({ loaded }: { loaded: Loaded }) {
  if (loaded.status === 'failed') return <Typography.Text type="danger">{loaded.text}</Typography.Text>;
  if (loaded.status !== 'ready') return <Spin size="small" />;
  const { job } = loaded;
  return (
    <div data-testid="job-details" style={{ maxWidth: 320 }}>
      <Descriptions size="small" column={1}>
        <Descriptions.Item label="Tool">{TOOL_LABELS[job.tool]}</Descriptions.Item>
        <Descriptions.Item label="State">{JOB_STATE_LABELS[job.state]}</Descriptions.Item>
        <Descriptions.Item label="Cost">{plural(job.cost, 'credit')}</Descriptions.Item>
        <Descriptions.Item label="Started">{formatWhen(job.createdAt)}</Descriptions.Item>
        <Descriptions.Item label="Finished">{formatWhen(job.finishedAt)}</Descriptions.Item>
        <Descriptions.Item label="Job">
          <Typography.Text copyable code>
            {job._id}
          </Typography.Text>
        </Descriptions.Item>
      </Descriptions>
      <Link to={TOOL_PATHS[job.tool]}>Open {TOOL_LABELS[job.tool]}</Link>
      {inputsKept(job) && (
        <>
          {' · '}
          <Link to={editPath(job)}>Edit and run</Link>
        </>
      )}
    </div>
  );
}
