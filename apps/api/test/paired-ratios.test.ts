import { describe, expect, it } from 'vitest';
import { pairedRatios } from '../bench/paired-ratios.js';

describe('paired ratios of alternated bench slices', () => {
  it('answers 1 with no spread for two equal series', () => {
    const r = pairedRatios([100, 200, 300], [100, 200, 300]);
    expect(r.ratio).toBeCloseTo(1, 12);
    expect(r.low).toBeCloseTo(1, 12);
    expect(r.high).toBeCloseTo(1, 12);
  });

  it('follows B when every round is faster by the same share, however the machine drifted', () => {
    const a = [1000, 2000, 1500, 800];
    const r = pairedRatios(a, a.map((x) => x * 1.1));
    expect(r.ratio).toBeCloseTo(1.1, 12);
    expect(r.low).toBeCloseTo(1.1, 12);
    expect(r.high).toBeCloseTo(1.1, 12);
    expect(r.ratios).toHaveLength(4);
  });

  it('takes the geometric mean of the ratios and an interval around it', () => {
    const r = pairedRatios([100, 100, 100, 100], [80, 125, 100, 100]);
    expect(r.ratio).toBeCloseTo(1, 12); // 0.8 and 1.25 cancel
    expect(r.low).toBeLessThan(1);
    expect(r.high).toBeGreaterThan(1);
    expect(r.low).toBeGreaterThanOrEqual(0.8);
    expect(r.high).toBeLessThanOrEqual(1.25);
  });

  it('gives the same interval on every run (a fixed seed)', () => {
    const a = [5000, 5100, 4800, 5300, 4900, 5050];
    const b = [5200, 5000, 5100, 5600, 4950, 5400];
    expect(pairedRatios(a, b)).toEqual(pairedRatios(a, b));
    const wide = pairedRatios(a, b, 0.99);
    const narrow = pairedRatios(a, b, 0.5);
    expect(wide.low).toBeLessThanOrEqual(narrow.low);
    expect(wide.high).toBeGreaterThanOrEqual(narrow.high);
  });

  it('refuses series of different lengths, empty ones and rates of zero', () => {
    expect(() => pairedRatios([1, 2], [1])).toThrow(/as many rounds/);
    expect(() => pairedRatios([], [])).toThrow(/at least one/);
    expect(() => pairedRatios([1, 0], [1, 1])).toThrow(/above zero/);
  });
});
