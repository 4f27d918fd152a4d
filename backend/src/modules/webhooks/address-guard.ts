import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { WEBHOOK_LIMITS, WebhookMessages } from '@studio/contracts';

/**
 * Where webhooks may go (server-side request forgery, docs/api.md): public internet addresses
 * over https. With `allowLoopback` (WEBHOOK_ALLOW_LOOPBACK, never in production) also http:// and
 * this machine's own addresses, for local receivers and the tests; private, link-local and the
 * other non-public ranges stay refused even then.
 */
export interface AddressPolicy {
  allowLoopback: boolean;
}

const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

/** Every range that is not the public internet (IANA special-purpose registries, RFC 6890). */
const notPublic = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8], // "this network", 0.0.0.0 itself
  ['10.0.0.0', 8], // RFC 1918
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata at 169.254.169.254)
  ['172.16.0.0', 12], // RFC 1918
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay
  ['192.168.0.0', 16], // RFC 1918
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
] as const) {
  notPublic.addSubnet(net, bits, 'ipv4');
}
for (const [net, bits] of [
  ['::', 128], // unspecified
  ['::1', 128], // loopback
  ['64:ff9b::', 96], // NAT64 (would reach IPv4 behind it)
  ['64:ff9b:1::', 48], // local NAT64
  ['100::', 64], // discard
  ['2001::', 23], // IETF protocol assignments (Teredo and others)
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  notPublic.addSubnet(net, bits, 'ipv6');
}

/** The IPv4 address inside an IPv4-mapped or -compatible IPv6 address (::ffff:10.0.0.1), if any. */
function embeddedIpv4(address: string): string | undefined {
  // The URL parser writes any spelling of an IPv6 address the one short way (::ffff:7f00:1).
  const lower = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const dotted = /^::(?:ffff:)?(\d{1,3}(?:\.\d{1,3}){3})$/.exec(lower);
  if (dotted) return dotted[1];
  const hex = /^::(?:ffff:)?([0-9a-f]{1,4}):([0-9a-f]{1,4})$/.exec(lower);
  if (!hex) return undefined;
  const [high, low] = [parseInt(hex[1], 16), parseInt(hex[2], 16)];
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

/**
 * Whether a delivery may connect to this IP address under the policy. Anything that is not a
 * well-formed address is refused.
 */
export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  const family = isIP(address);
  if (family === 0) return false;
  if (family === 6) {
    const inner = embeddedIpv4(address);
    if (inner) return addressAllowed(inner, policy);
  }
  const type = family === 4 ? 'ipv4' : 'ipv6';
  if (policy.allowLoopback && loopback.check(address, type)) return true;
  return !notPublic.check(address, type);
}

/** A problem with an endpoint's address, said as the 422 says it. */
export class UnsafeWebhookUrl extends Error {}

/** The URL parsed, with its scheme and host checked (not its addresses: see `resolveChecked`). */
export function parseWebhookUrl(raw: string, policy: AddressPolicy): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new UnsafeWebhookUrl(WebhookMessages.badUrl);
  }
  if (raw.length > WEBHOOK_LIMITS.urlMaxLength || !url.hostname)
    throw new UnsafeWebhookUrl(WebhookMessages.badUrl);
  if (url.username || url.password) throw new UnsafeWebhookUrl(WebhookMessages.credentialsInUrl);
  const allowed = policy.allowLoopback ? ['https:', 'http:'] : ['https:'];
  if (!allowed.includes(url.protocol)) throw new UnsafeWebhookUrl(WebhookMessages.httpsOnly);
  return url;
}

/** The host of a URL as an address or a name (IPv6 literals lose their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * Every address the host resolves to, each checked; throws UnsafeWebhookUrl on the first refused
 * one (a name with one private address among public ones is refused: the connection could take it).
 */
export async function resolveChecked(
  host: string,
  policy: AddressPolicy,
): Promise<{ address: string; family: number }[]> {
  const addresses = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true, verbatim: true }).catch(() => {
        throw new UnsafeWebhookUrl(WebhookMessages.unresolvable(host));
      });
  if (addresses.length === 0) throw new UnsafeWebhookUrl(WebhookMessages.unresolvable(host));
  for (const { address } of addresses) {
    if (!addressAllowed(address, policy)) throw new UnsafeWebhookUrl(WebhookMessages.notPublic(address));
  }
  return addresses;
}
