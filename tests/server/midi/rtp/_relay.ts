/**
 * A UDP relay for a session's two ports, between an inviter and a target
 * session: it listens on a pair of ports (control, data), forwards each
 * datagram to the target's same port and the answers back, and drops the
 * RTP-MIDI data packets (never the control ones) the test asks it to.
 */
import { freePortPair } from "./_peer.ts";

/** Forwards one port of the pair both ways. */
class Leg {
  front: Deno.DatagramConn;
  back = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  inviter: Deno.NetAddr | null = null;

  constructor(port: number, target: number, drop: (data: Uint8Array) => boolean) {
    this.front = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port });
    const to = { transport: "udp" as const, hostname: "127.0.0.1", port: target };
    void this.#pump(this.front, (data, from) => {
      this.inviter = from;
      if (!drop(data)) void this.back.send(data, to).catch(() => {});
    });
    void this.#pump(this.back, (data) => {
      if (this.inviter) void this.front.send(data, this.inviter).catch(() => {});
    });
  }

  async #pump(socket: Deno.DatagramConn, on: (data: Uint8Array, from: Deno.NetAddr) => void) {
    try {
      for await (const [data, from] of socket) on(data, from as Deno.NetAddr);
    } catch {
      // closed
    }
  }

  close(): void {
    this.front.close();
    this.back.close();
  }
}

/** The relay of a session at `target` (its control port). */
export class Relay {
  /** The relay's control port (its data port is the next). */
  readonly port = freePortPair();
  /** How many RTP-MIDI packets to the target to drop next. */
  dropNext = 0;
  /** Also drops the RTP-MIDI packets this says to. */
  dropWhen: (packet: Uint8Array) => boolean = () => false;
  /** The sequence numbers of the packets dropped. */
  readonly dropped: number[] = [];
  #legs: Leg[];

  /** Starts relaying to the session whose control port is `target`. */
  constructor(target: number) {
    const drop = (data: Uint8Array) => {
      const isRtp = data.length >= 12 && data[0]! >> 6 === 2 && data[1] !== 0xff;
      if (!isRtp) return false;
      const sequence = (data[2]! << 8) | data[3]!;
      if (this.dropNext === 0 && !this.dropWhen(data)) return false;
      if (this.dropNext > 0) this.dropNext--;
      this.dropped.push(sequence);
      return true;
    };
    this.#legs = [
      new Leg(this.port, target, () => false),
      new Leg(this.port + 1, target + 1, drop),
    ];
  }

  /** Stops relaying. */
  close(): void {
    for (const leg of this.#legs) leg.close();
  }
}
