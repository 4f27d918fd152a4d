import type { ApiKeyUsage, ApiKeyView } from '@studio/contracts';
import { TOOL_LABELS, type JobTool } from '@studio/contracts';

export interface UsagePoint {
  day: string;
  key: string;
  coins: number;
}

/** A key's name for the chart and table (a key revoked or made elsewhere keeps its id's tail). */
export function keyName(keys: ApiKeyView[], keyId: string): string {
  return keys.find((key) => key.id === keyId)?.name ?? `Key …${keyId.slice(-6)}`;
}

/** One point per day and key with coins spent that day (days without use are left out). */
export function usagePoints(usage: ApiKeyUsage, keys: ApiKeyView[]): UsagePoint[] {
  const points = new Map<string, UsagePoint>();
  for (const row of usage.rows) {
    const key = keyName(keys, row.keyId);
    const id = `${row.day}|${key}`;
    const point = points.get(id) ?? { day: row.day.slice(5), key, coins: 0 };
    point.coins += row.coins;
    points.set(id, point);
  }
  return [...points.values()];
}

export interface UsageTotal {
  id: string;
  key: string;
  tool: string;
  jobs: number;
  coins: number;
}

/** Per key and tool over the whole window, most coins first. */
export function usageTotals(usage: ApiKeyUsage, keys: ApiKeyView[]): UsageTotal[] {
  const totals = new Map<string, UsageTotal>();
  for (const row of usage.rows) {
    const id = `${row.keyId}|${row.tool}`;
    const total = totals.get(id) ?? {
      id,
      key: keyName(keys, row.keyId),
      tool: TOOL_LABELS[row.tool as JobTool] ?? row.tool,
      jobs: 0,
      coins: 0,
    };
    total.jobs += row.jobs;
    total.coins += row.coins;
    totals.set(id, total);
  }
  return [...totals.values()].sort((a, b) => b.coins - a.coins || a.key.localeCompare(b.key));
}
