import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../src/config.js';
import { AddressPolicy } from '../src/webhook-endpoints/url-policy.js';

/** The policy of the shipped copy of the IANA registries (reference-data/ip-special-purpose.json). */
const policy = AddressPolicy.load(loadConfig({}).webhooks.specialRangesFile);

const nonPublic: [string, string][] = [
  // IPv4 special-purpose blocks that are not globally reachable
  ['0.0.0.0', 'this host'], ['0.255.255.255', 'this network'], ['10.0.0.0', 'private'], ['10.255.255.255', 'private'],
  ['127.0.0.1', 'loopback'], ['127.255.255.255', 'loopback'], ['100.64.0.1', 'shared (CGN)'], ['100.127.255.255', 'shared (CGN)'],
  ['169.254.169.254', 'link local (cloud metadata)'], ['172.16.0.0', 'private'], ['172.31.255.255', 'private'], ['192.168.0.1', 'private'],
  ['192.0.0.1', 'IPv4 service continuity'], ['192.0.0.8', 'IPv4 dummy'], ['192.0.0.170', 'NAT64 discovery'], ['192.0.0.255', 'IETF protocol assignments'],
  ['192.0.2.1', 'documentation'], ['198.51.100.1', 'documentation'], ['203.0.113.1', 'documentation'],
  ['192.88.99.1', 'deprecated 6to4 relay'], ['192.88.99.2', '6a44 relay'], ['198.18.0.1', 'benchmarking'], ['198.19.255.255', 'benchmarking'],
  ['240.0.0.1', 'reserved'], ['255.255.255.254', 'reserved'], ['255.255.255.255', 'limited broadcast'],
  ['224.0.0.1', 'multicast'], ['239.255.255.250', 'multicast'],
  // IPv6 special-purpose blocks, and the space outside global unicast
  ['::', 'unspecified'], ['0:0:0:0:0:0:0:0', 'unspecified'], ['::1', 'loopback'], ['0:0:0:0:0:0:0:1', 'loopback'],
  ['fc00::1', 'unique local'], ['fd12:3456::1', 'unique local'], ['fdff:ffff::1', 'unique local'],
  ['fe80::1', 'link local'], ['febf:ffff::1', 'link local'], ['fec0::1', 'deprecated site local'], ['ff00::1', 'multicast'], ['ff02::1', 'multicast'],
  ['100::1', 'discard only'], ['100:0:0:1::1', 'dummy prefix'], ['2001:db8::1', 'documentation'], ['2001:db8:ffff::1', 'documentation'], ['3fff::1', 'documentation'],
  ['2001:2::1', 'benchmarking'], ['2001:1ff::1', 'IETF protocol assignments'], ['2001:10::1', 'deprecated ORCHID'], ['5f00::1', 'SRv6 SIDs'],
  ['4000::1', 'reserved by IETF'], ['1::1', 'reserved by IETF'],
  // IPv4-mapped, in several spellings
  ['::ffff:127.0.0.1', 'mapped loopback'], ['::FFFF:127.0.0.1', 'mapped loopback'], ['0:0:0:0:0:ffff:127.0.0.1', 'mapped loopback'],
  ['::ffff:7f00:1', 'mapped loopback'], ['::ffff:10.0.0.1', 'mapped private'], ['::ffff:169.254.169.254', 'mapped link local'], ['::ffff:192.0.2.1', 'mapped documentation'],
  // IPv4-compatible (::/96): http://[::127.0.0.1]/ is stored as [::7f00:1]
  ['::127.0.0.1', 'compatible loopback'], ['::7f00:1', 'compatible loopback'], ['::a9fe:a9fe', 'compatible link local'], ['::0.0.0.2', 'compatible this network'],
  // IPv4-translated (RFC 6145)
  ['::ffff:0:7f00:1', 'translated loopback'], ['::ffff:0:10.0.0.1', 'translated private'], ['::ffff:0:203.0.113.9', 'translated documentation'],
  // 6to4: 2002:AABB:CCDD:: stands for AA.BB.CC.DD
  ['2002:7f00:1::', '6to4 of loopback'], ['2002:a9fe:a9fe::', '6to4 of link local'], ['2002:a00:1::1', '6to4 of private'], ['2002::1', '6to4 of this network'],
  // Teredo: the client is the bitwise NOT of the last 32 bits
  ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'Teredo client 127.0.0.1'], ['2001:0:4136:e378:8000:63bf:f5ff:fffe', 'Teredo client 10.0.0.1'],
  ['2001:0:4136:e378:8000:63bf:3f57:fefe', 'Teredo client 192.168.1.1'], ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo client 192.0.2.45'],
  ['2001::1', 'Teredo client 255.255.255.254'],
  // NAT64, well-known prefix (the last 32 bits) and local-use prefix (every position a /48 to /96 prefix puts them)
  ['64:ff9b::7f00:1', 'NAT64 of loopback'], ['64:ff9b::a9fe:a9fe', 'NAT64 of link local'], ['64:ff9b::10.0.0.1', 'NAT64 of private'], ['64:ff9b::192.0.2.1', 'NAT64 of documentation'],
  ['64:ff9b:1::a00:1', 'local NAT64 /96 of private'], ['64:ff9b:1:7f00:0:100::', 'local NAT64 /48 of loopback'], ['64:ff9b:1::1', 'local NAT64 of this network'],
  ['64:ff9b:1::808:808', 'local NAT64: 8.8.8.8 at /96, 0.0.0.0 at /48'],
  // not an IP address, one with a zone, or one that cannot be parsed
  ['', 'empty'], ['localhost', 'a name'], ['[::1]', 'bracketed'], ['127.1', 'short form'], ['010.0.0.1', 'octal form'], ['2130706433', 'integer form'],
  ['8.8.8.8.8', 'five parts'], ['1::2::3', 'two ::'], ['fe80::1%eth0', 'zone'], ['2606:4700::1%en-0', 'zone'],
];

