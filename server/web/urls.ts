/**
 * Where a phone on the LAN finds the web remote: one URL per address of this
 * machine that another device can reach.
 * @module
 */

/** An interface address as `Deno.networkInterfaces()` lists it. */
export interface InterfaceAddress {
  family: "IPv4" | "IPv6";
  address: string;
}

function isReachableFromLan(i: InterfaceAddress): boolean {
  const a = i.address.toLowerCase();
  if (i.family === "IPv4") return !a.startsWith("127.") && !a.startsWith("169.254.");
  // Loopback and link-local IPv6 addresses need a zone or are this machine only.
  return a !== "::1" && !a.startsWith("fe80:");
}

/**
 * The addresses of this machine another device on the LAN can reach: IPv4
 * first (what phones type and venue networks route), without loopback and
 * link-local ones, each once.
 */
export function lanAddresses(
  interfaces: readonly InterfaceAddress[] = readInterfaces(),
): InterfaceAddress[] {
  const seen = new Set<string>();
  const found = interfaces.filter((i) => {
    if (!isReachableFromLan(i) || seen.has(i.address)) return false;
    seen.add(i.address);
    return true;
  });
  return found.sort((a, b) => (a.family === b.family ? 0 : a.family === "IPv4" ? -1 : 1));
}

function readInterfaces(): InterfaceAddress[] {
  try {
    return Deno.networkInterfaces();
  } catch {
    return []; // no permission to list interfaces
  }
}

/**
 * The remote's URL on each LAN address, with `#otp=<code>` when a pairing
 * code is given: the page reads it from the fragment (never sent to the
 * server) and pairs at once, so scanning the QR code is all a phone does.
 * @example remoteUrls(17736, { otp: "483920" }) // ["http://192.168.1.5:17736/#otp=483920"]
 */
export function remoteUrls(
  port: number,
  options: {
    otp?: string;
    interfaces?: readonly InterfaceAddress[];
    /** The addresses the service listens on (`host`): only those it serves are offered. */
    hosts?: readonly string[];
  } = {},
): string[] {
  const fragment = options.otp === undefined ? "" : `#otp=${options.otp}`;
  // A name among the hosts (resolved when bound) cannot be told here: every address is offered.
  const hosts = options.hosts?.some((h) => canonicalIp(h) === null)
    ? undefined
    : options.hosts?.map((h) => canonicalIp(h)!);
  const served = (i: InterfaceAddress) =>
    hosts === undefined || hosts.includes(canonicalIp(i.address) ?? i.address) ||
    hosts.includes("[::]") || (i.family === "IPv4" && hosts.includes("0.0.0.0"));
  return lanAddresses(options.interfaces).filter(served).map((i) => {
    const host = i.family === "IPv6" ? `[${i.address}]` : i.address;
    return `http://${host}:${port}/${fragment}`;
  });
}

/** An IP address in one written form (`fd00:0::23` as `[fd00::23]`), or null for a name. */
function canonicalIp(address: string): string | null {
  const isV6 = address.includes(":");
  if (!isV6 && !/^\d{1,3}(?:\.\d{1,3}){3}$/.test(address)) return null;
  try {
    return new URL(`http://${isV6 ? `[${address}]` : address}/`).hostname;
  } catch {
    return null;
  }
}
