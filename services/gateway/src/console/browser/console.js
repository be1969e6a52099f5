// The console's script: only enhancements. Every page works with its forms before this runs (or without it).
// Loaded from this origin with `defer`; the Content-Security-Policy allows no inline script and no eval.

(() => {
  // A filter change submits the filter form at once (the Filter button stays for keyboards and no-script use).
  for (const select of document.querySelectorAll('form.filters select')) {
    select.addEventListener('change', () => select.form?.requestSubmit());
  }

  // Charts: each `[data-chart]` holds its figures as JSON (x as Unix seconds, then series of values); uPlot draws
  // them. The table under each chart holds the same figures for readers without script.
  const COLORS = ['#1d4ed8', '#b45309', '#047857', '#7c3aed'];
  const dollars = (cents) =>
    cents == null
      ? ''
      : `$${(cents / 100).toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })}`;
  const seconds = (value) => (value == null ? '' : `${value} s`);
  const text = (unit) =>
    unit === 'cents' ? dollars : unit === 'seconds' ? seconds : (value) => (value == null ? '' : String(value));
  const uPlot = window.uPlot;
  for (const holder of document.querySelectorAll('[data-chart]')) {
    if (!uPlot) break;
    const figures = JSON.parse(holder.dataset.chart);
    // Lines of one unit share a scale and an axis (the first unit's on the left, the second's on the right).
    const units = [...new Set(figures.series.map((line) => line.unit))];
    const options = {
      width: Math.max(holder.clientWidth, 320),
      height: 240,
      // A chart of a span (the last hour) shows all of it, however few figures it has yet.
      ...(figures.xRange ? { scales: { x: { time: true, range: () => figures.xRange } } } : {}),
      series: [
        {},
        ...figures.series.map((line, index) => ({
          label: line.label,
          scale: line.unit,
          stroke: COLORS[index % COLORS.length],
          width: 2,
          value: (_, value) => text(line.unit)(value),
        })),
      ],
      axes: [
        {},
        ...units.slice(0, 2).map((unit, index) => ({
          scale: unit,
          side: index === 0 ? 3 : 1,
          grid: { show: index === 0 },
          size: 70,
          // A count has no halves: its axis labels whole numbers only.
          values: (_, ticks) =>
            ticks.map((tick) => (unit === 'count' && !Number.isInteger(tick) ? '' : text(unit)(tick))),
        })),
      ],
    };
    new uPlot(options, [figures.x, ...figures.series.map((line) => line.values)], holder);
  }
})();
