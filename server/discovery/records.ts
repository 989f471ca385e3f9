/**
 * What Cueport advertises by DNS-SD (RFC 6763): the service instances, their
 * TXT record and the resource records that describe them. Pure data: no
 * sockets here.
 * @module
 */
import packet from "dns-packet";

/** One resource record, in `dns-packet`'s shape. */
export interface MdnsRecord {
  name: string;
  type: "PTR" | "SRV" | "TXT" | "A" | "AAAA" | "NSEC";
  ttl: number;
  /** The cache-flush bit: set on unique records (SRV, TXT, A, AAAA), never on shared PTRs. */
  flush?: boolean;
  // deno-lint-ignore no-explicit-any
  data: any;
}

/** The TTL of records that name a host (A, AAAA, SRV): 2 minutes (RFC 6762 s.10). */
export const HOST_TTL = 120;
/** The TTL of the other records (PTR, TXT): 75 minutes (RFC 6762 s.10). */
export const OTHER_TTL = 4500;
/** Longest TXT record we send (the issue: under 200 bytes; RFC 6763 s.6.2 asks for under 200). */
export const MAX_TXT_BYTES = 199;
/** Longest TXT key (the issue: at most 9 characters; RFC 6763 s.6.4 suggests 9). */
export const MAX_TXT_KEY = 9;

/** The DNS-SD services of one Cueport instance. */
export interface ServiceSet {
  /** The host label (`show`), whose `.local` name the SRV records point to. */
  hostname: string;
  /** The ports that are advertised; `oscQuery` only when the OSCQuery server runs. */
  ports: {
    http: number;
    ws: number;
    osc: number;
    oscQuery?: number | undefined;
    /** The network MIDI session's control port (`_apple-midi._udp`), when it runs. */
    appleMidi?: number | undefined;
  };
  /** TXT keys and values (each key at most 9 characters). */
  txt: Record<string, string>;
}

/** One advertised service instance: `<instance>.<type>.local`. */
export interface ServiceInstance {
  /** `_app._tcp`, `_http._tcp`, `_oscjson._tcp` or `_apple-midi._udp`. */
  type: string;
  /** The instance name without the conflict suffix (`Cueport - show`). */
  baseName: string;
  port: number;
}

/** The instances of a service set, with `serviceName` (`Cueport`) as their first word. */
export function instancesOf(serviceName: string, set: ServiceSet): ServiceInstance[] {
  const list: ServiceInstance[] = [
    { type: "_app._tcp", baseName: `${serviceName} - ${set.hostname}`, port: set.ports.ws },
    {
      type: "_http._tcp",
      baseName: `${serviceName} HTTP - ${set.hostname}`,
      port: set.ports.http,
    },
  ];
  if (set.ports.oscQuery !== undefined) {
    list.push({
      type: "_oscjson._tcp",
      baseName: `${serviceName} OSCQuery - ${set.hostname}`,
      port: set.ports.oscQuery,
    });
  }
  if (set.ports.appleMidi !== undefined) {
    // What macOS Audio MIDI Setup, rtpMIDI and rtpmidid list as a session to join.
    list.push({
      type: "_apple-midi._udp",
      baseName: `${serviceName} - ${set.hostname}`,
      port: set.ports.appleMidi,
    });
  }
  return list;
}

/** An instance label with its conflict number: `Cueport - show (2)` (1 is the bare name). */
export function labelOf(baseName: string, attempt: number): string {
  const suffix = attempt > 1 ? ` (${attempt})` : "";
  return baseName.slice(0, 63 - new TextEncoder().encode(suffix).length) + suffix;
}

/** What a rig of a group adds to its TXT record (docs/discovery.md, "Rig groups"). */
export interface GroupAdvert {
  /** The group's name: `group=`. */
  group: string;
  /** This rig's name: `rig=`. */
  rig: string;
  /** Whether this rig leads now: `leader=1` (absent on the others). */
  isLeader: boolean;
}

/**
 * The TXT keys and values of a service set (keys of at most 9 characters, under 200 bytes); a
 * rig of a group adds `group=`, `rig=` and, on the leader, `leader=1`.
 */
