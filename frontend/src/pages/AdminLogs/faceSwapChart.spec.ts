import { placeInside } from './faceSwapChart';

const AREA = { left: 20, top: 40, width: 1000, height: 300 };
const GAP = 10;

describe('placeInside', () => {
  it('leaves a tooltip that fits where the chart put it', () => {
    expect(placeInside({ left: 500, top: 100, width: 150, height: 80 }, AREA, GAP)).toBeNull();
    expect(placeInside({ left: 870, top: 260, width: 150, height: 80 }, AREA, GAP)).toBeNull();
  });

  it("moves one sticking out on the right to the pointer's left side", () => {
    // Pointer at x=1000: the chart put the tooltip at 1010, 140 px of it past the right edge.
    expect(placeInside({ left: 1010, top: 100, width: 150, height: 80 }, AREA, GAP)).toEqual({
      left: 1000 - GAP - 150,
      top: 100,
    });
  });

  it('moves one sticking out at the bottom above the pointer', () => {
    expect(placeInside({ left: 500, top: 310, width: 150, height: 80 }, AREA, GAP)).toEqual({
      left: 500,
      top: 300 - GAP - 80,
    });
  });

  it('slides in from an edge when the other side of the pointer has no room either', () => {
    // Wider than the space left of the pointer: flush with the right edge instead.
    expect(placeInside({ left: 200, top: 100, width: 900, height: 80 }, AREA, GAP)).toEqual({
      left: AREA.left + AREA.width - 900,
      top: 100,
    });
    expect(placeInside({ left: 5, top: 10, width: 150, height: 80 }, AREA, GAP)).toEqual({
      left: AREA.left,
      top: AREA.top,
    });
  });
});
