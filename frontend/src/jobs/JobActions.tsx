import { EditOutlined, RedoOutlined, StopOutlined } from '@ant-design/icons';
import { formatCount, JobMessages, Messages, plural, type JobView } from '@studio/contracts';
import { Button, Popconfirm, Space, Tooltip } from 'antd';
import { useRef, useState, type ReactNode } from 'react';
import { useNavigate } from 'react-router-dom';
import { CompareButton } from '../compare/CompareButton';
import { useSession } from '../session/useSession';
import { editPath, inputsKept } from './jobPaths';
import { isActive } from './jobsState';
import { useJobs } from './useJobs';

type ButtonSize = 'small' | 'middle';

const refundedInFull = (credits: number) =>
  `${plural(credits, 'credit')} ${credits === 1 ? 'is' : 'are'} refunded in full.`;

/** Cancel a waiting or running job, after a confirmation that says what comes back. */
export function CancelJobButton({ job, size = 'small' }: { job: JobView; size?: ButtonSize }) {
  const { cancel } = useJobs();
  return (
    <Popconfirm
      title="Cancel this job?"
      description={
        job.state === 'queued'
          ? `It leaves the queue and its ${refundedInFull(job.cost)}`
          : `It stops now and its ${refundedInFull(job.cost)}`
      }
      okText="Cancel job"
      cancelText="Keep it"
      okButtonProps={{ danger: true }}
      onConfirm={() => cancel(job._id)}
    >
      <Button size={size} danger icon={<StopOutlined />} data-testid="cancel-job">
        Cancel
      </Button>
    </Popconfirm>
  );
}

/**
 * Cancel the open jobs of a bulk batch. What finished stays; the jobs not done yet are refunded
 * (their total when the tray knows them).
 */
export function CancelBatchButton({
  batchId,
  openJobs,
  size = 'small',
}: {
  batchId: string;
  openJobs: JobView[];
  size?: ButtonSize;
}) {
  const { cancelBatch } = useJobs();
  const credits = openJobs.reduce((sum, job) => sum + job.cost, 0);
  return (
    <Popconfirm
      title="Cancel the rest of this batch?"
      description={
        openJobs.length > 0
          ? `The ${plural(openJobs.length, 'image')} not made yet ${openJobs.length === 1 ? 'is' : 'are'} dropped and ${plural(credits, 'credit')} refunded. Finished images stay.`
          : 'The images not made yet are dropped and refunded. Finished images stay.'
      }
      okText="Cancel batch"
      cancelText="Keep it"
      okButtonProps={{ danger: true }}
      onConfirm={() => cancelBatch(batchId)}
    >
      <Button size={size} danger icon={<StopOutlined />} data-testid="cancel-batch">
        Cancel
      </Button>
    </Popconfirm>
  );
}

/**
 * "Run again": the same inputs and settings, charged again once the user confirms the price (and
 * sees the balance). When the price has changed since, the server says so and the user is asked
 * again with the new one.
 */
export function RunAgainButton({ job, size = 'small' }: { job: JobView; size?: ButtonSize }) {
  const { retry } = useJobs();
  const { balance } = useSession();
  const [open, setOpen] = useState(false);
  const [price, setPrice] = useState(job.cost);
  const [changed, setChanged] = useState(false);
  // Set when the server named a new price: the confirmation stays open to ask again.
  const askAgain = useRef(false);
  const short = balance !== null && price > balance;

  const confirm = async () => {
    const outcome = await retry(job._id, price);
    if (outcome.kind === 'priceChanged') {
      askAgain.current = true;
      setPrice(outcome.cost);
      setChanged(true);
    }
  };

  const button = (
    <Button size={size} icon={<RedoOutlined />} disabled={!inputsKept(job)} data-testid="run-again">
      Run again
    </Button>
  );
  if (!inputsKept(job)) return <InputsGone>{button}</InputsGone>;
  return (
    <Popconfirm
      open={open}
      onOpenChange={(next) => {
        if (!next && askAgain.current) {
          askAgain.current = false;
          return;
        }
        if (next) {
          setPrice(job.cost);
          setChanged(false);
        }
        setOpen(next);
      }}
      title={changed ? 'The price has changed' : 'Run this job again?'}
      description={
        <span data-testid="run-again-price">
          {changed ? 'It now costs ' : 'The same inputs and settings, for '}
          {plural(price, 'credit')}. Your balance is {formatCount(balance ?? 0)}.
          {short && <> {Messages.notEnoughCredits}</>}
        </span>
      }
      okText={`Run for ${plural(price, 'credit')}`}
      cancelText="Not now"
      okButtonProps={{ disabled: short }}
      onConfirm={confirm}
    >
      {button}
    </Popconfirm>
  );
}

/** "Edit and run": the tool's screen, pre-filled with this job's inputs and settings. */
export function EditAndRunButton({
  job,
  size = 'small',
  onOpen,
}: {
  job: JobView;
  size?: ButtonSize;
  onOpen?(): void;
}) {
  const navigate = useNavigate();
  if (!inputsKept(job)) {
    return (
      <InputsGone>
        <Button size={size} icon={<EditOutlined />} disabled data-testid="edit-and-run">
          Edit and run
        </Button>
      </InputsGone>
    );
  }
  return (
    <Button
      size={size}
      icon={<EditOutlined />}
      data-testid="edit-and-run"
      onClick={() => {
        onOpen?.();
        navigate(editPath(job));
      }}
    >
      Edit and run
    </Button>
  );
}

/** Why a button is disabled; a disabled button gets no pointer events, so its wrapper has the tooltip. */
function InputsGone({ children }: { children: ReactNode }) {
  return (
    <Tooltip title={JobMessages.inputsGone}>
      <span className="job-action-disabled">{children}</span>
    </Tooltip>
  );
}

/** Cancel while the job is open; Compare (when it edits an input), Run again and Edit and run once it has ended. */
export function JobActions({
  job,
  size = 'small',
  onNavigate,
}: {
  job: JobView;
  size?: ButtonSize;
  /** Called when Edit and run leaves the page (the tray folds away). */
  onNavigate?(): void;
}) {
  return (
    <Space size={6} wrap className="job-actions" data-testid="job-actions">
      {isActive(job) ? (
        <CancelJobButton job={job} size={size} />
      ) : (
        <>
          <CompareButton job={job} jobId={job._id} size={size} />
          <RunAgainButton job={job} size={size} />
          <EditAndRunButton job={job} size={size} onOpen={onNavigate} />
        </>
      )}
    </Space>
  );
}
