import type { JobView } from '@studio/contracts';
import { fireEvent, render, screen } from '@testing-library/react';
import { jobView } from '../test/jobs';
import { BeforeAfter } from './BeforeAfter';
import { beforeUrl } from './compareInput';

describe('BeforeAfter', () => {
  it('draws the input and the result in one box, with a slider the keyboard moves', () => {
    render(<BeforeAfter before="/api/jobs/j1/inputs/0" after="/api/content/out.png" aspect={2} />);
    expect(screen.getByAltText('Before (input)')).toHaveAttribute('src', '/api/jobs/j1/inputs/0');
    expect(screen.getByAltText('After (result)')).toHaveAttribute('src', '/api/content/out.png');
    const box = screen.getByTestId('before-after');
    expect(box.style.aspectRatio).toBe('2');
    // Both images fit the same box the same way: the input is drawn at the result's scale.
    for (const img of screen.getAllByRole('img')) expect(img).toHaveClass('before-after-image');

    const slider = screen.getByRole('slider');
    expect(slider).toHaveAttribute('aria-valuenow', '50');
    slider.focus();
    fireEvent.keyDown(slider, { key: 'ArrowRight' });
    expect(Number(slider.getAttribute('aria-valuenow'))).toBeGreaterThan(50);
    fireEvent.keyDown(slider, { key: 'ArrowLeft' });
    fireEvent.keyDown(slider, { key: 'ArrowLeft' });
    expect(Number(slider.getAttribute('aria-valuenow'))).toBeLessThan(50);
  });
});

describe('beforeUrl: the input a result was made from', () => {
  const done = (tool: JobView['tool'], inputCount: number, items = 1) =>
    jobView({
      tool,
      state: 'succeeded',
      inputCount,
      items: Array.from({ length: items }, (_, i) => ({
        _id: `i${i}`,
        url: `/c/${i}.png`,
        kind: 'image' as const,
        createdAt: '',
      })),
    });

  it('takes the target of a face swap, the original of Magic Brush and super resolution', () => {
    const swap = done('faceSwap', 2);
    expect(beforeUrl(swap, 0)).toBe(`/api/jobs/${swap._id}/inputs/1`);
    const brush = done('inpaint', 2);
    expect(beforeUrl(brush, 0)).toBe(`/api/jobs/${brush._id}/inputs/0`);
    const sr = done('superResolution', 1);
    expect(beforeUrl(sr, 0)).toBe(`/api/jobs/${sr._id}/inputs/0`);
  });

  it('maps each clone to its own original, and has nothing for generation or gone inputs', () => {
    const clones = done('clone', 2, 6);
    expect([0, 2, 3, 5].map((i) => beforeUrl(clones, i)?.slice(-1))).toEqual(['0', '0', '1', '1']);
    expect(beforeUrl(done('generate', 0), 0)).toBeNull();
    expect(beforeUrl(done('superResolution', 0), 0)).toBeNull();
  });
});
