/**
 * Peer addresses as the rest of the service sees them: an IPv4 client that
 * reaches a dual-stack (`::`) socket arrives as `::ffff:a.b.c.d` and is
 * reported as `a.b.c.d`, so `127.0.0.1` is local and limits count one
 * client once, whichever socket it came through.
 * @module
 */

const MAPPED_IPV4 = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i;

/**
 * The address in its plain form: IPv4-mapped IPv6 becomes IPv4; IPv6 is
 * lower-cased; anything else is returned as given.
 * @example normalizeAddress("::FFFF:127.0.0.1") // "127.0.0.1"
 */
export function normalizeAddress(address: string): string {
  const mapped = MAPPED_IPV4.exec(address);
  if (mapped) return mapped[1]!;
  return address.includes(":") ? address.toLowerCase() : address;
}
