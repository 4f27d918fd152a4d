import { fireEvent, render, screen } from '@testing-library/react';
import { ResultImage } from './ResultImage';

describe('ResultImage', () => {
  it('takes the final shape before it loads, with a placeholder until then', () => {
    render(<ResultImage src="/api/content/r.png" alt="Inpaint result" aspect={1.5} />);
    const img = screen.getByAltText('Inpaint result');
    expect(img.style.aspectRatio).toBe('1.5');
    expect(img.style.width).toBe('100%');
    expect(img).toHaveClass('result-image-loading');
    fireEvent.load(img);
    expect(img).not.toHaveClass('result-image-loading');
    expect(img).toHaveAttribute('data-loaded', 'true');
  });
});
