import { DeleteOutlined, DownloadOutlined } from '@ant-design/icons';
import { ContentMessages, type ContentItem } from '@studio/contracts';
import { Button, Image, Popconfirm, Space } from 'antd';
import { CompareButton } from '../compare/CompareButton';
import { ProvenanceLabel } from '../provenance/ProvenanceLabel';
import { JobDetails } from './JobDetails';
import './gallery.css';

/** antd's image preview sits at z-index 1080; its own pop-ups must open above it. */
const ABOVE_PREVIEW = 1100;

export interface LightboxProps {
  items: ContentItem[];
  /** The index of the item shown; null when closed. */
  current: number | null;
  /** Another item (← →, the arrows) or null (Esc, the close button). */
  onChange(index: number | null): void;
  onDownload(item: ContentItem): void;
  /** Called once the owner confirmed. */
  onDelete(item: ContentItem): void;
}

/**
 * The full item over the page: antd's Image.PreviewGroup (keys ← → and Esc, zoom and rotate for
 * images) with a video player in place of the image for videos, and the item's own actions:
 * download, the job that made it, delete after a confirmation.
 */
export function Lightbox({ items, current, onChange, onDownload, onDelete }: LightboxProps) {
  const open = current !== null && items.length > 0;
  const index = Math.min(current ?? 0, Math.max(items.length - 1, 0));
  return (
    <Image.PreviewGroup
      items={items.map((item) => ({ src: item.url, alt: item.title ?? ContentMessages.noTitle }))}
      preview={{
        rootClassName: 'lightbox',
        visible: open,
        current: index,
        onVisibleChange: (visible) => {
          if (!visible) onChange(null);
        },
        onChange: (next) => onChange(next),
        imageRender: (original, { current: at }) => {
          const item = items[at];
          if (item?.kind !== 'video') return original;
          // The content route answers Range requests, so the player can seek.
          return (
            <video
              key={item._id}
              className="lightbox-video"
              data-testid="lightbox-video"
              src={item.url}
              controls
              autoPlay
              playsInline
            />
          );
        },
        toolbarRender: (original, { current: at }) => {
          const item = items[at];
          if (!item) return original;
          return (
            <Space direction="vertical" align="center" className="lightbox-bar" data-testid="lightbox-bar">
              <Space align="center">
                <span className="lightbox-title">{item.title ?? ContentMessages.noTitle}</span>
                <ProvenanceLabel item={item} />
              </Space>
              {item.kind === 'image' && original}
              <Space wrap align="center" style={{ justifyContent: 'center' }}>
                <Button icon={<DownloadOutlined />} onClick={() => onDownload(item)}>
                  Download
                </Button>
                {item.jobId && <JobDetails jobId={item.jobId} zIndex={ABOVE_PREVIEW} />}
                {item.jobId && item.kind === 'image' && (
                  <CompareButton jobId={item.jobId} itemId={item._id} zIndex={ABOVE_PREVIEW} />
                )}
                <Popconfirm
                  title="Delete this item?"
                  description="Its file is removed for good."
                  okText="Delete"
                  okButtonProps={{ danger: true }}
                  zIndex={ABOVE_PREVIEW}
                  onConfirm={() => onDelete(item)}
                >
                  <Button danger icon={<DeleteOutlined />}>
                    Delete
                  </Button>
                </Popconfirm>
              </Space>
            </Space>
          );
        },
      }}
    />
  );
}
