/**
 * UDP sockets on every host of a list, on one port, with the same rule as the TCP listeners
 * (`bind_each.ts`).
 * @module
 */
import { bindEach, type SkipLog } from "./bind_each.ts";

export type { SkipLog };

/**
 * Binds `port` (0 picks one, the same for every host) on each host.
 * @throws the first bind error when no host can be bound
 */
export function listenDatagrams(
  hosts: readonly string[],
  port: number,
  log: SkipLog,
): Deno.DatagramConn[] {
  return bindEach(
    hosts,
    port,
    (hostname, port) => Deno.listenDatagram({ transport: "udp", hostname, port }),
    "UDP",
    log,
  );
}
