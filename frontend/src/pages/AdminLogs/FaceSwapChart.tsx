import { Line } from '@ant-design/charts';
import type { AdminStats } from '@studio/contracts';
import { useMemo } from 'react';
import {
  chartPoints,
  FACE_SWAP_COLOR,
  FACE_SWAP_SERIES,
  tooltipDollars,
  type ChartPoint,
} from './faceSwapChart';

/** Face swaps per day, one red series named FaceSwaps; the tooltip adds the day's dollars. */
export default function FaceSwapChart({ stats }: { stats: AdminStats }) {
  const data = useMemo(() => chartPoints(stats), [stats]);
  return (
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
  );
}
