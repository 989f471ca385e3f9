/**
 * A hand-driven AppleMIDI peer for the tests: a pair of session ports on
 * loopback (control, data) that logs every control packet it reads and
 * sends whatever the test writes, forged or not.
 */
import {
  type ControlPacket,
  decodeControl,
  encodeControl,
} from "../../../../server/midi/rtp/control.ts";
import { type PortKind, SessionSockets } from "../../../../server/midi/rtp/sockets.ts";
import { EventLog } from "./_events.ts";

/** A control packet read by the raw peer, and its size. */
export interface RawRead {
  kind: PortKind;
  packet: ControlPacket;
  size: number;
}

/** A pair of ports the test speaks through. */
export class RawPeer {
  readonly log = new EventLog<RawRead>();
  #sockets = SessionSockets.open(["127.0.0.1"], 0, () => {});
  #serving: Promise<void>;

  /** Opens the pair and starts reading. */
  constructor() {
    this.#serving = this.#sockets.serve((kind, data) => {
      const packet = decodeControl(data);
      if (packet) this.log.push({ kind, packet, size: data.length });
    });
  }

  /** Its control port (the data port is the next). */
  get port(): number {
    return this.#sockets.port;
  }

  /** Sends `packet` from its `kind` port to 127.0.0.1:`port`. */
  send(kind: PortKind, packet: ControlPacket, port: number): void {
    this.#sockets.send(encodeControl(packet), { kind, address: "127.0.0.1", port });
  }

  /** The next control packet from index `from` that `match` accepts. */
  next(match: (read: RawRead) => boolean, what: string, from = 0): Promise<RawRead> {
    return this.log.waitFor(match, what, from);
  }

  /** Sends raw `bytes` (an RTP-MIDI packet) from its `kind` port to 127.0.0.1:`port` + 1 for data. */
  sendBytes(kind: PortKind, bytes: Uint8Array<ArrayBuffer>, port: number): void {
    const to = kind === "data" ? port + 1 : port;
    this.#sockets.send(bytes, { kind, address: "127.0.0.1", port: to });
  }

  /** Closes the pair. */
  async close(): Promise<void> {
    this.#sockets.close();
    await this.#serving;
  }
}
