import { InboxOutlined, LoadingOutlined } from '@ant-design/icons';
import { theme } from 'antd';
import { useState, type CSSProperties, type DragEvent, type ReactNode } from 'react';
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

/** A dropped file the input's `accept` takes (what antd's Upload let through). */
function accepted(file: File): boolean {
  return ACCEPTED_IMAGE_TYPES.split(',').includes(file.type);
}

/**
 * Drop or click to choose one image; shows the chosen image as a preview inside the zone, where a
 * new drop replaces it. A label around the file input (the input keeps the focus and the keyboard),
 * drawn like antd's Upload.Dragger from the theme's tokens: antd's Upload brings its file list
 * (Progress, Tooltip and, through them, Form) into the first load of every tool screen.
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
  const { token } = theme.useToken();
  const [dragging, setDragging] = useState(false);
  const colors = {
    '--dropzone-border': token.colorBorder,
    '--dropzone-border-active': token.colorPrimaryHover,
    '--dropzone-focus': token.colorPrimaryBorder,
    '--dropzone-icon': disabled ? token.colorTextDisabled : token.colorPrimary,
    '--dropzone-text': disabled ? token.colorTextDisabled : token.colorTextHeading,
    '--dropzone-hint': disabled ? token.colorTextDisabled : token.colorTextDescription,
    '--dropzone-icon-size': `${token.fontSizeHeading3 * 2}px`,
    '--dropzone-text-size': `${token.fontSizeLG}px`,
  } as CSSProperties;

  const over = (event: DragEvent) => {
    event.preventDefault();
    if (!disabled) setDragging(true);
  };
  const drop = (event: DragEvent) => {
    event.preventDefault();
    setDragging(false);
    const file = Array.from(event.dataTransfer.files).find(accepted);
    if (!disabled && file) onFile(file);
  };

  return (
    <label
      className={`image-dropzone${dragging ? ' image-dropzone-dragging' : ''}${disabled ? ' image-dropzone-disabled' : ''}`}
      style={{ ...colors, height }}
      onDragOver={over}
      onDragLeave={(event) => {
        if (!event.currentTarget.contains(event.relatedTarget as Node | null)) setDragging(false);
      }}
      onDrop={drop}
    >
      <input
        type="file"
        className="image-dropzone-input"
        accept={ACCEPTED_IMAGE_TYPES}
        aria-label={label}
        disabled={disabled}
        onChange={(event) => {
          const file = event.target.files?.[0];
          // Cleared, so choosing the same file again is a change too.
          event.target.value = '';
          if (file) onFile(file);
        }}
      />
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
        <div>
          <p className="image-dropzone-icon">{reading ? <LoadingOutlined /> : icon}</p>
          <p className="image-dropzone-text">{text}</p>
          {hint && <p className="image-dropzone-hint">{hint}</p>}
        </div>
      )}
    </label>
  );
}
