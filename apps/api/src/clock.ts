import { readFileSync, statSync } from 'node:fs';

/**
 * The service's clock: what every lifecycle, schedule and job takes as "now". It is the
 * system clock unless moved: tests and demos move it forward (`advanceClock` in process,
 * or CLOCK_OFFSET_FILE for a service process) instead of sleeping until a refill is due.
 * Signatures other systems verify against their own clocks (webhook signatures, bearer
 * tokens) keep the system clock.
 */
let offsetMs = 0;
/** A file holding how many milliseconds the clock runs ahead (CLOCK_OFFSET_FILE), re-read when it changes. */
let offsetFile: { path: string; checkedAt: number; mtimeMs: number } | undefined;
/** How often the offset file is looked at (a test that moves the clock waits this long). */
export const CLOCK_FILE_POLL_MS = 100;

function fileOffset(): void {
  const file = offsetFile!;
  const real = Date.now();
  if (real - file.checkedAt < CLOCK_FILE_POLL_MS) return;
  file.checkedAt = real;
  try {
    const { mtimeMs } = statSync(file.path);
    if (mtimeMs === file.mtimeMs) return;
    file.mtimeMs = mtimeMs;
    const text = readFileSync(file.path, 'utf8').trim();
    // An empty file (being written) changes nothing; write it elsewhere and rename it into place.
    if (text !== '' && Number.isFinite(Number(text))) offsetMs = Number(text);
  } catch {
    // No file (yet): the clock keeps its offset.
  }
}

/** Now, in milliseconds since 1970 (the system clock plus the offset). */
export function nowMs(): number {
  if (offsetFile) fileOffset();
  return Date.now() + offsetMs;
}

export function now(): Date {
  return new Date(nowMs());
}

/** Moves the clock `ms` forward (tests); never backward past the system clock's own pace. */
export function advanceClock(ms: number): void {
  offsetMs += ms;
}

/** The clock back on the system time (tests). */
export function resetClock(): void {
  offsetMs = 0;
}

/** Reads the offset from `path` from now on (CLOCK_OFFSET_FILE); undefined stops reading it. */
export function useClockOffsetFile(path: string | undefined): void {
  offsetFile = path ? { path, checkedAt: 0, mtimeMs: -1 } : undefined;
  if (offsetFile) fileOffset();
}
