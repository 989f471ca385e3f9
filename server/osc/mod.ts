/**
 * The OSC transport (UDP 17735). The socket is bound now so the port is
 * reserved and reported; messages are read and dropped until the OSC
 * address space is built, so the socket buffer never fills.
 * @module
 */

/** Reads and discards datagrams until the socket closes. */
export async function drainOsc(
  socket: Deno.DatagramConn,
  log: (message: string) => void,
): Promise<void> {
  try {
    for await (const [data, addr] of socket) {
      const from = addr.transport === "udp" ? `${addr.hostname}:${addr.port}` : "unknown";
      log(`OSC datagram of ${data.length} bytes from ${from} ignored (OSC control not built yet)`);
    }
  } catch {
    // closed
  }
}
