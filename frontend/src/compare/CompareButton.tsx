import { SwapOutlined } from '@ant-design/icons';
import type { JobView } from '@studio/contracts';
import { Button, Modal, Spin, Typography } from 'antd';
import { useState, type MouseEvent } from 'react';
import { readJob, type JobRead } from '../jobs/readJob';
import { BeforeAfter } from './BeforeAfter';
import { beforeUrl, COMPARABLE_TOOLS } from './compareInput';

type Loaded = { status: 'loading' } | JobRead;

export interface CompareButtonProps {
  /** The job, when the caller has it (the result modal); otherwise it is read on the first press. */
  job?: JobView;
  jobId: string;
  /** Which result of the job (its items' order); by id when the caller has only the item. */
  itemIndex?: number;
  itemId?: string;
  /** Above antd's image preview when opened from the lightbox. */
  zIndex?: number;
  size?: 'small' | 'middle';
}

export const NO_INPUT_TEXT = 'This result has no stored input to compare with.';

/** "Compare": the result beside the input it was made from, on a before/after slider. */
export function CompareButton({ job, jobId, itemIndex, itemId, zIndex, size }: CompareButtonProps) {
  const [open, setOpen] = useState(false);
  const [loaded, setLoaded] = useState<Loaded>(job ? { status: 'ready', job } : { status: 'loading' });
  if (job && !canCompare(job)) return null;

  const show = (event: MouseEvent) => {
    // Inside the result modal a click elsewhere closes it: this one must not.
    event.stopPropagation();
    setOpen(true);
    if (loaded.status !== 'loading' || job) return;
    void readJob(jobId).then(setLoaded);
  };

  return (
    <>
      <Button size={size} icon={<SwapOutlined />} onClick={show} data-testid="compare-button">
        Compare
      </Button>
      <Modal
        open={open}
        title="Before and after"
        footer={null}
        width={900}
        zIndex={zIndex}
        centered
        destroyOnHidden
        onCancel={() => setOpen(false)}
        modalRender={(node) => <div onClick={(event) => event.stopPropagation()}>{node}</div>}
      >
        <CompareBody loaded={loaded} itemIndex={itemIndex} itemId={itemId} />
      </Modal>
    </>
  );
}

function CompareBody({ loaded, itemIndex, itemId }: { loaded: Loaded; itemIndex?: number; itemId?: string }) {
  if (loaded.status === 'loading') return <Spin />;
  if (loaded.status === 'failed') return <Typography.Text type="danger">{loaded.text}</Typography.Text>;
  const { job } = loaded;
  const byId = itemId ? job.items.findIndex((item) => item._id === itemId) : -1;
  const index = byId >= 0 ? byId : (itemIndex ?? 0);
  const after = job.items[index];
  const before = after && after.kind === 'image' ? beforeUrl(job, index) : null;
  if (!after || !before) return <Typography.Text type="secondary">{NO_INPUT_TEXT}</Typography.Text>;
  return (
    <>
      <BeforeAfter before={before} after={after.url} />
      <Typography.Paragraph type="secondary" style={{ marginTop: 8, marginBottom: 0 }}>
        Drag the handle, or focus it and use the arrow keys.
      </Typography.Paragraph>
    </>
  );
}

/** A finished job of a tool that edits an input, with its result and its inputs still stored. */
export function canCompare(job: JobView): boolean {
  return (
    job.state === 'succeeded' &&
    COMPARABLE_TOOLS.includes(job.tool) &&
    job.items[0]?.kind === 'image' &&
    beforeUrl(job, 0) !== null
  );
}
