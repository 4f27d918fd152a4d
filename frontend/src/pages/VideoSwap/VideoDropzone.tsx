import { LoadingOutlined, VideoCameraOutlined } from '@ant-design/icons';
import { Upload } from 'antd';
import { useEffect, useState } from 'react';

/** Video types the swap accepts (mp4, webm, mov) for the file input. */
export const ACCEPTED_VIDEO_TYPES = 'video/mp4,video/webm,video/quicktime,.mp4,.webm,.mov';

interface VideoDropzoneProps {
  file: File | null;
  onFile(file: File): void;
  /** The video's length in seconds, read by the browser from the file's metadata. */
  onDuration(seconds: number | null): void;
  label: string;
  height?: number;
}

/**
 * Drop or click to choose a video; the chosen one previews inside the zone (its first frame), and
 * its metadata gives the duration the price is computed from. The server measures again.
 */
export function VideoDropzone({ file, onFile, onDuration, label, height = 280 }: VideoDropzoneProps) {
  const [url, setUrl] = useState<string | null>(null);

  useEffect(() => {
    if (!file) return;
    const objectUrl = URL.createObjectURL(file);
    setUrl(objectUrl);
    return () => {
      URL.revokeObjectURL(objectUrl);
      setUrl(null);
    };
  }, [file]);

  return (
    <Upload.Dragger
      className="image-dropzone"
      accept={ACCEPTED_VIDEO_TYPES}
      multiple={false}
      showUploadList={false}
      beforeUpload={(chosen) => {
        onDuration(null);
        onFile(chosen);
        return Upload.LIST_IGNORE;
      }}
      height={height}
      aria-label={label}
    >
      {file ? (
        <div className="image-dropzone-preview">
          {url ? (
            <video
              src={url}
              muted
              playsInline
              preload="metadata"
              aria-label={`${label} preview`}
              data-testid="video-preview"
              style={{ maxHeight: height - 32 }}
              onLoadedMetadata={(e) => {
                const seconds = e.currentTarget.duration;
                onDuration(Number.isFinite(seconds) ? seconds : null);
              }}
              onError={() => onDuration(null)}
            />
          ) : (
            <LoadingOutlined />
          )}
          <span className="image-dropzone-replace">Click or drop to replace</span>
        </div>
      ) : (
        <>
          <p className="ant-upload-drag-icon">
            <VideoCameraOutlined />
          </p>
          <p className="ant-upload-text">Drop the video here</p>
          <p className="ant-upload-hint">MP4, WebM or MOV, up to 30 seconds.</p>
        </>
      )}
    </Upload.Dragger>
  );
}
