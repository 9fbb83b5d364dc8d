import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';

/** Series counted in plain numbers, handed to prom-client at scrape (docs/performance.md).
 * Observe a labelled series only through child(), or it splits. */
export interface CounterChild {
  inc(n?: number): void;
}
export interface HistogramChild {
  observe(v: number): void;
}

/** A Counter whose children add to a pending number, handed to prom-client at scrape time. */
export class FastCounter<L extends string> extends Counter<L> {
  readonly #series = new Map<string, { labels: Record<L, string>; pending: number; child: CounterChild }>();

  constructor(config: CounterConfiguration<L>) {
    super(config);
  }

  /** Created on first use; `labels` runs once per key. */
  child(key: string, labels: () => Record<L, string>): CounterChild {
    const s = this.#series.get(key);
    if (s !== undefined) return s.child;
    const series = {
      labels: labels(),
      pending: 0,
      child: {
        inc(n = 1) {
          series.pending += n;
        },
      },
    };
    this.#series.set(key, series);
    return series.child;
  }

  override async get() {
    for (const s of this.#series.values()) {
      if (s.pending === 0) continue;
      this.inc(s.labels, s.pending);
      s.pending = 0;
    }
    return super.get();
  }
}

interface HistogramSeries<L extends string> {
  labels: Record<L, string>;
  /** Per bucket (not cumulative); the last slot is past the largest bound. */
  counts: Float64Array;
  sum: number;
  count: number;
  child: HistogramChild;
}

/** A Histogram whose children keep their own bucket counts, exported beside prom-client's own. */
export class FastHistogram<L extends string> extends Histogram<L> {
  readonly #name: string;
  readonly #bounds: number[];
  readonly #series = new Map<string, HistogramSeries<L>>();

  constructor(config: HistogramConfiguration<L> & { buckets: number[] }) {
    super(config);
    this.#name = config.name;
    this.#bounds = [...config.buckets].sort((a, b) => a - b);
  }

  /** Created on first use; `labels` runs once per key. */
  child(key: string, labels: () => Record<L, string>): HistogramChild {
    const s = this.#series.get(key);
    if (s !== undefined) return s.child;
    const bounds = this.#bounds;
    const series: HistogramSeries<L> = {
      labels: labels(),
      counts: new Float64Array(bounds.length + 1),
      sum: 0,
      count: 0,
      child: {
        observe(v) {
          let i = 0;
          while (i < bounds.length && v > bounds[i]!) i++;
          series.counts[i]!++;
          series.sum += v;
          series.count++;
        },
      },
    };
    this.#series.set(key, series);
    return series.child;
  }

  // prom-client's own export shape; the method is internal and untyped, hence the cast.
  async getForPromString(): Promise<PromExport> {
    const base = await (Histogram.prototype as unknown as { getForPromString(this: unknown): Promise<PromExport> }).getForPromString.call(this);
    const name = this.#name;
    for (const s of this.#series.values()) {
      let acc = 0;
      for (let i = 0; i < this.#bounds.length; i++) {
        acc += s.counts[i]!;
        base.values.push(row({ le: this.#bounds[i]! }, acc, `${name}_bucket`, s.labels, null));
      }
      base.values.push(row({ le: '+Inf' }, s.count, `${name}_bucket`, s.labels, null));
      base.values.push(row({}, s.sum, `${name}_sum`, s.labels, undefined));
      base.values.push(row({}, s.count, `${name}_count`, s.labels, undefined));
    }
    return base;
  }
}

interface PromExport {
  values: ReturnType<typeof row>[];
}

function row(labels: Record<string, string | number>, value: number, metricName: string, sharedLabels: Record<string, string>, exemplar: null | undefined) {
  return { labels, sharedLabels: { ...sharedLabels }, value, metricName, exemplar };
}
