/**
 * One port bound on every host of the `host` setting, for the TCP listeners and the UDP
 * sockets alike: a host the machine cannot bind (no IPv6, or IPv4 already served by a
 * dual-stack `::` socket) is skipped, said at debug; an address it does not have (a name that
 * does not resolve, an address no interface has) is skipped too, said at warn, and is the
 * address's fault whatever the port (docs/deployment.md, "Ports").
 * @module
 */

/** How a skipped host is told: the line, and its level. */
export type SkipLog = (message: string, level: "debug" | "warn") => void;

/**
 * What is wrong with the address a bind failed on, in words, or null when the failure is not
 * the address's (a port in use, a family the machine lacks).
 * @example
 * ```ts
 * addressProblem(new Deno.errors.AddrNotAvailable("Cannot assign requested address"));
 * // "no address of this machine"
 * ```
 */
export function addressProblem(error: unknown): string | null {
  if (error instanceof Deno.errors.AddrNotAvailable) return "no address of this machine";
  // Deno 2.9 throws a plain Error for a name its lookup cannot resolve.
  if (error instanceof Error && /failed to lookup address/i.test(error.message)) {
    return "no name this machine can resolve";
  }
  return null;
}

/**
 * `bind` on each of `hosts` at `port` (0 picks a free one, then the same for every host), the
 * hosts that cannot be bound skipped and told to `log` as `<label> <host> port <n> not bound:
 * <why>` once the port is bound.
 * @throws a bind error when no host can be bound, a port's (in use, no permission) before an
 * address's (nothing is logged then: the caller tells it)
 */
export function bindEach<T extends { readonly addr: Deno.Addr }>(
  hosts: readonly string[],
  port: number,
  bind: (hostname: string, port: number) => T,
  label: string,
  log: SkipLog,
): T[] {
  const bound: T[] = [];
  let firstError: unknown = null;
  const skipped: Array<[message: string, level: "debug" | "warn"]> = [];
  for (const hostname of hosts) {
    try {
      const one = bind(hostname, port);
      port = (one.addr as Deno.NetAddr).port;
      bound.push(one);
    } catch (error) {
      const problem = addressProblem(error);
      // A port's problem (in use, no permission) is the one to tell: it is not an address's.
      if (firstError === null || (problem === null && addressProblem(firstError) !== null)) {
        firstError = error;
      }
      const message = (error as Error).message;
      const why = problem === null ? message : `${problem} (${message})`;
      skipped.push([
        `${label} ${hostname} port ${port} not bound: ${why}`,
        problem ? "warn" : "debug",
      ]);
    }
  }
  if (bound.length === 0) throw firstError;
  for (const [message, level] of skipped) log(message, level);
  return bound;
}
