import { ArrowLeftOutlined } from '@ant-design/icons';
import { ContentMessages, type ContentItem, type InpaintEntry } from '@studio/contracts';
import { Alert, Empty, Progress, Result, Space, Spin, Typography } from 'antd';
import { useState } from 'react';
import { Link, useParams } from 'react-router-dom';
import { apiDelete, errorText } from '../../api/client';
import { JustifiedGallery } from '../../gallery/JustifiedGallery';
import { Lightbox } from '../../gallery/Lightbox';
import { CancelBatchButton } from '../../jobs/JobActions';
import { isActive } from '../../jobs/jobsState';
import { useJobs } from '../../jobs/useJobs';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useToast } from '../../ui/toast';
import { downloadItem } from './downloadItem';
import { useFolderContents } from './useFolderContents';

/** Folder contents (spec section 2): its name, batch status, then the items as a gallery. */
export function FolderContentsPage() {
  // Logged out goes home (spec section 6) before the folder is asked for.
  return useRequireLogin({ to: Paths.home }) ? <FolderContentsScreen /> : null;
}

function FolderContentsScreen() {
  const { id } = useParams();
  const toast = useToast();
  const { state, setItems } = useFolderContents(id);
  const [open, setOpen] = useState<number | null>(null);

  if (state.status === 'loading')
    return <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />;
  if (state.status === 'failed') {
    return <Result status={state.notFound ? '404' : 'warning'} title={state.text} extra={<BackLink />} />;
  }

  const { inpaint, inpaints, title } = state.contents;
  // The spec hides items whose visible flag is defined (taken down or hidden).
  const items = inpaints.filter((item) => item.visible === undefined);
  const takenDown = inpaints.filter((item) => item.takedown);
  const statusLines = inpaint.filter((entry) => entry.title.includes('STATUS:') && entry.amount > 1);

  const remove = async (item: ContentItem) => {
    // The lightbox stays on the same place, now the next item; closed when none is left.
    if (items.length <= 1) setOpen(null);
    else if (open !== null && open >= items.length - 1) setOpen(items.length - 2);
    setItems((all) => all.filter((i) => i._id !== item._id));
    const result = await apiDelete(`/content/${item._id}`);
    if (result.ok) {
      toast.info(ContentMessages.deleted);
    } else {
      toast.error(errorText(result));
      setItems((all) => (all.some((i) => i._id === item._id) ? all : [item, ...all]));
    }
  };

  const download = async (item: ContentItem) => {
    const result = await downloadItem(item);
    if (!result.ok) toast.error(result.text);
  };

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <BackLink />
      <Typography.Title level={2} style={{ margin: 0, overflowWrap: 'anywhere' }}>
        {title ?? 'Folder'}
      </Typography.Title>
      <StatusLines entries={statusLines} />
      <TakenDownNotices items={takenDown} />
      {inpaint.length === 0 && items.length === 0 ? (
        <Empty description={ContentMessages.noInpaints} />
      ) : items.length === 0 ? (
        <Alert type="info" showIcon message={ContentMessages.processing} />
      ) : (
        <JustifiedGallery items={items} onOpen={setOpen} />
      )}
      <Lightbox
        items={items}
        current={open}
        onChange={setOpen}
        onDownload={(item) => void download(item)}
        onDelete={(item) => void remove(item)}
      />
    </Space>
  );
}

function BackLink() {
  return (
    <Link to={Paths.profile}>
      <ArrowLeftOutlined /> Back to your folders
    </Link>
  );
}

/** Items an admin took down: hidden from the grid, but the owner reads why. */
function TakenDownNotices({ items }: { items: ContentItem[] }) {
  if (items.length === 0) return null;
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      {items.map((item) => (
        <Alert
          key={item._id}
          type="warning"
          showIcon
          data-testid="takedown-notice"
          message={`${item.title ?? ContentMessages.noTitle}: ${ContentMessages.takenDown.toLowerCase()}`}
          description={item.takedown!.reason}
        />
      ))}
    </Space>
  );
}

/**
 * A running batch's status line ('STATUS: name: 3 of 12 done'), with a bar when it says how far,
 * and Cancel for the images not made yet (the batch entry's id is the jobs' batch id).
 */
function StatusLines({ entries }: { entries: InpaintEntry[] }) {
  const { jobs } = useJobs();
  if (entries.length === 0) return null;
  return (
    <Space direction="vertical" style={{ width: '100%' }}>
      {entries.map((entry) => {
        // The counts end the line; the batch name before them is the user's own text.
        const counts = /(\d+) of (\d+) done$/.exec(entry.title);
        const batchJobs = jobs.filter((job) => job.batch?.id === entry._id);
        const open = batchJobs.filter(isActive);
        // Jobs the tray no longer lists (older than its last few) may still be open: ask the server.
        const cancellable = open.length > 0 || batchJobs.length === 0;
        return (
          <div key={entry._id} data-testid="batch-status">
            <div className="batch-status-head">
              <Typography.Text type="secondary">{entry.title}</Typography.Text>
              {cancellable && <CancelBatchButton batchId={entry._id} openJobs={open} />}
            </div>
            {counts && (
              <Progress
                percent={Math.round((Number(counts[1]) / Number(counts[2])) * 100)}
                size="small"
                status="active"
              />
            )}
          </div>
        );
      })}
    </Space>
  );
}
