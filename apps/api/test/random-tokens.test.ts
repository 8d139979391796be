import { afterEach, describe, expect, it, vi } from 'vitest';
import { randomToken, recordObjectId, recordToken } from '../src/tokens.js';

describe('randomToken', () => {
  it('answers the length asked for, in base62, across many refills of its byte pool', () => {
    for (const length of [1, 8, 24, 64, 300]) {
      for (let i = 0; i < 200; i++) expect(randomToken(length)).toMatch(new RegExp(`^[0-9A-Za-z]{${length}}$`));
    }
    expect(randomToken()).toHaveLength(24);
  });

  it('never repeats a token, and uses every character about as often (no bias toward the first ones)', () => {
    const tokens = Array.from({ length: 20_000 }, () => randomToken());
    expect(new Set(tokens).size).toBe(tokens.length);
    const counts = new Map<string, number>();
    for (const token of tokens) for (const c of token) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
    const expected = (tokens.length * 24) / 62; // ~7,742 each
    for (const n of counts.values()) expect(Math.abs(n - expected) / expected).toBeLessThan(0.1);
  });
});

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const decodeBase62 = (digits: string) => [...digits].reduce((n, c) => n * 62 + BASE62.indexOf(c), 0);

/** Tokens made at each of these instants, in order: each must sort after the one before. */
function madeAt<T>(instants: number[], make: () => T): T[] {
  return instants.map((ms) => {
    vi.setSystemTime(ms);
    return make();
  });
}

// Instants on both sides of a change of each base62 digit, and from 1970 to 2081.
const INSTANTS = [0, 1, 61, 62, 63, 3_843, 3_844, Date.UTC(2026, 10, 27), Date.UTC(2026, 10, 27) + 1, Date.UTC(2026, 10, 27, 0, 0, 1), Date.UTC(2081, 0, 1)];

describe('recordToken', () => {
  afterEach(() => vi.useRealTimers());

  it('is 24 base62 characters, the first 7 the creation millisecond', () => {
    const before = Date.now();
    const token = recordToken();
    const after = Date.now();
    expect(token).toMatch(/^[0-9A-Za-z]{24}$/);
    expect(decodeBase62(token.slice(0, 7))).toBeGreaterThanOrEqual(before);
    expect(decodeBase62(token.slice(0, 7))).toBeLessThanOrEqual(after);
    expect(recordToken(20)).toMatch(/^[0-9A-Za-z]{20}$/);
  });

  it('sorts in creation order, byte by byte (as both databases compare them)', () => {
    vi.useFakeTimers();
    const tokens = madeAt(INSTANTS, () => recordToken());
    expect([...tokens].sort()).toEqual(tokens);
    expect(tokens.map((t) => decodeBase62(t.slice(0, 7)))).toEqual(INSTANTS);
  });

  it('never repeats within one millisecond: the other 17 characters are random', () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 27) });
    const tokens = Array.from({ length: 20_000 }, () => recordToken());
    expect(new Set(tokens.map((t) => t.slice(0, 7))).size).toBe(1);
    expect(new Set(tokens).size).toBe(tokens.length);
    const counts = new Map<string, number>();
    for (const token of tokens) for (const c of token.slice(7)) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect(counts.size).toBe(62);
  });
});

describe('recordObjectId', () => {
  afterEach(() => vi.useRealTimers());

  it("is 24 lower-case hex digits in ObjectId's layout: the creation second, then random bytes", () => {
    vi.useFakeTimers({ now: Date.UTC(2026, 10, 27, 12, 0, 0, 500) });
    const ids = Array.from({ length: 1_000 }, () => recordObjectId());
    for (const id of ids) {
      expect(id).toMatch(/^[0-9a-f]{24}$/);
      expect(parseInt(id.slice(0, 8), 16)).toBe(Date.UTC(2026, 10, 27, 12) / 1000);
    }
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('sorts by creation second', () => {
    vi.useFakeTimers();
    const ids = madeAt([0, 1_000, 16_000, 256_000, Date.UTC(2026, 10, 27), Date.UTC(2100, 0, 1)], () => recordObjectId());
    expect([...ids].sort()).toEqual(ids);
  });
});
