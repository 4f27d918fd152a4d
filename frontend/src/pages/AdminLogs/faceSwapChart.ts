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
