/** Samples of a Prometheus text exposition, keyed by `name{label="value",...}` as written. */
export type Samples = Record<string, number>;

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Samples {
  const samples: Samples = {};
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const match = LINE.exec(line);
    if (match) samples[`${match[1]}${match[2] ?? ''}`] = Number(match[3]);
  }
  return samples;
}

/** The sum of the samples of `name` whose labels include all of `labels`. */
export function sampleSum(samples: Samples, name: string, labels: Record<string, string> = {}): number {
  let sum = 0;
  for (const [key, value] of Object.entries(samples)) {
    const brace = key.indexOf('{');
    if ((brace < 0 ? key : key.slice(0, brace)) !== name) continue;
    const have = new Map<string, string>();
    for (const [, label, v] of (brace < 0 ? '' : key.slice(brace)).matchAll(LABEL)) have.set(label, v);
    if (Object.entries(labels).every(([label, v]) => have.get(label) === v)) sum += value;
  }
  return sum;
}
