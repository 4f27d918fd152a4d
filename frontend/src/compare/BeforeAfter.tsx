import { ReactCompareSlider, ReactCompareSliderImage } from 'react-compare-slider';
import { useState } from 'react';
import './compare.css';

export interface BeforeAfterProps {
  before: string;
  after: string;
  /** Width / height of the result: both images are drawn in one box of this shape. */
  aspect?: number;
}

/**
 * A slider over the input and the result (react-compare-slider: drag, touch, and the arrow keys on
 * its handle, which is a focusable role="slider"). Both images fill the same box at the same scale,
 * so an upscaled result lines up with its smaller input pixel for pixel.
 */
export function BeforeAfter({ before, after, aspect }: BeforeAfterProps) {
  const [shape, setShape] = useState<number | undefined>(aspect);
  const [position, setPosition] = useState(50);
  return (
    <div
      className="before-after"
      data-testid="before-after"
      data-position={Math.round(position)}
      style={{ aspectRatio: String(shape ?? 1), ['--before-after-aspect' as string]: String(shape ?? 1) }}
    >
      <ReactCompareSlider
        aria-label="Compare the input with the result"
        keyboardIncrement="5%"
        onPositionChange={setPosition}
        itemOne={<ReactCompareSliderImage src={before} alt="Before (input)" className="before-after-image" />}
        itemTwo={
          <ReactCompareSliderImage
            src={after}
            alt="After (result)"
            className="before-after-image"
            onLoad={(event) => {
              const img = event.currentTarget;
              if (!aspect && img.naturalWidth && img.naturalHeight)
                setShape(img.naturalWidth / img.naturalHeight);
            }}
          />
        }
        style={{ width: '100%', height: '100%' }}
      />
      <span className="before-after-label before-after-label-left">Before</span>
      <span className="before-after-label before-after-label-right">After</span>
    </div>
  );
}
