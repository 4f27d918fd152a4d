/**
 * Stands in for @ant-design/charts in jsdom (see jest.config.cjs), which cannot draw on a canvas:
 * each chart renders its points and main options as data attributes the tests can read.
 */
interface FakeChartProps {
  data?: unknown[];
  xField?: string;
  yField?: string;
  colorField?: string;
  scale?: unknown;
}

function fakeChart(kind: string) {
  return function FakeChart({ data = [], xField, yField, colorField, scale }: FakeChartProps) {
    return (
      <div
        data-testid={`chart-${kind}`}
        data-points={JSON.stringify(data)}
        data-x={xField}
        data-y={yField}
        data-color={colorField}
        data-scale={JSON.stringify(scale ?? null)}
      />
    );
  };
}

export const Line = fakeChart('line');
export const Column = fakeChart('column');
