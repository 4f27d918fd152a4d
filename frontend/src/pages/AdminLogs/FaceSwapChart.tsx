import { Line } from '@ant-design/charts';
import type { AdminStats } from '@studio/contracts';
import { useMemo, useRef } from 'react';
import {
  chartPoints,
  FACE_SWAP_COLOR,
  FACE_SWAP_SERIES,
  tooltipDollars,
  type ChartPoint,
} from './faceSwapChart';
import { useTooltipInside } from './useTooltipInside';

/**
 * Face swaps per day, one red series named FaceSwaps; the tooltip adds the day's dollars and stays
 * inside the chart.
 */
export default function FaceSwapChart({ stats }: { stats: AdminStats }) {
  const data = useMemo(() => chartPoints(stats), [stats]);
  const frame = useRef<HTMLDivElement>(null);
  useTooltipInside(frame);
  return (
    <div ref={frame} className="face-swap-chart" data-testid="face-swap-chart">
      <Line
        data={data}
        height={300}
        xField="day"
        yField="faceSwaps"
        colorField="series"
        scale={{ color: { domain: [FACE_SWAP_SERIES], range: [FACE_SWAP_COLOR] } }}
        style={{ lineWidth: 2 }}
        point={{ shapeField: 'circle', sizeField: 3 }}
        axis={{ x: { title: false, labelAutoHide: true }, y: { title: false } }}
        legend={{ color: { position: 'top' } }}
        tooltip={{
          title: 'day',
          items: [{ channel: 'y', name: FACE_SWAP_SERIES }, (point: ChartPoint) => tooltipDollars(point)],
        }}
      />
    </div>
  );
}
