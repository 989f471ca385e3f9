/**
 * The two UDP ports of an AppleMIDI session: the control port (invitations,
 * on an even number, as Apple's and most peers expect) and the data port
 * just above it (RTP-MIDI, clock sync). Each is bound on every host of a
 * list (`server/net/datagram.ts`); a packet leaves from the socket of the
 * destination's address family.
 * @module
 */
import { listenDatagrams, type SkipLog } from "../../net/datagram.ts";
import { normalizeAddress } from "../../net/address.ts";

/** Which of the two ports. */
export type PortKind = "control" | "data";

/** A peer's port: where a datagram goes, or came from. */
export interface PeerPort {
  address: string;
  port: number;
}

/** A peer's port and which of ours a datagram leaves from (or came to). */
export interface SessionRoute extends PeerPort {
  kind: PortKind;
}

/** Called for each datagram read. */
export type SessionDatagramHandler = (
  kind: PortKind,
  data: Uint8Array,
  address: string,
  port: number,
) => void;

/** How many free pairs `open` tries when asked for any port (0). */
const FREE_PAIR_TRIES = 32;

/** The bound control and data ports. */
export class SessionSockets {
  #control: Deno.DatagramConn[];
  #data: Deno.DatagramConn[];
  #closed = false;

  private constructor(control: Deno.DatagramConn[], data: Deno.DatagramConn[]) {
    this.#control = control;
    this.#data = data;
  }

  /**
   * Binds `port` (control) and `port + 1` (data) on each host; 0 picks a free
   * even port whose next one is free too.
   * @throws the bind error (`Deno.errors.AddrInUse`...) when a port cannot be bound
   */
  static open(hosts: readonly string[], port: number, log: SkipLog): SessionSockets {
    for (let attempt = 0; attempt < (port === 0 ? FREE_PAIR_TRIES : 1); attempt++) {
      const control = listenDatagrams(hosts, port, log);
      const bound = (control[0]!.addr as Deno.NetAddr).port;
      if (port === 0 && bound % 2 === 1) {
        control.forEach((s) => s.close());
        continue;
      }
      try {
        return new SessionSockets(control, listenDatagrams(hosts, bound + 1, log));
      } catch (error) {
        control.forEach((s) => s.close());
        if (port !== 0) throw error;
      }
    }
    throw new Deno.errors.AddrInUse("No free pair of UDP ports for the MIDI session");
  }

  /** The control port (the data port is the next one). */
  get port(): number {
    return (this.#control[0]!.addr as Deno.NetAddr).port;
  }

  /** Reads both ports until closed, handing each datagram to `handler`. */
  serve(handler: SessionDatagramHandler): Promise<void> {
    const loops = [
      ...this.#control.map((s) => this.#read(s, "control", handler)),
      ...this.#data.map((s) => this.#read(s, "data", handler)),
    ];
    return Promise.all(loops).then(() => {});
  }

  async #read(socket: Deno.DatagramConn, kind: PortKind, handler: SessionDatagramHandler) {
    while (!this.#closed) {
      let received: [Uint8Array, Deno.Addr];
      try {
        received = await socket.receive();
      } catch (error) {
        if (this.#closed || error instanceof Deno.errors.BadResource) return;
        continue; // an ICMP error of an earlier send (Linux may report it here)
      }
      const [data, addr] = received;
      const { hostname, port } = addr as Deno.NetAddr;
      handler(kind, data, normalizeAddress(hostname), port);
    }
  }

  /** Sends `bytes` from our `to.kind` port to `to.address:to.port`; failures are dropped (UDP). */
  send(bytes: Uint8Array<ArrayBuffer>, to: SessionRoute): void {
    if (this.#closed) return;
    const { kind, address, port } = to;
    const sockets = kind === "control" ? this.#control : this.#data;
    const v6 = address.includes(":");
    const socket = sockets.find((s) => ((s.addr as Deno.NetAddr).hostname.includes(":")) === v6) ??
      sockets[0]!;
    socket.send(bytes, { transport: "udp", hostname: address, port }).catch(() => {});
  }

  /** Closes both ports. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const s of [...this.#control, ...this.#data]) {
      try {
        s.close();
      } catch {
        // already closed
      }
    }
  }
}
