import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
import { SpecialRanges } from './special-ranges.js';

/**
 * IPv6 forms that carry an IPv4 address: such an address reaches (through a translator,
 * a tunnel or the host's own stack) the IPv4 address it embeds, so it is judged by that
 * address. `embedded` answers every IPv4 address the form may stand for.
 */
const EMBEDDING: { network: [ipaddr.IPv6, number]; embedded: (bytes: number[]) => number[][] }[] = [
  // IPv4-mapped (RFC 4291) and IPv4-translated (RFC 6145): the last 32 bits.
  { network: ipaddr.IPv6.parseCIDR('::ffff:0:0/96'), embedded: (b) => [b.slice(12)] },
  { network: ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), embedded: (b) => [b.slice(12)] },
  // IPv4-compatible (RFC 4291, deprecated): ::a.b.c.d, but not :: and ::1 (unspecified, loopback).
  { network: ipaddr.IPv6.parseCIDR('::/96'), embedded: (b) => (b.slice(12, 15).every((x) => x === 0) && b[15]! <= 1 ? [] : [b.slice(12)]) },
  // NAT64, well-known prefix (RFC 6052): the last 32 bits.
  { network: ipaddr.IPv6.parseCIDR('64:ff9b::/96'), embedded: (b) => [b.slice(12)] },
  // NAT64, local-use prefix (RFC 8215): the operator picks a /48 to /96 prefix inside it, so
  // the address sits where RFC 6052 puts it for any of them (bits 64 to 71 are skipped).
  {
    network: ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'),
    embedded: (b) => [[b[6]!, b[7]!, b[9]!, b[10]!], [b[7]!, b[9]!, b[10]!, b[11]!], b.slice(9, 13), b.slice(12)],
  },
  // 6to4 (RFC 3056): 2002:AABB:CCDD::/48 stands for AA.BB.CC.DD.
  { network: ipaddr.IPv6.parseCIDR('2002::/16'), embedded: (b) => [b.slice(2, 6)] },
  // Teredo (RFC 4380): the client's address is the bitwise NOT of the last 32 bits.
  { network: ipaddr.IPv6.parseCIDR('2001::/32'), embedded: (b) => [b.slice(12).map((x) => x ^ 0xff)] },
];

/** The IPv4 addresses an IPv6 address embeds, or undefined when it embeds none (it is judged itself). */
function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4[] | undefined {
  const form = EMBEDDING.find((f) => address.match(f.network));
  const embedded = form?.embedded(address.toByteArray()) ?? [];
  return embedded.length > 0 ? embedded.map((octets) => new ipaddr.IPv4(octets)) : undefined;
}

export class RefusedAddressError extends Error {
  constructor(readonly host: string) {
    super(`webhook host ${host} resolves to a loopback, private or link-local address`);
    this.name = 'RefusedAddressError';
  }
}

/** Resolves a host as connections will (dns.lookup, every address). */
function resolveHost(host: string): Promise<LookupAddress[]> {
  const bare = host.replace(/^\[|\]$/g, '');
  if (isIP(bare)) return Promise.resolve([{ address: bare, family: isIP(bare) }]);
  return new Promise((done, fail) => lookup(bare, { all: true }, (error, addresses) => (error ? fail(error) : done(addresses))));
}

/**
 * Which addresses production endpoints may reach: public ones only. An address is public
 * when the IANA special-purpose registries (the operator's file, `SpecialRanges`) mark the
 * most specific range holding it globally reachable, or no range holds it; an address of an
 * IPv6 form that embeds an IPv4 address is public when every IPv4 address it may stand for is.
 * Anything that is not an IP address, or carries a zone (`%eth0`), is not public.
 */
export class AddressPolicy {
  constructor(private readonly ranges: SpecialRanges) {}

  /** The policy of the operator's ranges file (read once, at start). */
  static load(file: string): AddressPolicy {
    return new AddressPolicy(SpecialRanges.load(file));
  }

  isNonPublic(address: string): boolean {
    if (!isIP(address) || address.includes('%')) return true;
    let parsed: ipaddr.IPv4 | ipaddr.IPv6;
    try {
      parsed = ipaddr.parse(address);
    } catch {
      return true;
    }
    const judged = parsed.kind() === 'ipv6' ? (embeddedIPv4(parsed as ipaddr.IPv6) ?? [parsed]) : [parsed];
    return !judged.every((a) => this.ranges.reachable(a));
  }

  /** Throws RefusedAddressError when any address of the host is not public. */
  async assertPublicHost(host: string): Promise<void> {
    const addresses = await resolveHost(host);
    if (addresses.length === 0 || addresses.some((a) => this.isNonPublic(a.address))) throw new RefusedAddressError(host);
  }

  /**
   * A `lookup` for http.request that refuses non-public addresses at connection time, so a
   * host cannot pass the check and then resolve elsewhere for the connection (DNS rebinding).
   */
  readonly lookup = (
    hostname: string,
    options: { all?: boolean } & Record<string, unknown>,
    callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    lookup(hostname, { ...options, all: true } as never, (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
      if (error) return callback(error, '');
      if (addresses.length === 0 || addresses.some((a) => this.isNonPublic(a.address))) {
        return callback(Object.assign(new RefusedAddressError(hostname), { code: 'EREFUSEDADDRESS' }), '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}
