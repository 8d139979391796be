import { readFileSync } from 'node:fs';
import ipaddr from 'ipaddr.js';
import { ConfigError } from '../config.js';

type Address = ipaddr.IPv4 | ipaddr.IPv6;

/** One range of the file: `globally_reachable` as its registry says (null: N/A, or a terminated block). */
interface RangeEntry {
  prefix: string;
  name: string;
  globally_reachable: boolean | null;
}

interface Range {
  network: [Address, number];
  reachable: boolean;
}

/**
 * The IANA special-purpose address ranges (and the rest of the address space that is not
 * global unicast), read from a data file the operator can replace
 * (`reference-data/ip-special-purpose.json`, WEBHOOK_SPECIAL_RANGES_FILE). The most specific
 * range holding an address decides whether it is globally reachable; an address in no range is.
 */
export class SpecialRanges {
  /** Most specific first; at equal length, unreachable first. */
  private readonly ranges: Range[];

  constructor(ranges: Range[]) {
    this.ranges = [...ranges].sort((a, b) => b.network[1] - a.network[1] || Number(a.reachable) - Number(b.reachable));
  }

  /** Reads and checks the file; a file that cannot be used stops the start with a message naming it. */
  static load(file: string): SpecialRanges {
    const fail = (problem: string) => new ConfigError(`WEBHOOK_SPECIAL_RANGES_FILE (${file}) ${problem}`);
    let document: { registries?: { ranges?: RangeEntry[] }[] };
    try {
      document = JSON.parse(readFileSync(file, 'utf8')) as typeof document;
    } catch (error) {
      throw fail(`cannot be read as JSON: ${(error as Error).message}`);
    }
    const entries = Array.isArray(document?.registries) ? document.registries.flatMap((r) => (Array.isArray(r?.ranges) ? r.ranges : [])) : [];
    const ranges = entries.map((entry): Range => {
      if (!ipaddr.isValidCIDR(String(entry?.prefix))) throw fail(`has a range whose prefix is not an address block: ${JSON.stringify(entry?.prefix)}`);
      if (![true, false, null].includes(entry.globally_reachable)) throw fail(`has a range whose globally_reachable is not true, false or null: ${entry.prefix}`);
      return { network: ipaddr.parseCIDR(entry.prefix), reachable: entry.globally_reachable === true };
    });
    for (const kind of ['ipv4', 'ipv6']) {
      if (!ranges.some((r) => r.network[0].kind() === kind)) throw fail(`lists no ${kind === 'ipv4' ? 'IPv4' : 'IPv6'} range (registries[].ranges[])`);
    }
    return new SpecialRanges(ranges);
  }

  /** Whether the most specific range holding the address says it is globally reachable. */
  reachable(address: Address): boolean {
    for (const range of this.ranges) {
      if (range.network[0].kind() === address.kind() && address.match(range.network)) return range.reachable;
    }
    return true;
  }
}
