/**
 * How two variants compare over alternated slices of load (`pnpm bench:compare`): round i
 * measured A at a[i] and B at b[i] close together, so each ratio b[i] / a[i] shares that
 * moment's machine speed, and their geometric mean is B's throughput relative to A's. The
 * interval is a bootstrap's over the rounds (resampled `resamples` times with a fixed seed,
 * so a run's output can be read again): the central `confidence` of the resampled means.
 */
export interface PairedRatios {
  /** Geometric mean of b[i] / a[i]. */
  ratio: number;
  low: number;
  high: number;
  /** The ratios, round by round. */
  ratios: number[];
}

export function pairedRatios(a: readonly number[], b: readonly number[], confidence = 0.9, resamples = 2000): PairedRatios {
  if (a.length !== b.length || a.length === 0) throw new Error(`paired ratios need as many rounds of A as of B, at least one (A ${a.length}, B ${b.length})`);
  if ([...a, ...b].some((x) => !(x > 0))) throw new Error('paired ratios need rates above zero');
  const logs = a.map((x, i) => Math.log(b[i]! / x));
  const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / values.length;
  const random = mulberry32(0x5eed);
  const means: number[] = [];
  for (let r = 0; r < resamples; r++) {
    let sum = 0;
    for (let i = 0; i < logs.length; i++) sum += logs[Math.floor(random() * logs.length)]!;
    means.push(sum / logs.length);
  }
  means.sort((x, y) => x - y);
  const tail = (1 - confidence) / 2;
  const at = (q: number) => means[Math.min(means.length - 1, Math.max(0, Math.round(q * (means.length - 1))))]!;
  return { ratio: Math.exp(mean(logs)), low: Math.exp(at(tail)), high: Math.exp(at(1 - tail)), ratios: logs.map(Math.exp) };
}

/** A small seeded generator of numbers in [0, 1) (mulberry32). */
function mulberry32(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
