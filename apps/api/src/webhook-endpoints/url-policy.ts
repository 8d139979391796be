import { lookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';

/**
 * Whether an address is loopback, private, link-local, unique-local, unspecified or
 * otherwise not a public unicast address (production endpoints may not target these).
 */
export function isNonPublicAddress(address: string): boolean {
  const family = isIP(address);
  if (family === 4) return isNonPublicV4(address);
  if (family === 6) {
    const lower = address.toLowerCase();
    const mapped = /^(?:0*:)*(?:0*:)?ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(lower) ?? /^::(\d+\.\d+\.\d+\.\d+)$/.exec(lower);
    if (mapped) return isNonPublicV4(mapped[1]!);
    const hextets = expandV6(lower);
    if (!hextets) return true;
    if (hextets.every((h) => h === 0)) return true; // ::
    if (hextets.slice(0, 7).every((h) => h === 0) && hextets[7] === 1) return true; // ::1
    if (hextets.slice(0, 5).every((h) => h === 0) && hextets[5] === 0xffff) return true; // mapped, other spelling
    const first = hextets[0]!;
    if ((first & 0xfe00) === 0xfc00) return true; // fc00::/7 unique local
    if ((first & 0xffc0) === 0xfe80) return true; // fe80::/10 link local
    if ((first & 0xffc0) === 0xfec0) return true; // fec0::/10 site local (deprecated)
    if ((first & 0xff00) === 0xff00) return true; // multicast
    if (first === 0x64 && hextets[1] === 0xff9b) return true; // NAT64 may reach private v4
    if (first === 0x2001 && hextets[1] === 0xdb8) return true; // documentation
    return false;
  }
  return true;
}

function isNonPublicV4(address: string): boolean {
  const [a, b] = address.split('.').map(Number) as [number, number, number, number];
  return (
    a === 0 || // this network
    a === 10 ||
    a === 127 ||
    (a === 100 && b >= 64 && b <= 127) || // carrier-grade NAT
    (a === 169 && b === 254) || // link local (cloud metadata)
    (a === 172 && b >= 16 && b <= 31) ||
    (a === 192 && b === 168) ||
    (a === 192 && b === 0) ||
    (a === 198 && (b === 18 || b === 19)) || // benchmarking
    a >= 224 // multicast, reserved, broadcast
  );
}

function expandV6(address: string): number[] | undefined {
  const [head, tail, extra] = address.split('::');
  if (extra !== undefined) return undefined;
  const parse = (part: string | undefined) => (part ? part.split(':').map((h) => parseInt(h, 16)) : []);
  const left = parse(head);
  const right = parse(tail);
  const missing = 8 - left.length - right.length;
  const all = tail === undefined ? left : [...left, ...new Array<number>(Math.max(missing, 0)).fill(0), ...right];
  return all.length === 8 && all.every((h) => Number.isInteger(h) && h >= 0 && h <= 0xffff) ? all : undefined;
}

export class RefusedAddressError extends Error {
  constructor(readonly host: string) {
    super(`webhook host ${host} resolves to a loopback, private or link-local address`);
    this.name = 'RefusedAddressError';
  }
}

/** Resolves a host as connections will (dns.lookup, every address). */
export function resolveHost(host: string): Promise<LookupAddress[]> {
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
