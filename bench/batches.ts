/** The group commits' batch sizes so far, per phase, from a server's `/metrics` (`pps_group_commit_batch_size`). */
export type BatchSample = Map<string, { buckets: Map<string, number>; sum: number; count: number }>;

/** What a load's batches were, per phase: how many, their mean size, and the share of batches of each size bucket. */
export type BatchFigures = {
  phase: string;
  batches: number;
  meanSize: number;
  shares: { le: string; share: number }[];
};

const LINE = /^pps_group_commit_batch_size_(bucket|sum|count)\{([^}]*)\} (\S+)$/;

export async function sampleBatches(base: string): Promise<BatchSample> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const sample: BatchSample = new Map();
  for (const line of text.split('\n')) {
    const match = LINE.exec(line);
    if (!match) continue;
    const [, kind, labels = '', value] = match;
    const phase = /phase="([^"]+)"/.exec(labels)?.[1] ?? '';
    const entry = sample.get(phase) ?? { buckets: new Map(), sum: 0, count: 0 };
    sample.set(phase, entry);
    if (kind === 'bucket') entry.buckets.set(/le="([^"]+)"/.exec(labels)?.[1] ?? '', Number(value));
    else if (kind === 'sum') entry.sum = Number(value);
    else entry.count = Number(value);
  }
  return sample;
}

/** The batches between two samples, per phase that had any (buckets are cumulative: each share is its own bucket's). */
export function batchFigures(before: BatchSample, after: BatchSample): BatchFigures[] {
  const figures: BatchFigures[] = [];
  for (const [phase, end] of after) {
    const start = before.get(phase);
    const batches = end.count - (start?.count ?? 0);
    if (batches === 0) continue;
    let below = 0;
    const shares = [...end.buckets].map(([le, cumulative]) => {
      const upTo = cumulative - (start?.buckets.get(le) ?? 0);
      const share = (upTo - below) / batches;
      below = upTo;
      return { le, share: Number(share.toFixed(3)) };
    });
    figures.push({ phase, batches, meanSize: Number(((end.sum - (start?.sum ?? 0)) / batches).toFixed(1)), shares });
  }
  return figures;
}

/** One phase's figures as a line: `claim: 812 batches, mean 9.4; ≤1 4% · ≤2 6% · …` (buckets with no batch left out). */
export const batchLine = (figures: BatchFigures) =>
  `${figures.phase}: ${figures.batches.toLocaleString('en-US')} batches, mean ${figures.meanSize}; ` +
  figures.shares
    .filter((bucket) => bucket.share > 0)
    .map((bucket) => `≤${bucket.le} ${Math.round(bucket.share * 100)}%`)
    .join(' · ');