export function txtOf(info: {
  apiVersion: string;
  appVersion: string;
  hostname: string;
  platform: string;
  ports: ServiceSet["ports"];
  wsPath: string;
  group?: GroupAdvert | null | undefined;
}): Record<string, string> {
  const txt: Record<string, string> = {
    txtvers: "1",
    api: info.apiVersion,
    version: info.appVersion,
    hostname: info.hostname,
    platform: info.platform,
    wsPort: String(info.ports.ws),
    httpPort: String(info.ports.http),
    oscPort: String(info.ports.osc),
    wsPath: info.wsPath,
  };
  if (info.ports.oscQuery !== undefined) txt.oscqPort = String(info.ports.oscQuery);
  if (info.group) {
    txt.group = info.group.group;
    txt.rig = info.group.rig;
    if (info.group.isLeader) txt.leader = "1";
  }
  // Long names are cut so the whole record stays under 200 bytes: the hostname first.
  for (const key of ["hostname", "group", "rig"]) {
    const over = txtBytes(txt) - MAX_TXT_BYTES;
    const value = txt[key];
    if (over > 0 && value !== undefined) {
      txt[key] = value.slice(0, Math.max(0, value.length - over));
    }
  }
  return txt;
}

/** The TXT record's strings (`key=value`). */
export function txtStrings(txt: Record<string, string>): string[] {
  return Object.entries(txt).map(([key, value]) => {
    if (key.length > MAX_TXT_KEY) throw new Error(`TXT key ${key} is over ${MAX_TXT_KEY} chars`);
    return `${key}=${value}`;
  });
}

/** The size of a TXT record's data in bytes (each string with its length byte). */
export function txtBytes(txt: Record<string, string>): number {
  return txtStrings(txt).reduce((n, s) => n + 1 + new TextEncoder().encode(s).length, 0);
}

/** The fully qualified name of an instance: `Cueport - show._app._tcp.local`. */
export function fqdnOf(label: string, type: string): string {
  return `${label}.${type}.local`;
}

/** The records of one instance under a label: PTR (shared), SRV and TXT (unique). */
export function instanceRecords(
  label: string,
  instance: ServiceInstance,
  set: ServiceSet,
): { shared: MdnsRecord[]; unique: MdnsRecord[] } {
  const fqdn = fqdnOf(label, instance.type);
  const typeName = `${instance.type}.local`;
  return {
    shared: [
      { name: typeName, type: "PTR", ttl: OTHER_TTL, data: fqdn },
      { name: "_services._dns-sd._udp.local", type: "PTR", ttl: OTHER_TTL, data: typeName },
    ],
    unique: [
      {
        name: fqdn,
        type: "SRV",
        ttl: HOST_TTL,
        flush: true,
        data: { priority: 0, weight: 0, port: instance.port, target: `${set.hostname}.local` },
      },
      { name: fqdn, type: "TXT", ttl: OTHER_TTL, flush: true, data: txtStrings(set.txt) },
    ],
  };
}

/** The address records of the host: A and AAAA for `<hostname>.local`. */
export function hostRecords(hostname: string, addresses: string[]): MdnsRecord[] {
  return addresses.map((address) => ({
    name: `${hostname}.local`,
    type: address.includes(":") ? "AAAA" : "A",
    ttl: HOST_TTL,
    flush: true,
    data: address,
  }));
}

/** A record's data in wire form (for comparing two records, RFC 6762 s.8.2). */
export function rdataOf(record: { type: string; data: unknown }): Uint8Array {
  try {
    const codec = packet.record(record.type);
    return codec.encode(record.data);
  } catch {
    return new Uint8Array();
  }
}

/** Whether two records carry the same data. */
export function sameData(
  a: { type: string; data: unknown },
  b: { type: string; data: unknown },
): boolean {
  return compareBytes(rdataOf(a), rdataOf(b)) === 0;
}

/** Lexicographic comparison of two byte strings (RFC 6762 s.8.2's tie-break). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

/** Names compare case-insensitively in DNS. */
export function sameName(a: string, b: string): boolean {
  return a.toLowerCase() === b.toLowerCase();
}
