/**
 * Raw mDNS peers for the discovery tests, on the loopback only: a listener
 * that joins 224.0.0.251 on 127.0.0.1 and keeps every packet, and a plain
 * UDP socket for unicast queries. Packets are coded by `dns-packet`.
 */
import dgram from "node:dgram";
import packet from "dns-packet";

/** A decoded packet and where it came from. */
export interface Heard {
  // deno-lint-ignore no-explicit-any
  message: any;
  from: { address: string; port: number };
}

/** A UDP socket that keeps what it hears. */
export interface Ear {
  heard: Heard[];
  port: number;
  send(bytes: Uint8Array, port: number, address: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * Opens a socket on `port` (5353 shares the port, SO_REUSEADDR), joined to the
 * mDNS group on the loopback when `join`; bound to `address` (a remote source
 * such as 127.0.0.2) when given.
 */
export async function openEar(
  options: { port: number; join: boolean; address?: string },
): Promise<Ear> {
  const socket = dgram.createSocket({ type: "udp4", reuseAddr: true });
  const heard: Heard[] = [];
  socket.on("message", (bytes, rinfo) => {
    try {
      heard.push({ message: packet.decode(bytes), from: rinfo });
    } catch {
      // not DNS
    }
  });
  const address = options.address ?? (options.port === 5353 ? "0.0.0.0" : "127.0.0.1");
  await new Promise<void>((resolve) => socket.bind(options.port, address, resolve));
  if (options.join) socket.addMembership("224.0.0.251", "127.0.0.1");
  // What it multicasts goes out on the loopback, never another interface.
  socket.setMulticastInterface("127.0.0.1");
  socket.setMulticastTTL(255);
  socket.setMulticastLoopback(true);
  return {
    heard,
    port: socket.address().port,
    send: (bytes, port, to) =>
      new Promise((resolve, reject) =>
        socket.send(bytes, port, to, (error) => error ? reject(error) : resolve())
      ),
    close: () => new Promise((resolve) => socket.close(() => resolve())),
  };
}

/** A query's bytes; `qu` sets the unicast-response bit of every question (RFC 6762 s.5.4). */
export function queryBytes(
  id: number,
  questions: Array<{ name: string; type: string }>,
  qu = false,
): Uint8Array {
  const bytes = packet.encode({ id, type: "query", questions });
  if (!qu) return bytes;
  // dns-packet cannot encode the QU bit: set it in each question's class field.
  let offset = 12;
  for (let i = 0; i < questions.length; i++) {
    while (bytes[offset] !== 0) offset += bytes[offset]! + 1;
    offset += 1 + 2; // the root label, then the type
    bytes[offset] = bytes[offset]! | 0x80;
    offset += 2;
  }
  return bytes;
}

/** Every record of a message. */
// deno-lint-ignore no-explicit-any explicit-module-boundary-types
export function recordsOf(message: any): any[] {
  return [...(message.answers ?? []), ...(message.additionals ?? [])];
}
