import type { FC } from 'hono/jsx';
import { dollars } from './format';
import { Table } from './table';

/**
 * One line of a chart: its label, its values (one per x; `null` where there is no figure, a gap), and how a value
 * reads (`cents` as dollars, `seconds` with an `s`). Lines of one unit share an axis.
 */
export type ChartSeries = { label: string; values: (number | null)[]; unit: 'count' | 'cents' | 'seconds' };

/** A value as the table under the chart shows it. */
const cell = (value: number | null | undefined, unit: ChartSeries['unit']) => {
  if (value === null || value === undefined) return '—';
  if (unit === 'cents') return dollars(value);
  return unit === 'seconds' ? `${value} s` : String(value);
};

/**
 * A chart drawn by the console's script with uPlot (served from this origin) from the figures in its `data-chart`
 * attribute (JSON, escaped like any attribute: no inline script), and the same figures as a table under it, which is
 * what a reader without script or a screen reader gets. `x` are the instants (ISO) the values belong to; each unit
 * gets its own axis (left for the first, right for the second).
 */
export const Chart: FC<{
  title: string;
  x: string[];
  xLabel: string;
  rows: string[];
  series: ChartSeries[];
  /** The span the x axis shows (ISO instants, first and last), when it is not just the figures' own. */
  xRange?: [string, string];
}> = ({ title, x, xLabel, rows, series, xRange }) => {
  const seconds = (instant: string) => Math.floor(Date.parse(instant) / 1000);
  const figures = {
    x: x.map(seconds),
    series: series.map(({ label, values, unit }) => ({ label, values, unit })),
    ...(xRange ? { xRange: xRange.map(seconds) } : {}),
  };
  return (
    <figure class="chart">
      <figcaption>{title}</figcaption>
      <div class="chart-canvas" data-chart={JSON.stringify(figures)} aria-hidden="true"></div>
      <details>
        <summary>{`${title}: the figures`}</summary>
        <Table
          caption={title}
          headers={[xLabel, ...series.map((line) => line.label)]}
          empty="No figures."
          rows={rows.map((row, index) => [row, ...series.map((line) => cell(line.values[index], line.unit))])}
        />
      </details>
    </figure>
  );
};
