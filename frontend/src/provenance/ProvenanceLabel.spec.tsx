import { render, screen } from '@testing-library/react';
import type { ContentItem } from '@studio/contracts';
import { isAltered, ProvenanceLabel } from './ProvenanceLabel';

const item = (over: Partial<ContentItem>): ContentItem => ({
  _id: 'i1',
  url: '/api/content/i1.png',
  kind: 'image',
  createdAt: '2026-11-26T12:00:00Z',
  ...over,
});

describe('ProvenanceLabel', () => {
  it('labels a job output AI-generated, a face swap (image or video, numbered or not) AI-altered', () => {
    render(<ProvenanceLabel item={item({ jobId: 'j1', title: 'Clones 2' })} />);
    expect(screen.getByTestId('ai-label')).toHaveTextContent('AI-generated');
    expect(isAltered(item({ jobId: 'j1', title: 'Face swap' }))).toBe(true);
    expect(isAltered(item({ jobId: 'j1', title: 'Face swap 3' }))).toBe(true);
    expect(isAltered(item({ jobId: 'j1', title: 'Video face swap', kind: 'video' }))).toBe(true);
    expect(isAltered(item({ jobId: 'j1', title: 'Face swapped by hand' }))).toBe(false);
  });

  it('shows AI-altered on a face swap and nothing on an item no job made', () => {
    const { rerender } = render(<ProvenanceLabel item={item({ jobId: 'j1', title: 'Face swap' })} />);
    expect(screen.getByTestId('ai-label')).toHaveTextContent('AI-altered');
    rerender(<ProvenanceLabel item={item({ title: 'My upload' })} />);
    expect(screen.queryByTestId('ai-label')).not.toBeInTheDocument();
  });
});
