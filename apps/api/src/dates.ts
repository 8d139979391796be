/** `YYYY-MM-DD` or `YYYYMMDD` to `YYYYMMDD`. */
export function compactDate(date: string): string {
  return date.replace(/-/g, '');
}

/** True when a `YYYYMMDD` string names a real calendar date. */
export function isCalendarDate(yyyymmdd: string): boolean {
  const y = Number(yyyymmdd.slice(0, 4));
  const m = Number(yyyymmdd.slice(4, 6));
  const d = Number(yyyymmdd.slice(6, 8));
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

/** A `YYYYMMDD` date or an ISO 8601 date or date-time as an ISO 8601 UTC date-time; null when absent or unreadable. */
export function isoDateTimeOrNull(value: string | null | undefined): string | null {
  if (!value) return null;
  const compact = /^(\d{4})(\d{2})(\d{2})$/.exec(value);
  const date = new Date(compact ? `${compact[1]}-${compact[2]}-${compact[3]}T00:00:00Z` : value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}
