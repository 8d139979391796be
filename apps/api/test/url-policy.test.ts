import { describe, expect, it } from 'vitest';
import { isNonPublicAddress } from '../src/webhook-endpoints/url-policy.js';

const nonPublic = [
  // IPv4: this network, private, loopback, carrier-grade NAT, link local (cloud metadata)
  '0.0.0.0', '0.255.255.255', '10.0.0.0', '10.255.255.255', '127.0.0.1', '127.255.255.255',
  '100.64.0.1', '100.127.255.255', '169.254.169.254', '172.16.0.0', '172.31.255.255', '192.168.0.1',
  // IETF assignments, documentation, 6to4 relay, AS112, AMT, benchmarking
  '192.0.0.1', '192.0.0.170', '192.0.2.1', '198.51.100.1', '203.0.113.1', '192.88.99.1',
  '192.175.48.1', '192.31.196.1', '192.52.193.1', '198.18.0.1', '198.19.255.255',
  // multicast, reserved, broadcast
  '224.0.0.1', '239.255.255.250', '240.0.0.1', '255.255.255.254', '255.255.255.255',
  // IPv6: unspecified, loopback, IPv4-mapped private addresses in several spellings
  '::', '0:0:0:0:0:0:0:0', '::1', '0:0:0:0:0:0:0:1', '::ffff:127.0.0.1', '::FFFF:127.0.0.1',
  '0:0:0:0:0:ffff:127.0.0.1', '::ffff:7f00:1', '::ffff:10.0.0.1', '::ffff:169.254.169.254', '::127.0.0.1', '::ffff:0:8.8.8.8',
  // unique local, link local, site local, multicast
  'fc00::1', 'fd12:3456::1', 'fdff:ffff::1', 'fe80::1', 'fe80::1%eth0', 'febf:ffff::1', 'fec0::1', 'ff00::1', 'ff02::1',
  // NAT64, documentation, 6to4, Teredo and the rest of 2001::/23, discard
  '64:ff9b::8.8.8.8', '64:ff9b::a00:1', '64:ff9b:1::1', '2001:db8::1', '2001:db8:ffff::1', '3fff::1',
  '2002::1', '2002:a00:1::1', '2001::1', '2001:0:4136:e378:8000:63bf:3fff:fdd2', '2001:2::1', '2001:1ff::1', '100::1',
  // not an IP address, or one that cannot be parsed
  '', 'localhost', '[::1]', '127.1', '010.0.0.1', '2130706433', '8.8.8.8.8', '1::2::3', '2606:4700::1%en-0',
];

const isPublic = [
  '8.8.8.8', '1.1.1.1', '93.184.216.34', '9.9.9.9', '1.0.0.0', '11.0.0.1', '100.63.255.255', '100.128.0.0',
  '128.0.0.1', '169.255.0.0', '172.15.255.255', '172.32.0.1', '192.169.0.0', '192.0.1.1', '192.0.43.10',
  '198.17.255.255', '198.20.0.0', '203.0.114.1', '223.255.255.255',
  '::ffff:8.8.8.8', '::FFFF:8.8.8.8', '0:0:0:0:0:ffff:8.8.8.8', '::ffff:808:808', '::8.8.8.8',
  '2606:4700::1111', '2606:4700:4700::1111', '2001:4860:4860::8888', '2a00:1450:4001::200e', '2001:200::1', '2003::1', '2001:db9::1',
];

describe('the webhook address policy', () => {
  it.each(nonPublic)('%s is not public', (address) => expect(isNonPublicAddress(address)).toBe(true));
  it.each(isPublic)('%s is public', (address) => expect(isNonPublicAddress(address)).toBe(false));
});
