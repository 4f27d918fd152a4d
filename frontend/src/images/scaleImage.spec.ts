import { fitWithin } from './scaleImage';

describe('fitWithin', () => {
  it('keeps an image that already fits', () => {
    expect(fitWithin(800, 600)).toEqual({ width: 800, height: 600 });
    expect(fitWithin(1024, 1024)).toEqual({ width: 1024, height: 1024 });
  });

  it('scales the longer side down to 1024 and keeps the proportions', () => {
    expect(fitWithin(2048, 1024)).toEqual({ width: 1024, height: 512 });
    expect(fitWithin(939, 1280)).toEqual({ width: 751, height: 1024 });
    expect(fitWithin(4000, 3000)).toEqual({ width: 1024, height: 768 });
  });

  it('honours another limit and never makes a side zero', () => {
    expect(fitWithin(600, 300, 256)).toEqual({ width: 256, height: 128 });
    expect(fitWithin(5000, 2, 1024)).toEqual({ width: 1024, height: 1 });
  });
});
