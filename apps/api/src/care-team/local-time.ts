/**
 * A time zone's wall clock, with `Intl` alone (no date library). A local date and time is
 * held as "local milliseconds": the epoch milliseconds the same reading would have in UTC
 * (`Date.UTC(2030, 2, 10, 9, 0)` is 09:00 on 2030-03-10 on any wall clock), so local
 * arithmetic is plain addition and a local day is `Math.floor(local / DAY)`.
 */
export const MINUTE_MS = 60_000;
export const DAY_MS = 86_400_000;

/** How a local reading maps to instants: once, never (clocks jumped over it), or twice (clocks went back). */
export type LocalReadingKind = 'unique' | 'skipped' | 'repeated';

export interface ResolvedLocalTime {
  /**
   * The first instant the zone's clocks read the time or later: the instant itself when
   * `unique`, its first occurrence (daylight time) when `repeated`, and the instant the
   * clocks jumped past it when `skipped`.
   */
  instant: number;
  kind: LocalReadingKind;
}

/** Time zone name to its formatter: building one costs ~50 µs, using one ~1 µs. */
const clocks = new Map<string, Intl.DateTimeFormat>();
const READING = /^(\d+)\/(\d+)\/(\d+), (\d+):(\d+):(\d+)$/;

/** True when `Intl` knows the time zone (an IANA name such as `America/Phoenix`). */
export function isTimeZone(timeZone: string): boolean {
  try {
    new Intl.DateTimeFormat(undefined, { timeZone });
    return true;
  } catch {
    return false;
  }
}

function clockOf(timeZone: string): Intl.DateTimeFormat {
  let clock = clocks.get(timeZone);
  if (!clock) {
    clock = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
      second: 'numeric',
    });
    clocks.set(timeZone, clock);
  }
  return clock;
}

/** The zone's offset from UTC at the instant, in milliseconds (local = instant + offset). */
export function offsetAt(timeZone: string, instant: number): number {
  const whole = Math.floor(instant / 1000) * 1000;
  // `format` and a pattern are about 3 times faster than `formatToParts`.
  const reading = READING.exec(clockOf(timeZone).format(whole));
  if (!reading) throw new Error(`cannot read the wall clock of ${timeZone} at ${new Date(instant).toISOString()}`);
  const [, month, day, year, hour, minute, second] = reading.map(Number) as number[];
  const local = Date.UTC(year!, month! - 1, day!, hour! % 24, minute!, second!);
  return local - whole;
}

/** The local reading of an instant (local milliseconds). */
export function localAt(timeZone: string, instant: number): number {
  return instant + offsetAt(timeZone, instant);
}

/**
 * The instant of a local reading (the usual offset iteration). The offsets a day before and
 * a day after bracket it (zones change offset at most once in two days); when they agree,
 * the reading is unique. When they differ, each offset gives a candidate that is right when
 * the zone had that offset at the candidate: both are right in a repeated hour (the first
 * is taken), neither in a skipped one (the instant of the jump is searched for).
 */
export function resolveLocal(timeZone: string, local: number): ResolvedLocalTime {
  const before = offsetAt(timeZone, local - DAY_MS);
  const after = offsetAt(timeZone, local + DAY_MS);
  if (before === after) return { instant: local - before, kind: 'unique' };
  const early = local - before;
  const late = local - after;
  const earlyHolds = offsetAt(timeZone, early) === before;
  const lateHolds = offsetAt(timeZone, late) === after;
  if (earlyHolds && lateHolds && early !== late) return { instant: Math.min(early, late), kind: 'repeated' };
  if (earlyHolds) return { instant: early, kind: 'unique' };
  if (lateHolds) return { instant: late, kind: 'unique' };
  return { instant: changeBetween(timeZone, late, early, after), kind: 'skipped' };
}

/** The first whole second in (from, to] at which the zone has the offset `after` (its clocks changed then). */
function changeBetween(timeZone: string, from: number, to: number, after: number): number {
  let low = Math.floor(from / 1000); // has the offset before
  let high = Math.ceil(to / 1000); // has the offset after
  while (high - low > 1) {
    const middle = Math.floor((low + high) / 2);
    if (offsetAt(timeZone, middle * 1000) === after) high = middle;
    else low = middle;
  }
  return high * 1000;
}

/**
 * One local day of a time zone and its wall clock, read without `Intl`: the offsets before
 * and after the day's clock change and its instant (none: one offset all day). Its local
 * times resolve as `resolveLocal` does (a zone changes its clocks at most once a day).
 */
