import { Typography } from 'antd';
import { useState } from 'react';

/** The upscaled result with the size it came out at. */
export function UpscaledImage({ src }: { src: string }) {
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  return (
    <>
      <img
        className="job-result-image"
        src={src}
        alt="Super resolution result"
        onLoad={(e) =>
          setSize({ width: e.currentTarget.naturalWidth, height: e.currentTarget.naturalHeight })
        }
      />
      {size && (
        <Typography.Text type="secondary" data-testid="upscaled-size">
          {size.width} × {size.height} px
        </Typography.Text>
      )}
    </>
  );
}
