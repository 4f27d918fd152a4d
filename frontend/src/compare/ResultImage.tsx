import { useState, type ImgHTMLAttributes } from 'react';
import './compare.css';

/**
 * A result image that takes its final size before it has loaded: a box of the result's shape
 * (known from the input the page holds) with a loading shimmer, so the result modal does not open
 * as a blank area and then jump.
 */
export function ResultImage({
  aspect,
  className,
  onLoad,
  ...img
}: ImgHTMLAttributes<HTMLImageElement> & { src: string; alt: string; aspect?: number }) {
  const [loaded, setLoaded] = useState(false);
  return (
    <img
      {...img}
      className={['job-result-image', loaded ? '' : 'result-image-loading', className]
        .filter(Boolean)
        .join(' ')}
      data-loaded={loaded}
      style={aspect ? { width: '100%', aspectRatio: String(aspect), objectFit: 'contain' } : undefined}
      onLoad={(event) => {
        setLoaded(true);
        onLoad?.(event);
      }}
    />
  );
}
