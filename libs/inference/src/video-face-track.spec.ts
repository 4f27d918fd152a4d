import type { DetectedFace } from './face-analyzer';
import { nearestFace } from './video-swap';

const face = (x: number, y: number, size: number): DetectedFace => ({
  box: [x, y, size, size],
  landmarks: [],
  score: 1,
});

describe('following the chosen face through a video', () => {
  it('takes the face nearest to where the followed one was, not the largest', () => {
    const followed = face(100, 100, 80);
    const larger = face(400, 80, 160);
    const moved = face(112, 96, 78);
    expect(nearestFace([larger, moved], followed.box)).toBe(moved);
  });

  it('takes none when every face is more than one face size away (the person left the frame)', () => {
    expect(nearestFace([face(400, 80, 160)], [100, 100, 80, 80])).toBeUndefined();
    expect(nearestFace([], [100, 100, 80, 80])).toBeUndefined();
  });
});
