/**
 * What a service has read of a TCP connection, as the kernel counts it (`ss -ti`, iproute2):
 * the bytes received on the service's end less those still queued unread (`Recv-Q`). For a
 * client that never reads (so gets no answers to count), this is what the service received:
 * the bytes its process took from the socket.
 * @module
 */
import { shell } from "./_process_tree.ts";

/** A connection's client end, as the service's end names its peer. */
export interface ClientEnd {
  address: string;
  port: number;
}

/**
 * The bytes the service has read of the connection whose client end is `client`, from
 * `ss -tinH` output listing the service's end: `bytes_received` less `Recv-Q`; null when no
 * such end is listed (closed, or `ss` missing).
 */
export function readBytesOf(ssText: string, client: ClientEnd): number | null {
  const lines = ssText.split("\n");
  const peer = `${client.address}:${client.port}`;
  for (let i = 0; i < lines.length; i++) {
    const fields = lines[i]!.trim().split(/\s+/);
    // Without a state filter the first field is the state: Recv-Q, Send-Q, local, peer follow.
    const at = /^\d+$/.test(fields[0] ?? "") ? 0 : 1;
    if (fields[at + 3] !== peer) continue;
    const received = /\bbytes_received:(\d+)/.exec(lines[i + 1] ?? "")?.[1];
    const queued = Number(fields[at]);
    return received === undefined ? 0 : Math.max(0, Number(received) - queued);
  }
  return null;
}

/** The bytes the service has read of the connection whose client end is `client`, or null. */
export async function serviceReadBytes(client: ClientEnd): Promise<number | null> {
  const text = await shell('ss -tinH dst "$1"', [`${client.address}:${client.port}`]);
  return readBytesOf(text, client);
}
