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

/** One point per day of the window and key that was used in it (0 on days without use). */
export function usagePoints(usage: ApiKeyUsage, keys: ApiKeyView[]): UsagePoint[] {
  const coins = new Map<string, number>();
  const used: string[] = [];
  for (const row of usage.rows) {
    if (!used.includes(row.keyId)) used.push(row.keyId);
    const id = `${row.day}|${row.keyId}`;
    coins.set(id, (coins.get(id) ?? 0) + row.coins);
  }
  return usage.days.flatMap((day) =>
    used.map((keyId) => ({
      day: day.slice(5),
      key: keyName(keys, keyId),
      coins: coins.get(`${day}|${keyId}`) ?? 0,
    })),
  );
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
