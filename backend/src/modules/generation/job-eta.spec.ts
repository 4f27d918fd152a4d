import sharp from 'sharp';
import { DEFAULT_SECONDS_PER_WORK, jobWork, median, placesIn, type Line } from './job-eta';

describe('estimated times of a line', () => {
  const now = 1_000_000;
  const line = (over: Partial<Line>): Line => ({
    tool: 'superResolution',
    waiting: [],
    waitingTotal: 0,
    running: [],
    others: [],
    rates: {},
    ...over,
  });

  it('adds up the work ahead, shared by the lanes, and the job its own; measured rates replace defaults', () => {
    const places = placesIn(
      line({
        // Runs at 10 s per megapixel at 2x (measured); half done after 5 s: 5 s left.
        rates: { 'superResolution:2': 10 },
        running: [{ jobId: 'r', work: 1, bucket: 'superResolution:2', progress: 50, startedAt: now - 5000 }],
        waiting: [
          { jobId: 'w1', work: 2, bucket: 'superResolution:2' }, // 20 s
          { jobId: 'w2', work: 0.5, bucket: 'superResolution:4' }, // no measurement: the default
        ],
        waitingTotal: 2,
      }),
      1,
      now,
    );
    expect(places.get('r')).toEqual({ etaSeconds: 5 });
    expect(places.get('w1')).toEqual({ position: 1, etaSeconds: 5 + 20 });
    expect(places.get('w2')).toEqual({
      position: 2,
      etaSeconds: Math.ceil(5 + 20 + 0.5 * DEFAULT_SECONDS_PER_WORK.superResolution),
    });

    // Two lanes: the work ahead is shared.
    const two = placesIn(
      line({
        rates: { 'superResolution:2': 10 },
        waiting: [1, 2, 3].map((i) => ({ jobId: `w${i}`, work: 1, bucket: 'superResolution:2' })),
        waitingTotal: 3,
      }),
      2,
      now,
    );
    expect([1, 2, 3].map((i) => two.get(`w${i}`)?.etaSeconds)).toEqual([10, 15, 20]);
  });

  it('places a job beyond the window by the mean of the window, and one between attempts near the front', () => {
    const places = placesIn(
      line({
        rates: { 'superResolution:2': 10 },
        waiting: [{ jobId: 'w1', work: 1, bucket: 'superResolution:2' }],
        waitingTotal: 5,
        others: [
          { jobId: 'deep', work: 1, bucket: 'superResolution:2', position: 5 },
          { jobId: 'retrying', work: 1, bucket: 'superResolution:2' },
        ],
      }),
      1,
      now,
    );
    expect(places.get('deep')).toEqual({ position: 5, etaSeconds: 10 + 3 * 10 + 10 });
    expect(places.get('retrying')).toEqual({ etaSeconds: 10 });
  });

  it('sizes work by megapixels (at least 0.1 per image), copies and video seconds', async () => {
    const png = (w: number, h: number) =>
      sharp({ create: { width: w, height: h, channels: 3, background: '#000' } })
        .png()
        .toBuffer();
    const big = { data: await png(1000, 500) };
    const small = { data: await png(20, 20) };
    expect(jobWork('superResolution', [big], 2)).toBeCloseTo(0.5);
    expect(jobWork('clone', [big], 3)).toBeCloseTo(1.5);
    expect(jobWork('faceSwap', [small, big], 1)).toBeCloseTo(0.5);
    expect(jobWork('inpaint', [small, small], 1)).toBeCloseTo(0.1);
    expect(jobWork('faceSwapVideo', [], 12)).toBe(12);
    expect(median([5, 1, 100, 2, 3])).toBe(3);
    expect(median([])).toBeUndefined();
  });
});
