import { Column } from '@ant-design/charts';
import type { ApiKeyUsage, ApiKeyView } from '@studio/contracts';
import { useMemo } from 'react';
import { usagePoints } from './apiKeyUsage';

/** Coins spent per day over the last 30 days, one colour per key (stacked). */
export default function ApiKeyUsageChart({ usage, keys }: { usage: ApiKeyUsage; keys: ApiKeyView[] }) {
  const data = useMemo(() => usagePoints(usage, keys), [usage, keys]);
  return (
    <Column
      data={data}
      height={240}
      xField="day"
      yField="coins"
      colorField="key"
      stack
      axis={{ x: { title: false, labelAutoHide: true }, y: { title: 'Coins' } }}
      legend={{ color: { position: 'top' } }}
    />
  );
}
