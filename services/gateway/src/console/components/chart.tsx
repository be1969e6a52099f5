import type { FC } from 'hono/jsx';
import { dollars } from './format';
import { Table } from './table';

/** One line of a chart: its label, its values (one per x), and how a value reads (`cents` as dollars). */
export type ChartSeries = { label: string; values: number[]; unit: 'count' | 'cents' };

/**
 * A chart drawn by the console's script with uPlot (served from this origin) from the figures in its `data-chart`
 * attribute (JSON, escaped like any attribute: no inline script), and the same figures as a table under it, which is
 * what a reader without script or a screen reader gets. `x` are the instants (ISO) the values belong to; each series
 * gets its own axis (left for the first, right for the second).
 */
export const Chart: FC<{ title: string; x: string[]; xLabel: string; rows: string[]; series: ChartSeries[] }> = ({
  title,
  x,
  xLabel,
  rows,
  series,
}) => {
  const figures = {
    x: x.map((instant) => Math.floor(Date.parse(instant) / 1000)),
    series: series.map(({ label, values, unit }) => ({ label, values, unit })),
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
          rows={rows.map((row, index) => [
            row,
            ...series.map((line) => {
              const value = line.values[index] ?? 0;
              return line.unit === 'cents' ? dollars(value) : String(value);
            }),
          ])}
        />
      </details>
    </figure>
  );
};