const isPublic: [string, string][] = [
  ['8.8.8.8', 'public'], ['1.1.1.1', 'public'], ['93.184.216.34', 'public'], ['9.9.9.9', 'public'], ['1.0.0.0', 'public'], ['11.0.0.1', 'public'],
  ['100.63.255.255', 'below shared'], ['100.128.0.0', 'above shared'], ['128.0.0.1', 'public'], ['169.255.0.0', 'above link local'],
  ['172.15.255.255', 'below private'], ['172.32.0.1', 'above private'], ['192.169.0.0', 'above private'], ['192.0.1.1', 'public'], ['192.0.43.10', 'public'],
  ['198.17.255.255', 'below benchmarking'], ['198.20.0.0', 'above benchmarking'], ['203.0.114.1', 'above documentation'], ['223.255.255.255', 'below multicast'],
  // special-purpose blocks the registry marks globally reachable
  ['192.0.0.9', 'PCP anycast'], ['192.0.0.10', 'TURN anycast'], ['192.31.196.1', 'AS112-v4'], ['192.52.193.1', 'AMT'], ['192.175.48.1', 'AS112 delegation'],
  ['2001:1::1', 'PCP anycast'], ['2001:3::1', 'AMT'], ['2001:4:112::1', 'AS112-v6'], ['2001:20::1', 'ORCHIDv2'], ['2001:30::1', 'DETs'], ['2620:4f:8000::1', 'AS112 delegation'],
  // global unicast
  ['2606:4700::1111', 'public'], ['2606:4700:4700::1111', 'public'], ['2001:4860:4860::8888', 'public'], ['2a00:1450:4001::200e', 'public'],
  ['2001:200::1', 'past 2001::/23'], ['2003::1', 'public'], ['2001:db9::1', 'past documentation'],
  // embedding forms are judged by the IPv4 address they embed
  ['::ffff:8.8.8.8', 'mapped'], ['::FFFF:8.8.8.8', 'mapped'], ['0:0:0:0:0:ffff:8.8.8.8', 'mapped'], ['::ffff:808:808', 'mapped'],
  ['::8.8.8.8', 'compatible'], ['::ffff:0:8.8.8.8', 'translated'], ['2002:808:808::1', '6to4'], ['2001:0:4136:e378:8000:63bf:f7f7:f7f7', 'Teredo client 8.8.8.8'],
  ['64:ff9b::8.8.8.8', 'NAT64'], ['64:ff9b:1:808:8:808:808:808', 'local NAT64, 8.8.8.8 at every position'],
];

describe('the webhook address policy (IANA special-purpose registries, embedded IPv4 judged)', () => {
  it.each(nonPublic)('%s is not public (%s)', (address) => expect(policy.isNonPublic(address)).toBe(true));
  it.each(isPublic)('%s is public (%s)', (address) => expect(policy.isNonPublic(address)).toBe(false));
});

describe('the ranges file the operator may replace (WEBHOOK_SPECIAL_RANGES_FILE)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'special-ranges-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };
  const range = (prefix: string, globally_reachable: boolean | null) => ({ prefix, name: 'test', globally_reachable });

  it('decides: the most specific range holding an address wins, and a range marked unreachable applies to embedded forms too', () => {
    const custom = AddressPolicy.load(
      file('custom.json', { registries: [{ ranges: [range('8.8.0.0/16', false), range('8.8.4.0/24', true), range('fc00::/7', false)] }] }),
    );
    expect(custom.isNonPublic('8.8.8.8')).toBe(true);
    expect(custom.isNonPublic('::ffff:8.8.8.8')).toBe(true);
    expect(custom.isNonPublic('8.8.4.4')).toBe(false);
    // Not listed: public.
    expect(custom.isNonPublic('10.0.0.1')).toBe(false);
  });

  it.each([
    ['not JSON', '{', 'cannot be read as JSON'],
    ['a prefix that is no block', { registries: [{ ranges: [range('10.0.0.0/33', false), range('::1/128', false)] }] }, 'not an address block'],
    ['a reachability that is no boolean', { registries: [{ ranges: [{ prefix: '10.0.0.0/8', globally_reachable: 'no' }, range('::1/128', false)] }] }, 'not true, false or null'],
    ['no IPv6 range', { registries: [{ ranges: [range('10.0.0.0/8', false)] }] }, 'lists no IPv6 range'],
  ])('stops the start on a file with %s, naming the variable', (name, content, message) => {
    const path = file(`${name}.json`, content);
    expect(() => AddressPolicy.load(path)).toThrow(ConfigError);
    expect(() => AddressPolicy.load(path)).toThrow(`WEBHOOK_SPECIAL_RANGES_FILE (${path}) `);
    expect(() => AddressPolicy.load(path)).toThrow(message);
  });

  it('stops the start when the file is missing', () => {
    expect(() => AddressPolicy.load(join(dir, 'missing.json'))).toThrow(/WEBHOOK_SPECIAL_RANGES_FILE .* cannot be read/);
  });
});
