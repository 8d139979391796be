import type { Provider } from './care-team.js';
import { instantText, parseInstant } from './instant-text.js';
import { DAY_MS, isoWeekday, localAt, localDays, localOf, MINUTE_MS, minutesOf, type LocalDay } from './local-time.js';

/** A time a provider is already taken: an appointment (ISO 8601 instants). */
export interface BusyInterval {
  provider_id: string;
  start: string;
  end: string;
}

/** One open slot of one provider (the spec's `ScheduleSlot`). */
export interface Slot {
  /** ISO 8601 UTC with milliseconds: `2030-01-15T17:00:00.000Z`. */
  start: string;
  /** `start` plus `duration` minutes. */
  end: string;
  provider_id: string;
  /** First and last name. */
  provider_name: string;
  /** Minutes. */
  duration: number;
}

export interface SlotRequest {
  /** The providers to look at (the caller's choice: those of the program, licensed in the state). */
  providers: readonly Provider[];
  /** The window: a slot is answered only if it lies wholly inside it. */
  start: string | Date;
  end: string | Date;
  durationMinutes: number;
  /** The providers' appointments; those of other providers are ignored. */
  busy: readonly BusyInterval[];
  /** Slots starting before it are not answered. */
  now?: string | Date;
  /** Answer at most this many (the earliest). */
  limit?: number;
}

/**
 * The open slots of the providers in the window, earliest first, then by provider name
 * (first and last, compared code unit by code unit), then id.
 *
 * A provider's slots are cut from the working periods of each local day, in the provider's
 * time zone: from the period's start, stepping by the duration on the provider's wall
 * clock (09:00-12:00 by 45 minutes gives 09:00, 09:45, 10:30 and 11:15), each slot ending
 * by the period's end; minus the days off and the parts of days off (exceptions), and
 * every slot that overlaps an appointment of the provider (one that ends when the slot
 * starts, or starts when it ends, does not).
 *
 * Wall clock and daylight saving time: a period is in local time on every day, so 09:00
 * in New York is 14:00 UTC in winter and 13:00 UTC in summer. A local time is the first
 * instant the provider's clock reads it (`resolveLocal`). On the day the clocks spring
 * forward, a slot whose start does not exist (02:00 and 02:30 in New York) is skipped, not
 * moved; and a slot that would end after the period's real end, or overlap the slot before
 * it, is dropped (in a 01:30-03:00 period, 01:30 by 60 minutes would end at 03:30 by the
 * clock). On the day they fall back,
 * a repeated local time is one slot, at its first occurrence (daylight time): the repeated
 * hour is not offered twice. Each slot lasts `duration` real minutes.
 */
export function openSlots(request: SlotRequest): Slot[] {
  const durationMs = request.durationMinutes * MINUTE_MS;
  if (!Number.isInteger(request.durationMinutes) || request.durationMinutes <= 0) throw new RangeError('durationMinutes must be a positive whole number');
  const windowEnd = instantOf(request.end, 'end');
  const lower = Math.max(instantOf(request.start, 'start'), request.now === undefined ? -Infinity : instantOf(request.now, 'now'));
  if (!(lower + durationMs <= windowEnd)) return [];

  const ranked = [...request.providers].sort(byNameThenId);
  const busy = busyByProvider(request.busy);
  const days = new ZoneDays(lower, windowEnd);
  const found: Found[] = [];
  ranked.forEach((provider, rank) => {
    cutSlots(provider, rank, { lower, windowEnd, durationMs, durationMinutes: request.durationMinutes, busy: busy.get(provider.id) ?? [], days }, found);
  });
  // Each provider's slots come in time order: the sort merges runs.
  found.sort((a, b) => a.start - b.start || a.rank - b.rank);
  const limit = request.limit ?? found.length;
  const names = ranked.map(nameOf);
  return found.slice(0, limit).map(({ start, rank }) => ({
    start: instantText(start),
    end: instantText(start + durationMs),
    provider_id: ranked[rank]!.id,
    provider_name: names[rank]!,
    duration: request.durationMinutes,
  }));
}

interface Found {
  start: number;
  rank: number;
}

/** One provider's weekly hours and days off, as numbers (kept per provider object: a care team is frozen). */
interface Hours {
  /** By ISO weekday: [start, end] minutes of the day, in order. */
  periods: [number, number][][];
  /** Local day (days since 1970-01-01) to the parts off that day ([start, end] minutes); `whole` for the whole day. */
  off: Map<number, 'whole' | [number, number][]>;
}

/** The hours of the providers of stored care teams, computed once. */
const hoursOfProvider = new WeakMap<Provider, Hours>();

