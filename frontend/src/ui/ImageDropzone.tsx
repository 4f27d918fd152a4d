import { InboxOutlined, LoadingOutlined } from '@ant-design/icons';
import { Upload } from 'antd';
import type { ReactNode } from 'react';
import { ACCEPTED_IMAGE_TYPES } from '../images/imageTypes';
import type { PickedImage } from '../images/scaleImage';

interface ImageDropzoneProps {
  /** The prompt shown while empty. */
  text: string;
  hint?: string;
  image: PickedImage | null;
  reading?: boolean;
  onFile(file: File): void;
  /** Accessible name of the file input and of the preview. */
  label: string;
  height?: number;
  disabled?: boolean;
  /** The picture shown while empty. */
  icon?: ReactNode;
}

/**
 * Drop or click to choose one image (antd Upload.Dragger, nothing uploaded by antd itself);
 * shows the chosen image as a preview inside the zone, where a new drop replaces it.
 */
export function ImageDropzone({
  text,
  hint,
  image,
  reading = false,
  onFile,
  label,
  height = 280,
  disabled = false,
  icon = <InboxOutlined />,
}: ImageDropzoneProps) {
  return (
    <Upload.Dragger
      className="image-dropzone"
      accept={ACCEPTED_IMAGE_TYPES}
      multiple={false}
      showUploadList={false}
      disabled={disabled}
      beforeUpload={(file) => {
        onFile(file);
        return Upload.LIST_IGNORE;
      }}
      height={height}
      aria-label={label}
    >
      {image ? (
        <div className="image-dropzone-preview">
          <img
            src={image.dataUrl}
            alt={`${label} preview`}
            data-testid="image-preview"
            // The zone's inner padding is 16 px on each side.
            style={{ maxHeight: height - 32 }}
          />
          <span className="image-dropzone-replace">Click or drop to replace</span>
        </div>
      ) : (
        <>
          <p className="ant-upload-drag-icon">{reading ? <LoadingOutlined /> : icon}</p>
          <p className="ant-upload-text">{text}</p>
          {hint && <p className="ant-upload-hint">{hint}</p>}
        </>
      )}
    </Upload.Dragger>
  );
}
