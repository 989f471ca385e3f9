/**
 * UDP sockets on every host of a list, on one port, with the same rule as
 * the TCP listeners: a host the machine cannot bind (no IPv6, or IPv4
 * already served by a dual-stack `::` socket) is skipped.
 * @module
 */

/**
 * Binds `port` (0 picks one, the same for every host) on each host.
 * @throws the first bind error when no host can be bound
 */
export function listenDatagrams(
  hosts: readonly string[],
  port: number,
  log: (message: string) => void,
): Deno.DatagramConn[] {
  const sockets: Deno.DatagramConn[] = [];
  let firstError: unknown = null;
  for (const hostname of hosts) {
    try {
      const socket = Deno.listenDatagram({ transport: "udp", hostname, port });
      port = (socket.addr as Deno.NetAddr).port;
      sockets.push(socket);
    } catch (error) {
      firstError ??= error;
      log(`UDP ${hostname} port ${port} not bound: ${(error as Error).message}`);
    }
  }
  if (sockets.length === 0) throw firstError;
  return sockets;
}
