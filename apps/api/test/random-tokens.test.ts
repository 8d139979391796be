import { describe, expect, it } from 'vitest';
import { randomToken } from '../src/tokens.js';

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
