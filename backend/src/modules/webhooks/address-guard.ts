import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';
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

/**
 * The one range a webhook may reach: what ipaddr.js (its tables of the IANA special-purpose
 * registries) calls `unicast`, i.e. in none of the ranges it knows. Every other name it gives is
 * refused: private, loopback, linkLocal, uniqueLocal, unspecified, broadcast, multicast,
 * carrierGradeNat, reserved (documentation, benchmarking, 240/4...), as112, amt, discard,
 * deprecatedSiteLocal, orchid, segmentRouting, and every IPv6 form that carries or reaches an IPv4
 * address: ipv4Mapped (::ffff:a.b.c.d), rfc6145 (::ffff:0:a.b.c.d, IPv4-translated), rfc6052 (the
 * NAT64 prefixes 64:ff9b::/96 and 64:ff9b:1::/48), 6to4 (2002::/16) and teredo (2001::/32). Those
 * are refused outright, whatever IPv4 address they hold: a public server has no need of them.
 */
const PUBLIC_RANGE = 'unicast';

/** The ranges a delivery may reach with the local setting besides PUBLIC_RANGE (127/8, ::1). */
const LOCAL_RANGE = 'loopback';

/**
 * IPv6 outside the global unicast space 2000::/3 that ipaddr.js still calls `unicast`: the rest of
 * ::/8 (the deprecated IPv4-compatible ::a.b.c.d among it) and the unassigned space. Refused too.
 */
function outsideGlobalUnicast(address: ipaddr.IPv6): boolean {
  return (address.parts[0]! & 0xe000) !== 0x2000;
}

/** The ipaddr.js name of the address's range ('unicast' for the public internet), or null when it is not an address. */
export function addressRange(address: string): string | null {
  // node:net's check first: only the usual spellings (the URL parser and DNS give no other);
  // ipaddr.js alone would also read forms such as 0x7f.1.
  if (isIP(address) === 0) return null;
  const parsed = ipaddr.parse(address);
  const range = parsed.range();
  if (range === PUBLIC_RANGE && parsed.kind() === 'ipv6' && outsideGlobalUnicast(parsed as ipaddr.IPv6))
    return 'reserved';
  return range;
}

/**
 * Whether a delivery may connect to this IP address under the policy. Anything that is not a
 * well-formed address is refused.
 */
export function addressAllowed(address: string, policy: AddressPolicy): boolean {
  const range = addressRange(address);
  if (range === PUBLIC_RANGE) return true;
  return policy.allowLoopback && range === LOCAL_RANGE;
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
