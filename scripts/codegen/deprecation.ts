import type { Doc } from './refs.js';

/**
 * When a deprecated operation was deprecated and when it stops being served (spec/VERSIONING.md):
 * `deprecated: true` with `x-deprecated-at` and `x-sunset`, both calendar dates (`2027-06-30`,
 * midnight UTC). The service answers such an operation with `Deprecation` and `Sunset` headers.
 */
export interface DeprecationInfo {
  /** `x-deprecated-at`, `YYYY-MM-DD`. */
  deprecatedAt: string;
  /** `x-sunset`, `YYYY-MM-DD`, after `deprecatedAt`. */
  sunset: string;
}

const DATE = /^(\d{4}-\d{2}-\d{2})(T00:00:00(\.0+)?Z)?$/;

/** A YAML date (a string, or a Date where a YAML 1.1 parser made one) as `YYYY-MM-DD`, or undefined when it is not one. */
function calendarDate(value: unknown): string | undefined {
  const text = value instanceof Date ? value.toISOString() : value;
  if (typeof text !== 'string') return undefined;
  const day = DATE.exec(text)?.[1];
  if (!day || Number.isNaN(Date.parse(`${day}T00:00:00Z`)) || new Date(`${day}T00:00:00Z`).toISOString().slice(0, 10) !== day) return undefined;
  return day;
}

/** The operation's deprecation, or undefined when it is not deprecated; `pnpm generate` fails on a half-declared one. */
export function deprecationOf(op: Doc, where: string): DeprecationInfo | undefined {
  const marked = op.deprecated === true;
  const rawAt: unknown = op['x-deprecated-at'];
  const rawSunset: unknown = op['x-sunset'];
  if (!marked) {
    if (rawAt !== undefined || rawSunset !== undefined) {
      throw new Error(`${where}: \`x-deprecated-at\` and \`x-sunset\` belong to a deprecated operation; add \`deprecated: true\` or remove them`);
    }
    return undefined;
  }
  const deprecatedAt = calendarDate(rawAt);
  const sunset = calendarDate(rawSunset);
  if (!deprecatedAt || !sunset) {
    throw new Error(
      `${where}: a deprecated operation needs \`x-deprecated-at\` and \`x-sunset\` dates (YYYY-MM-DD), not ${JSON.stringify(rawAt)} and ${JSON.stringify(rawSunset)} (spec/VERSIONING.md)`,
    );
  }
  if (sunset <= deprecatedAt) throw new Error(`${where}: \`x-sunset\` (${sunset}) must come after \`x-deprecated-at\` (${deprecatedAt})`);
  return { deprecatedAt, sunset };
}
