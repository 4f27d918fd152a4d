import { CheckCircleFilled, ClockCircleFilled, FolderOpenOutlined, StopOutlined } from '@ant-design/icons';
import { Modal, Progress, Spin, Typography } from 'antd';
import type { ReactNode } from 'react';
import { Link } from 'react-router-dom';
import { Paths } from '../paths';
import { BRAND_COLOR } from '../ui/theme';
import { JobActions } from './JobActions';
import { refundText } from './JobsProvider';
import { isActive, type TrayJob } from './jobsState';
import { openJobText } from './queueText';
import type { JobSubmission } from './useJobSubmission';
import { useNow } from './useNow';

export const ModalTexts = {
  generating: 'Generating...',
  success: 'Success!',
  later: 'Check Later!',
  cancelled: 'Cancelled',
} as const;

interface JobModalProps {
  submission: JobSubmission;
  /** The finished job's output (images) above 'Success!'. */
  renderResult(job: TrayJob, url: string | undefined): ReactNode;
  /** Clone: a click closes it at any time (the tray keeps following the job). Otherwise only once a message shows. */
  closableWhileGenerating?: boolean;
  /** Seconds left before the modal may close (Generate: 5 s after the request, spec section 4). */
  closeLockedSeconds?: number;
  width?: number;
}

const PROGRESS_COLOURS = { from: BRAND_COLOR, to: '#c084fc' };

/** The spec's generation modal: spinner 'Generating...' with live progress, then the outcome. */
export function JobModal({
  submission,
  renderResult,
  closableWhileGenerating = false,
  closeLockedSeconds = 0,
  width = 560,
}: JobModalProps) {
  const { state, job, progress, reset } = submission;
  // Cancelled here or in another tab: whatever the request still answers, the job has ended.
  const cancelled = job?.state === 'cancelled';
  // 'Check Later!' turns into the result when the job ends while the dialog is still open.
  const finishedLater = state.phase === 'processing' && job?.state === 'succeeded';
  const phase = cancelled ? 'cancelled' : finishedLater ? 'success' : state.phase;
  const hasMessage = phase === 'success' || phase === 'processing' || phase === 'cancelled';
  const locked = closeLockedSeconds > 0 && !cancelled;
  const closable = (hasMessage || closableWhileGenerating) && !locked;
  const close = () => {
    if (closable) reset();
  };
  const now = useNow(!!job && isActive(job) && job.etaAt !== undefined);

  return (
    <Modal
      open={state.phase !== 'idle'}
      footer={null}
      centered
      width={phase === 'success' ? width : 460}
      closable={closable}
      maskClosable={closable}
      keyboard={closable}
      onCancel={close}
      destroyOnHidden
    >
      <div
        className="job-modal"
        data-testid="job-modal"
        data-phase={phase}
        onClick={close}
        style={{ cursor: closable ? 'pointer' : 'default' }}
      >
        {phase === 'generating' && (
          <>
            <Spin size="large" />
            <Typography.Title level={3} className="job-modal-title">
              {ModalTexts.generating}
            </Typography.Title>
            <Progress
              percent={progress}
              status="active"
              strokeColor={PROGRESS_COLOURS}
              aria-label="Job progress"
              data-testid="job-progress"
            />
            <Typography.Text type="secondary" data-testid="job-wait">
              {!job ? 'Uploading…' : openJobText(job, now)}
            </Typography.Text>
            {job && isActive(job) && <ModalActions job={job} />}
            {closableWhileGenerating && (
              <Typography.Text type="secondary" className="job-modal-hint">
                You can close this window: the job tray keeps following the job.
              </Typography.Text>
            )}
          </>
        )}
        {phase === 'success' && (state.phase === 'success' || state.phase === 'processing') && (
          <>
            {renderResult(job ?? state.job, state.phase === 'success' ? state.url : undefined)}
            <Typography.Title level={3} className="job-modal-title">
              <CheckCircleFilled style={{ color: '#16a34a' }} /> {ModalTexts.success}
            </Typography.Title>
            <FolderLink folderId={state.job.folderId} />
            <ModalActions job={job ?? state.job} onNavigate={reset} />
            <CloseCountdown seconds={closeLockedSeconds} />
          </>
        )}
        {phase === 'cancelled' && job && (
          <>
            <StopOutlined className="job-modal-icon" />
            <Typography.Title level={3} className="job-modal-title">
              {ModalTexts.cancelled}
            </Typography.Title>
            <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
              {job.cancelledByStaff ? 'Our support team cancelled this job.' : 'The job was cancelled.'}{' '}
              {refundText(job.refunded)}
            </Typography.Paragraph>
            <ModalActions job={job} onNavigate={reset} />
          </>
        )}
        {phase === 'processing' && state.phase === 'processing' && (
          <>
            <ClockCircleFilled className="job-modal-icon" />
            <Typography.Title level={3} className="job-modal-title">
              {ModalTexts.later}
            </Typography.Title>
            <Typography.Paragraph type="secondary" style={{ margin: 0 }}>
              Your job is still running. The job tray shows its progress and the result lands in your folder.
            </Typography.Paragraph>
            <Progress
              percent={progress}
              status="active"
              strokeColor={PROGRESS_COLOURS}
              aria-label="Job progress"
            />
            {job && isActive(job) && (
              <Typography.Text type="secondary" data-testid="job-wait">
                {openJobText(job, now)}
              </Typography.Text>
            )}
            <FolderLink folderId={state.job.folderId} />
            <ModalActions job={job ?? state.job} onNavigate={reset} />
            <CloseCountdown seconds={closeLockedSeconds} />
          </>
        )}
      </div>
    </Modal>
  );
}

/** The job's buttons; a press on them (or their confirmations) does not close the modal. */
function ModalActions({ job, onNavigate }: { job: TrayJob; onNavigate?(): void }) {
  return (
    <div className="job-modal-actions" onClick={(event) => event.stopPropagation()}>
      <JobActions job={job} size="middle" onNavigate={onNavigate} />
    </div>
  );
}

function CloseCountdown({ seconds }: { seconds: number }) {
  if (seconds <= 0) return null;
  return (
    <Typography.Text type="secondary" data-testid="close-countdown">
      You can close this in {seconds} s
    </Typography.Text>
  );
}

function FolderLink({ folderId }: { folderId: string }) {
  if (!folderId) return null;
  return (
    <Link to={Paths.bulkInpaints(folderId)} data-testid="result-folder">
      <FolderOpenOutlined /> Open the folder
    </Link>
  );
}