function hoursOf(provider: Provider): Hours {
  let hours = hoursOfProvider.get(provider);
  if (hours) return hours;
  const periods: [number, number][][] = Array.from({ length: 8 }, () => []);
  for (const period of provider.working_hours) periods[period.weekday]?.push([minutesOf(period.start), minutesOf(period.end)]);
  for (const list of periods) list.sort((a, b) => a[0] - b[0]);
  const off = new Map<number, 'whole' | [number, number][]>();
  for (const exception of provider.exceptions) {
    const day = Math.floor(localOf(exception.date) / DAY_MS);
    const known = off.get(day);
    if (known === 'whole') continue;
    if (exception.start === undefined || exception.end === undefined) off.set(day, 'whole');
    else off.set(day, [...(known ?? []), [minutesOf(exception.start), minutesOf(exception.end)]]);
  }
  hours = { periods, off };
  // Only a frozen provider (a stored care team's) cannot change under the kept hours.
  if (Object.isFrozen(provider) && Object.isFrozen(provider.working_hours) && Object.isFrozen(provider.exceptions)) hoursOfProvider.set(provider, hours);
  return hours;
}

interface Cutting {
  lower: number;
  windowEnd: number;
  durationMs: number;
  durationMinutes: number;
  /** The provider's appointments, merged: disjoint, in order. */
  busy: [number, number][];
  days: ZoneDays;
}

function cutSlots(provider: Provider, rank: number, cutting: Cutting, found: Found[]): void {
  const { lower, windowEnd, durationMs, durationMinutes, busy } = cutting;
  const hours = hoursOf(provider);
  let next = 0; // the first appointment that may still overlap a slot (slots come in time order)
  for (const day of cutting.days.of(provider.time_zone)) {
    const periods = hours.periods[isoWeekday(day.number)]!;
    const off = hours.off.get(day.number);
    if (periods.length === 0 || off === 'whole') continue;
    const partsOff = off === undefined ? NOTHING_OFF : instantsOff(day, off);
    for (const [from, to] of periods) {
      const periodStart = day.instant(from);
      const periodEnd = day.instant(to);
      if (periodEnd <= lower || periodStart >= windowEnd) continue;
      let previousEnd = -Infinity;
      for (let minute = from; minute + durationMinutes <= to; minute += durationMinutes) {
        const start = day.existing(minute);
        if (Number.isNaN(start)) continue; // skipped by the clocks
        const end = start + durationMs;
        if (start < lower || start < previousEnd || end > periodEnd) continue;
        if (end > windowEnd) return;
        if (partsOff.length > 0 && overlapsAny(partsOff, start, end)) continue;
        while (next < busy.length && busy[next]![1] <= start) next++;
        if (next < busy.length && busy[next]![0] < end) continue;
        previousEnd = end;
        found.push({ start, rank });
      }
    }
  }
}

const NOTHING_OFF: [number, number][] = [];

/** The instants of the parts of a day off. */
function instantsOff(day: LocalDay, parts: [number, number][]): [number, number][] {
  const instants: [number, number][] = [];
  for (const [from, to] of parts) instants.push([day.instant(from), day.instant(to)]);
  return instants;
}

function overlapsAny(intervals: [number, number][], start: number, end: number): boolean {
  for (const [from, to] of intervals) if (from < end && start < to) return true;
  return false;
}

/**
 * The local days of each time zone that can hold a slot of the window, computed once per
 * zone (`localDays`).
 */
class ZoneDays {
  private readonly zones = new Map<string, LocalDay[]>();

  constructor(
    private readonly from: number,
    private readonly to: number,
  ) {}

  of(timeZone: string): LocalDay[] {
    let days = this.zones.get(timeZone);
    if (days) return days;
    // A day either side: local readings step back an hour when clocks fall back.
    const first = Math.floor(localAt(timeZone, this.from) / DAY_MS) - 1;
    const last = Math.floor(localAt(timeZone, this.to) / DAY_MS) + 1;
    days = localDays(timeZone, first, last);
    this.zones.set(timeZone, days);
    return days;
  }
}

/** Each provider's appointments as instants, in order, overlapping ones merged. */
function busyByProvider(busy: readonly BusyInterval[]): Map<string, [number, number][]> {
  const byProvider = new Map<string, [number, number][]>();
  for (const appointment of busy) {
    const interval: [number, number] = [instantOf(appointment.start, 'busy start'), instantOf(appointment.end, 'busy end')];
    if (interval[1] <= interval[0]) continue; // takes no time
    const list = byProvider.get(appointment.provider_id);
    if (list) list.push(interval);
    else byProvider.set(appointment.provider_id, [interval]);
  }
  for (const [id, list] of byProvider) {
    list.sort((a, b) => a[0] - b[0]);
    const merged: [number, number][] = [];
    for (const interval of list) {
      const last = merged[merged.length - 1];
      if (last && interval[0] <= last[1]) last[1] = Math.max(last[1], interval[1]);
      else merged.push([...interval]);
    }
    byProvider.set(id, merged);
  }
  return byProvider;
}

function instantOf(value: string | Date, what: string): number {
  const instant = typeof value === 'string' ? parseInstant(value) : value.getTime();
  if (Number.isNaN(instant)) throw new RangeError(`${what} is not a date-time: ${String(value)}`);
  return instant;
}

function nameOf(provider: Provider): string {
  return `${provider.first_name} ${provider.last_name}`;
}

function byNameThenId(a: Provider, b: Provider): number {
  const [x, y] = [nameOf(a), nameOf(b)];
  if (x !== y) return x < y ? -1 : 1;
  return a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
}