export class LocalDay {
  constructor(
    /** Days since 1970-01-01. */
    readonly number: number,
    private readonly before: number,
    private readonly after: number,
    /** The instant of the day's clock change; Infinity when none. */
    private readonly change: number,
    /** The instant the next day starts. */
    readonly next: number,
  ) {}

  /** The first instant the clock reads the minute of the day or later (1440: the next midnight). */
  instant(minute: number): number {
    const local = this.number * DAY_MS + minute * MINUTE_MS;
    const early = local - this.before;
    if (early < this.change) return early; // the first occurrence when repeated
    const late = local - this.after;
    return late >= this.change ? late : this.change;
  }

  /**
   * The instant of the minute of the day (0 to 1439) when the clock reads it (its first
   * occurrence when twice), NaN when the clock skips it.
   */
  existing(minute: number): number {
    const local = this.number * DAY_MS + minute * MINUTE_MS;
    const early = local - this.before;
    if (early < this.change) return early;
    const late = local - this.after;
    return late >= this.change ? late : Number.NaN;
  }
}

/** Time zone to its local days met lately (a zone's clock changes are fixed while the process runs). */
const knownDays = new Map<string, Map<number, LocalDay>>();

/**
 * The local days `first` to `last` (days since 1970-01-01) of the zone: from the instants
 * of their midnights, a day 24 hours long has one offset; another has a clock change,
 * searched for once (about 20 readings of the clock), so its times are read without `Intl`.
 */
export function localDays(timeZone: string, first: number, last: number): LocalDay[] {
  let known = knownDays.get(timeZone);
  if (!known) knownDays.set(timeZone, (known = new Map()));
  else if (known.size > 10_000) known.clear();
  const days: LocalDay[] = [];
  let start = Number.NaN;
  for (let number = first; number <= last; number++) {
    let day = known.get(number);
    if (!day) {
      if (Number.isNaN(start)) start = resolveLocal(timeZone, number * DAY_MS).instant;
      day = dayFrom(timeZone, number, start);
      known.set(number, day);
    }
    days.push(day);
    start = day.next;
  }
  return days;
}

function dayFrom(timeZone: string, number: number, start: number): LocalDay {
  const next = resolveLocal(timeZone, (number + 1) * DAY_MS).instant;
  if (next - start === DAY_MS) {
    const offset = number * DAY_MS - start;
    return new LocalDay(number, offset, offset, Infinity, next);
  }
  const before = offsetAt(timeZone, start - 1000);
  const after = offsetAt(timeZone, next);
  return new LocalDay(number, before, after, changeBetween(timeZone, start - 1000, next, after), next);
}

/** `YYYY-MM-DD` and `HH:MM` (`24:00`: the next midnight) as local milliseconds; NaN when unreadable. */
export function localOf(date: string, time = '00:00'): number {
  const d = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date);
  const t = /^(\d{2}):(\d{2})$/.exec(time);
  if (!d || !t) return Number.NaN;
  return Date.UTC(Number(d[1]), Number(d[2]) - 1, Number(d[3])) + (Number(t[1]) * 60 + Number(t[2])) * MINUTE_MS;
}

/** `HH:MM` as minutes of the day (`24:00` is 1440); NaN when unreadable. */
export function minutesOf(time: string): number {
  const t = /^(\d{2}):(\d{2})$/.exec(time);
  return t ? Number(t[1]) * 60 + Number(t[2]) : Number.NaN;
}

/** The instant (ISO 8601 UTC) at which a wall clock of the zone first reads the date and time or later (`resolveLocal`). */
export function zonedToInstant(timeZone: string, date: string, time: string): string {
  return new Date(resolveLocal(timeZone, localOf(date, time)).instant).toISOString();
}

/** The local date, time and ISO weekday (1 = Monday) of an instant in the zone. */
export function instantToZoned(timeZone: string, instant: string | number | Date): { date: string; time: string; weekday: number } {
  const local = new Date(localAt(timeZone, new Date(instant).getTime()));
  const iso = local.toISOString();
  return { date: iso.slice(0, 10), time: iso.slice(11, 16), weekday: isoWeekday(Math.floor(local.getTime() / DAY_MS)) };
}

/** The ISO weekday (1 = Monday ... 7 = Sunday) of a local day (days since 1970-01-01, a Thursday). */
export function isoWeekday(day: number): number {
  return ((((day + 3) % 7) + 7) % 7) + 1;
}
