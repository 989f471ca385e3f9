/**
 * Defences against DNS rebinding and cross-site requests: the `Host` header
 * must name this machine, and a browser `Origin` must be on the allow-list.
 * @module
 */
import { CueportError } from "../core/errors.ts";
import { requestHeader } from "../net/serve_connection.ts";

/** The names this machine answers to: localhost, its hostname (and `.local`), its addresses, extras. */
export function machineHosts(extra: readonly string[] = []): Set<string> {
  const hosts = new Set(["localhost", "127.0.0.1", "::1"]);
  try {
    const name = Deno.hostname().toLowerCase();
    hosts.add(name);
    hosts.add(name.endsWith(".local") ? name : `${name}.local`);
  } catch {
    // no permission to read the hostname: addresses still count
  }
  try {
    for (const i of Deno.networkInterfaces()) hosts.add(i.address.toLowerCase());
  } catch {
    // no permission to list interfaces
  }
  for (const h of extra) hosts.add(h.toLowerCase());
  return hosts;
}

/** The host part of a `Host` header: no port, no IPv6 brackets, lower case. */
export function hostOf(header: string): string {
  const h = header.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(1, h.indexOf("]") > 0 ? h.indexOf("]") : undefined);
  const colon = h.lastIndexOf(":");
  return colon > 0 && h.indexOf(":") === colon ? h.slice(0, colon) : h;
}

/** Verdicts by `Host` header value: clients send the same few values again and again. */
const hostVerdicts = new WeakMap<ReadonlySet<string>, Map<string, boolean>>();

/**
 * The last verdict given, before the maps: a stream of requests names one host (issue 42: the
 * two lookups were a third of `checkRequestOrigin`'s samples under the action's load).
 */
const last = { hosts: null as ReadonlySet<string> | null, header: "", verdict: false };

/** Whether a `Host` header names this machine (`hosts`), by the last verdict or the cache. */
export function isMachineHost(header: string, hosts: ReadonlySet<string>): boolean {
  if (hosts === last.hosts && header === last.header) return last.verdict;
  const verdict = cachedHostVerdict(header, hosts);
  last.hosts = hosts;
  last.header = header;
  last.verdict = verdict;
  return verdict;
}

function cachedHostVerdict(header: string, hosts: ReadonlySet<string>): boolean {
  let verdicts = hostVerdicts.get(hosts);
  if (!verdicts) hostVerdicts.set(hosts, verdicts = new Map());
  let verdict = verdicts.get(header);
  if (verdict === undefined) {
    verdict = hosts.has(hostOf(header));
    if (verdicts.size >= 256) verdicts.clear(); // bounded: a flood of odd hosts cannot grow it
    verdicts.set(header, verdict);
  }
  return verdict;
}

/**
 * Whether `origin` is the page the service serves itself (the web remote at
 * `/` of the HTTP port): `http:`, a name of this machine, the HTTP port.
 * Another site rebinding its name to this machine keeps its own name in the
 * Origin, so it is not taken for the page.
 */
export function isOwnPageOrigin(
  origin: string,
  hosts: ReadonlySet<string>,
  pagePort: number,
): boolean {
  let url: URL;
  try {
    url = new URL(origin);
  } catch {
    return false;
  }
  if (url.protocol !== "http:" || url.pathname !== "/" || url.username !== "") return false;
  const port = url.port === "" ? 80 : Number(url.port);
  return port === pagePort && hosts.has(hostOf(url.host));
}

/**
 * Checks the request's `Host` and `Origin`; throws the error to answer with.
 * Both are read from Deno's HTTP engine alone (`requestHeader`), not through `request.headers`.
 * @returns the `Origin` header (null without one), so a caller that needs it (CORS) does not read
 * it again: each read of a served request's header is a call into Deno's HTTP engine (an op).
 */
export function checkRequestOrigin(
  request: Request,
  options: {
    hosts: ReadonlySet<string>;
    origins: readonly string[];
    /** The HTTP port, whose page (the web remote) is admitted by any name of this machine. */
    pagePort?: number;
  },
): string | null {
  const host = requestHeader(request, "host");
  if (host !== null && !isMachineHost(host, options.hosts)) {
    throw new CueportError(
      "HOST_NOT_ALLOWED",
      `Host "${host}" is not this machine: use its address or name`,
    );
  }
  const origin = requestHeader(request, "origin");
  if (
    origin !== null && !options.origins.includes("*") && !options.origins.includes(origin) &&
    !(options.pagePort !== undefined && isOwnPageOrigin(origin, options.hosts, options.pagePort))
  ) {
    throw new CueportError(
      "ORIGIN_NOT_ALLOWED",
      `Origin "${origin}" is not allowed: add it to the corsOrigins setting to call the API from that page`,
    );
  }
  return origin;
}
