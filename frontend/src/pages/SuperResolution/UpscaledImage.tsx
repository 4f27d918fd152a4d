import { Typography } from 'antd';
import { useState } from 'react';
import { ResultImage } from '../../compare/ResultImage';

/** The upscaled result with the size it came out at. */
export function UpscaledImage({ src, aspect }: { src: string; aspect?: number }) {
  const [size, setSize] = useState<{ width: number; height: number } | null>(null);
  return (
    <>
      <ResultImage
        aspect={aspect}
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
