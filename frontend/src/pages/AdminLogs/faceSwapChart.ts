import type { AdminStats } from '@studio/contracts';
import { formatDollars } from '../../admin/format';

export const FACE_SWAP_SERIES = 'FaceSwaps';
export const FACE_SWAP_COLOR = '#f5222d';

export interface ChartPoint {
  day: string;
  faceSwaps: number;
  dollars: number;
  series: typeof FACE_SWAP_SERIES;
}

/** The chart's points: 30 days including today, oldest first, labelled day-month by the server. */
export function chartPoints(stats: AdminStats): ChartPoint[] {
  return stats.faceSwapsPerDay.map(({ day, faceSwaps, dollars }) => ({
    day,
    faceSwaps,
    dollars,
    series: FACE_SWAP_SERIES,
  }));
}

/** The tooltip's last line: the dollar amount of the hovered day (spec: chart tooltip footer). */
export function tooltipDollars(point: Pick<ChartPoint, 'dollars'>): { name: string; value: string } {
  return { name: 'Dollars', value: formatDollars(point.dollars) };
}

/** Where a tooltip sits and how big it is, in the coordinates of its offset parent. */
export interface TooltipBox {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The area it must stay in, in the same coordinates. */
export interface Area {
  left: number;
  top: number;
  width: number;
  height: number;
}

/**
 * Where the tooltip should go to stay inside `area`. The chart puts it `gap` px right of and below
 * the pointer; one that would stick out on the right (or the bottom) moves to the pointer's other
 * side, as the chart itself does when it knows the tooltip's size (it does not on the first hover),
 * or slides in when that side has no room either. Null when it already fits.
 */
export function placeInside(box: TooltipBox, area: Area, gap: number): { left: number; top: number } | null {
  const place = (start: number, size: number, areaStart: number, areaSize: number) => {
    const last = areaStart + areaSize - size;
    if (start > last) {
      const flipped = start - size - 2 * gap;
      return flipped >= areaStart ? flipped : Math.max(areaStart, last);
    }
    return start < areaStart ? areaStart : start;
  };
  const left = place(box.left, box.width, area.left, area.width);
  const top = place(box.top, box.height, area.top, area.height);
  return left === box.left && top === box.top ? null : { left, top };
}
