/**
 * The grammar of an allow list's entries (`oscAllow`, `midiAllow`): an IPv4 or IPv6 address, or a
 * subnet of one (`192.168.1.0/24`, `fd00::/8`). Declared here, where the settings are, so that a
 * bad entry is refused as the settings are read; the server matches senders against it
 * (`server/auth/subnets.ts`).
 * @module
 */

/** An address as a number and its width, or null when it is no IP address. */
export function parseIp(text: string): { value: bigint; bits: number } | null {
  if (/^\d{1,3}(\.\d{1,3}){3}$/.test(text)) {
    const parts = text.split(".").map(Number);
    if (parts.some((p) => p > 255)) return null;
    return { value: parts.reduce((n, p) => (n << 8n) | BigInt(p), 0n), bits: 32 };
  }
  if (!text.includes(":")) return null;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(text);
  if (mapped) return parseIp(mapped[1]!);
  const [head, tail, extra] = text.split("::");
  if (extra !== undefined) return null;
  const groups = (s: string | undefined) => (s ? s.split(":") : []);
  const left = groups(head);
  const right = groups(tail);
  const missing = 8 - left.length - right.length;
  if (tail === undefined ? missing !== 0 : missing < 1) return null;
  const all = [...left, ...Array<string>(tail === undefined ? 0 : missing).fill("0"), ...right];
  let value = 0n;
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    value = (value << 16n) | BigInt(parseInt(g, 16));
  }
  return { value, bits: 128 };
}

/** A subnet rule: `10.0.0.0/8`, `fd00::/8` or one address. */
export interface Subnet {
  value: bigint;
  bits: number;
  prefix: number;
}

/**
 * Parses the entries of an allow list (`oscAllow`, `midiAllow`: `setting` names it in a refusal).
 * @throws {Error} naming the bad entry
 */
export function parseSubnets(entries: readonly string[], setting = "oscAllow"): Subnet[] {
  return entries.map((entry) => {
    const [address, prefixText] = entry.split("/");
    const ip = parseIp(address!.trim());
    const prefix = prefixText === undefined ? ip?.bits : Number(prefixText);
    if (
      !ip || prefix === undefined || !Number.isInteger(prefix) || prefix < 0 || prefix > ip.bits
    ) {
      throw new Error(
        `${setting}: "${entry}" is not an address or subnet: expected one such as 192.168.1.7 or 192.168.1.0/24`,
      );
    }
    return { ...ip, prefix };
  });
}
