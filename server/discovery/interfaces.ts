/**
 * The network interfaces the adverts go out on, from `Deno.networkInterfaces()`
 * (no `ip` or `arp` is run), chosen by the `host` setting.
 * @module
 */

/** One interface the responder serves: its IPv4 address carries the multicast socket. */
export interface AdvertInterface {
  /** The system name (`eth0`, `lo`, `en0`). */
  name: string;
  /** The IPv4 address the multicast socket uses on it. */
  address: string;
  /** Its IPv4 netmask: a packet is taken as this interface's when its source is in the subnet. */
  netmask: string;
  /** The addresses published as A and AAAA records for it. */
  addresses: string[];
}

/** Lists the interfaces (a seam for tests). */
export type InterfaceLister = () => AdvertInterface[];

const WILDCARDS = new Set(["::", "0.0.0.0", "[::]"]);

/**
 * The interfaces to advertise on, for the service's `host` setting: with a
 * wildcard (`::`, `0.0.0.0`), every interface that has an IPv4 address except
 * the loopback; with addresses, the interfaces holding them, publishing only
 * those addresses (so `--host 127.0.0.1` advertises on the loopback alone).
 */
export function systemInterfaces(hosts: string[]): InterfaceLister {
  const wildcard = hosts.some((h) => WILDCARDS.has(h));
  const bound = new Set(hosts.map((h) => h.replace(/^\[|\]$/g, "").toLowerCase()));
  return () => {
    const byName = new Map<string, Deno.NetworkInterfaceInfo[]>();
    for (const info of Deno.networkInterfaces()) {
      byName.set(info.name, [...(byName.get(info.name) ?? []), info]);
    }
    const chosen: AdvertInterface[] = [];
    for (const [name, infos] of byName) {
      const v4 = infos.find((i) => i.family === "IPv4");
      if (!v4) continue; // the multicast socket is IPv4 (224.0.0.251)
      const isLoopback = infos.some((i) => i.address === "127.0.0.1" || i.address === "::1");
      const addresses = infos
        .map((i) => i.address.split("%")[0]!.toLowerCase())
        .filter((a) => wildcard ? !isLoopback : bound.has(a));
      if (addresses.length === 0) continue;
      const own = infos.find((i) => i.family === "IPv4" && addresses.includes(i.address)) ?? v4;
      chosen.push({ name, address: own.address, netmask: own.netmask, addresses });
    }
    return chosen;
  };
}

/** Whether `address` (IPv4) lies in the subnet of `iface`. */
export function inSubnet(
  address: string,
  iface: Pick<AdvertInterface, "address" | "netmask">,
): boolean {
  const plain = address.replace(/^::ffff:/i, "");
  const a = ipv4(plain), b = ipv4(iface.address), m = ipv4(iface.netmask);
  if (a === null || b === null || m === null) return false;
  return ((a & m) >>> 0) === ((b & m) >>> 0);
}

function ipv4(text: string): number | null {
  const parts = text.split(".");
  if (parts.length !== 4) return null;
  let n = 0;
  for (const part of parts) {
    const v = Number(part);
    if (!Number.isInteger(v) || v < 0 || v > 255) return null;
    n = n * 256 + v;
  }
  return n >>> 0;
}

/** A key that changes when an interface list changes (names, addresses). */
export function interfacesKey(list: AdvertInterface[]): string {
  return JSON.stringify(
    list.map((i) => [i.name, i.address, [...i.addresses].sort()]).sort(),
  );
}
