// Arguments are trimmed before validation (as the seed trims names), in a walk that keeps its
// own stack: no nesting a client can send exhausts the call stack (it answered 500 once).
import { describe, expect, it } from 'vitest';
import { trimStrings } from '../src/http/request-validation.js';

describe('trimming the strings of a request', () => {
  it('trims every string, however deep, in place', () => {
    const input = { name: '  Jane ', list: [' a ', { b: ' b' }], n: 1, none: null, yes: true, kept: 'as sent' };
    expect(trimStrings(input)).toBe(input);
    expect(input).toEqual({ name: 'Jane', list: ['a', { b: 'b' }], n: 1, none: null, yes: true, kept: 'as sent' });
    expect(trimStrings(' alone ')).toBe('alone');
  });

  it('walks 100,000 levels of nesting without exhausting the stack', () => {
    let deep: unknown = ' core ';
    for (let i = 0; i < 100_000; i++) deep = i % 2 ? [deep] : { d: deep };
    let trimmed = trimStrings(deep);
    for (let i = 0; i < 100_000; i++) trimmed = Array.isArray(trimmed) ? trimmed[0] : (trimmed as { d: unknown }).d;
    expect(trimmed).toBe('core');
  });

  it('keeps a __proto__ key a plain property, never the prototype', () => {
    const parsed = JSON.parse('{"__proto__": {"admin": " yes "}}') as Record<string, unknown>;
    const trimmed = trimStrings(parsed) as Record<string, unknown>;
    expect(Object.getPrototypeOf(trimmed)).toBe(Object.prototype);
    expect(Object.getOwnPropertyDescriptor(trimmed, '__proto__')?.value).toEqual({ admin: 'yes' });
    expect((trimmed as { admin?: unknown }).admin).toBeUndefined();
  });
});
