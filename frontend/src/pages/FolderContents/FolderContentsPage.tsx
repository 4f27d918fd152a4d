import { ArrowLeftOutlined, DeleteOutlined } from '@ant-design/icons';
import { ContentMessages, type ContentItem, type InpaintEntry } from '@studio/contracts';
import { Alert, Button, Card, Empty, List, Result, Space, Spin, Typography } from 'antd';
import { Link, useParams } from 'react-router-dom';
import { apiGet, errorText } from '../../api/client';
import { Paths } from '../../paths';
import { useRequireLogin } from '../../session/useRequireLogin';
import { useToast } from '../../ui/toast';
import { downloadItem } from './downloadItem';
import { useFolderContents } from './useFolderContents';

const PAGE_SIZE = 24;

/** Folder contents (spec section 2): inpaint status, then the items as a paged grid of previews. */
export function FolderContentsPage() {
  // Logged out goes home (spec section 6) before the folder is asked for.
  return useRequireLogin({ to: Paths.home }) ? <FolderContentsScreen /> : null;
}

function FolderContentsScreen() {
  const { id } = useParams();
  const toast = useToast();
  const { state, setItems } = useFolderContents(id);

  if (state.status === 'loading')
    return <Spin size="large" style={{ display: 'block', margin: '64px auto' }} />;
  if (state.status === 'failed') {
    return <Result status={state.notFound ? '404' : 'warning'} title={state.text} />;
  }

  const { inpaint, inpaints } = state.contents;
  // The spec hides items whose visible flag is defined (taken down or hidden).
  const items = inpaints.filter((item) => item.visible === undefined);
  const takenDown = inpaints.filter((item) => item.takedown);
  const statusLines = inpaint.filter((entry) => entry.title.includes('STATUS:') && entry.amount > 1);

  const remove = async (item: ContentItem) => {
    setItems((all) => all.filter((i) => i._id !== item._id));
    toast.info(ContentMessages.deleted);
    const result = await apiGet(`/deleteGen/${item._id}`);
    if (!result.ok) {
      toast.error(errorText(result));
      setItems((all) => [item, ...all]);
    }
  };

  const download = async (item: ContentItem) => {
    const result = await downloadItem(item);
    if (!result.ok) toast.error(result.text);
  };

  return (
    <Space direction="vertical" size="large" style={{ width: '100%' }}>
      <Link to={Paths.profile}>
        <ArrowLeftOutlined /> Back to your folders
      </Link>
      <StatusLines entries={statusLines} />
      <TakenDownNotices items={takenDown} />
      {inpaint.length === 0 && items.length === 0 ? (
        <Empty description={ContentMessages.noInpaints} />
      ) : items.length === 0 ? (
        <Alert type="info" showIcon message={ContentMessages.processing} />
      ) : (
        <List
          grid={{ gutter: 16, column: 4, xs: 1, sm: 2, md: 3, lg: 4, xl: 4, xxl: 6 }}
          dataSource={items}
          pagination={items.length > PAGE_SIZE ? { pageSize: PAGE_SIZE, showSizeChanger: false } : false}
          renderItem={(item) => (
            <List.Item>
              <ItemCard item={item} onOpen={() => void download(item)} onDelete={() => void remove(item)} />
            </List.Item>
          )}
        />
      )}
    </Space>
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

function StatusLines({ entries }: { entries: InpaintEntry[] }) {
  if (entries.length === 0) return null;
  return (
    <Space direction="vertical">
      {entries.map((entry) => (
        <Typography.Text key={entry._id} type="secondary">
          {entry.title}
        </Typography.Text>
      ))}
    </Space>
  );
}

function ItemCard({ item, onOpen, onDelete }: { item: ContentItem; onOpen(): void; onDelete(): void }) {
  const isVideo = item.url.includes('.mp4');
  return (
    <Card
      hoverable
      data-testid="content-item"
      cover={
        <div
          onClick={onOpen}
          role="button"
          aria-label={`Download ${item.title ?? ContentMessages.noTitle}`}
          style={{ cursor: 'pointer' }}
        >
          {isVideo ? (
            <video
              src={item.url}
              preload="metadata"
              muted
              style={{ width: '100%', aspectRatio: '1', objectFit: 'cover' }}
            />
          ) : (
            <img
              src={item.url}
              alt={item.title ?? ContentMessages.noTitle}
              loading="lazy"
              style={{ width: '100%', aspectRatio: '1', objectFit: 'cover' }}
            />
          )}
        </div>
      }
      actions={[
        <Button key="delete" type="text" danger icon={<DeleteOutlined />} onClick={onDelete}>
          Delete
        </Button>,
      ]}
    >
      <Card.Meta title={item.title ?? ContentMessages.noTitle} />
    </Card>
  );
}
