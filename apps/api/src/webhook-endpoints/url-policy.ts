import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/**
 * Whether an address is not a public unicast address (production endpoints may not target
 * these): loopback, private, link-local, unique-local, unspecified, multicast, documentation,
 * NAT64, 6to4, Teredo or another special-purpose range that ipaddr.js names (an IPv4-mapped
 * IPv6 address is judged as its IPv4 address), or not an IP address at all.
 */
export function isNonPublicAddress(address: string): boolean {
  if (!isIP(address)) return true;
  try {
    return ipaddr.process(address).range() !== 'unicast';
  } catch {
    return true;
  }
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

/** Throws RefusedAddressError when any address of the host is not public. */
export async function assertPublicHost(host: string): Promise<void> {
  const addresses = await resolveHost(host);
  if (addresses.length === 0 || addresses.some((a) => isNonPublicAddress(a.address))) throw new RefusedAddressError(host);
}

/**
 * A `lookup` for http.request that refuses non-public addresses at connection time, so a
 * host cannot pass the check and then resolve elsewhere for the connection (DNS rebinding).
 */
export function publicOnlyLookup(
  hostname: string,
  options: { all?: boolean } & Record<string, unknown>,
  callback: (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
): void {
  lookup(hostname, { ...options, all: true } as never, (error: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => {
    if (error) return callback(error, '');
    if (addresses.length === 0 || addresses.some((a) => isNonPublicAddress(a.address))) {
      return callback(Object.assign(new RefusedAddressError(hostname), { code: 'EREFUSEDADDRESS' }), '');
    }
    if (options.all) return callback(null, addresses);
    return callback(null, addresses[0]!.address, addresses[0]!.family);
  });
}
