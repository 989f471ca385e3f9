/**
 * A minimal AppleMIDI session participant of the probes' own (and the tests'
 * and benches' that need one without Node): two UDP sockets on one address
 * (control and data), an invitation (`IN` on both ports, answered `OK` or
 * `NO`), then RTP-MIDI packets made with Cueport's codec
 * (`server/midi/rtp/`), or any bytes on either port. Of its own it only
 * answers clock sync (Cueport opens a session it was invited to once its sync
 * is answered); it keeps no journal.
 * @module
 */
import dgram from "node:dgram";
import { type ControlPacket, decodeControl, encodeControl } from "../../server/midi/rtp/control.ts";
import { encodePacket, type PacketFields } from "../../server/midi/rtp/packet.ts";
import { clockStep } from "../../server/midi/rtp/clock.ts";
import type { MidiMessage } from "../../server/midi/messages.ts";

/** One of a session's two ports. */
export type MidiPortKind = "control" | "data";

/** How an invitation ended: accepted on both ports, refused, or not answered in time. */
export type JoinOutcome = "OK" | "NO" | "timeout";

function bind(address: string): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket("udp4");
    socket.once("error", reject);
    socket.bind(0, address, () => resolve(socket));
  });
}

/** A participant at `address` in a session with Cueport's control `port` on 127.0.0.1. */
export class MidiParticipant {
  readonly ssrc: number;
  readonly name: string;
  /** The address its sockets are bound to. */
  readonly address: string;
  /** The control packets received, oldest first (both ports). */
  readonly heard: Array<{ kind: MidiPortKind; packet: ControlPacket }> = [];
  /** RTP datagrams received on the data port (Cueport's feedback). */
  rtpReceived = 0;
  #sockets: Record<MidiPortKind, dgram.Socket>;
  /** Cueport's control port. */
  readonly port: number;
  #sequence: number;
  #waiters = new Set<() => void>();

  private constructor(
    sockets: Record<MidiPortKind, dgram.Socket>,
    port: number,
    name: string,
    address: string,
  ) {
    this.#sockets = sockets;
    this.address = address;
    this.port = port;
    this.name = name;
    this.ssrc = crypto.getRandomValues(new Uint32Array(1))[0]!;
    this.#sequence = crypto.getRandomValues(new Uint16Array(1))[0]!;
    for (const kind of ["control", "data"] as const) {
      sockets[kind].on("message", (data: Uint8Array) => this.#receive(kind, data));
      sockets[kind].on("error", () => {});
    }
  }

  /** Binds the participant's two sockets on `address`, for Cueport's control `port`. */
  static async open(address: string, port: number, name: string): Promise<MidiParticipant> {
    const control = await bind(address);
    const data = await bind(address).catch((error) => {
      control.close();
      throw error;
    });
    return new MidiParticipant({ control, data }, port, name, address);
  }

  /** Invites Cueport on its control port, then its data port; how it answered. */
  async join(timeoutMs = 5000): Promise<JoinOutcome> {
    const token = crypto.getRandomValues(new Uint32Array(1))[0]!;
    for (const kind of ["control", "data"] as const) {
      const from = this.heard.length;
      const invitation = encodeControl({ command: "IN", token, ssrc: this.ssrc, name: this.name });
      await this.sendRaw(kind, invitation);
      const answer = await this.#answer(from, kind, token, timeoutMs);
      if (answer !== "OK") return answer;
    }
    return "OK";
  }

  /** Sends `messages` in one RTP-MIDI packet on the data port (the next sequence number). */
  async send(messages: readonly MidiMessage[], fields: Partial<PacketFields> = {}): Promise<void> {
    this.#sequence = (this.#sequence + 1) & 0xffff;
    const packet = encodePacket({
      sequence: this.#sequence,
      timestamp: Math.floor(performance.now() * 10),
      ssrc: this.ssrc,
      messages,
      journal: null,
      ...fields,
    });
    await this.sendRaw("data", packet);
  }

  /** The next sequence number `send` would use, taken (for hand-made packets). */
  nextSequence(): number {
    this.#sequence = (this.#sequence + 1) & 0xffff;
    return this.#sequence;
  }

  /** Sends `bytes` as they are to Cueport's `kind` port. */
  sendRaw(kind: MidiPortKind, bytes: Uint8Array): Promise<void> {
    const port = kind === "control" ? this.port : this.port + 1;
    return new Promise((resolve) => {
      try {
        this.#sockets[kind].send(bytes, port, "127.0.0.1", () => resolve());
      } catch {
        resolve(); // closed meanwhile
      }
    });
  }

  /** Says goodbye (`BY`) and closes both sockets. */
  async close(): Promise<void> {
    const bye = encodeControl({ command: "BY", token: 0, ssrc: this.ssrc, name: "" });
    await this.sendRaw("control", bye);
    for (const socket of Object.values(this.#sockets)) socket.close();
  }

  #receive(kind: MidiPortKind, data: Uint8Array): void {
    const packet = decodeControl(data);
    // Cueport opens a session it was invited to once its clock sync is answered (the echo of its
    // random timestamp proves the address), as every AppleMIDI peer answers one.
    if (packet?.command === "CK" && packet.count === 0) {
      const { reply } = clockStep(packet, this.ssrc, performance.now());
      if (reply) void this.sendRaw(kind, encodeControl(reply));
    }
    if (packet) this.heard.push({ kind, packet });
    else if (kind === "data") this.rtpReceived++;
    for (const wake of this.#waiters) wake();
  }

  async #answer(from: number, kind: MidiPortKind, token: number, ms: number): Promise<JoinOutcome> {
    const deadline = performance.now() + ms;
    for (;;) {
      for (const { kind: k, packet } of this.heard.slice(from)) {
        if (k !== kind || !("token" in packet) || packet.token !== token) continue;
        if (packet.command === "OK" || packet.command === "NO") return packet.command;
      }
      const left = deadline - performance.now();
      if (left <= 0) return "timeout";
      await new Promise<void>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          this.#waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(wake, left);
        this.#waiters.add(wake);
      });
    }
  }
}
