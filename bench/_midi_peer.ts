/**
 * What the MIDI part of `deno task bench` runs beside Cueport: the npm
 * `rtpmidi` peer (`tools/midi_peer/peer.js`, Node, driven by JSON lines), and
 * a relay between it and Cueport's session that stamps each RTP-MIDI packet
 * with the bench's clock as it hands it to Cueport: a message's arrival, on
 * the clock that also stamps its effect seen on the WebSocket.
 * @module
 */
import dgram from "node:dgram";
import { MIDI_PEER_DIR } from "../tools/midi_peer_build.ts";
import { findPeer } from "../tools/peers.ts";
import { decodePacket } from "../server/midi/rtp/packet.ts";
import type { MidiMessage } from "../server/midi/messages.ts";
import { isControlPacket } from "../server/midi/rtp/control.ts";
import { SessionSockets } from "../server/midi/rtp/sockets.ts";

/** A free even UDP port on loopback whose next one is free too. */
export function freePortPair(): number {
  const sockets = SessionSockets.open(["127.0.0.1"], 0, () => {});
  const port = sockets.port;
  sockets.close();
  return port;
}

/** The `rtpmidi` peer as a child process: commands in, events (JSON objects) out. */
export class RtpMidiPeer {
  readonly events: Array<Record<string, unknown>> = [];
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #encoder = new TextEncoder();
  #reading: Promise<void>;

  /** Starts Node on the peer, its session named `name` on the port pair at `port`. */
  constructor(readonly port: number, name: string) {
    this.#child = new Deno.Command(findPeer("node") ?? "node", {
      args: [`${MIDI_PEER_DIR}peer.js`],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read();
    void this.command({ cmd: "start", port, name });
  }

  async #read(): Promise<void> {
    let rest = "";
    for await (const chunk of this.#child.stdout.pipeThrough(new TextDecoderStream())) {
      const lines = (rest + chunk).split("\n");
      rest = lines.pop()!;
      for (const line of lines) if (line.trim()) this.events.push(JSON.parse(line));
    }
  }

  /** Sends commands, one JSON line each, in one write. */
  async command(...commands: Record<string, unknown>[]): Promise<void> {
    const text = commands.map((c) => JSON.stringify(c) + "\n").join("");
    await this.#writer.write(this.#encoder.encode(text));
  }

  /** Waits (20 s at most) for an event that `test` accepts. */
  async waitFor(test: (e: Record<string, unknown>) => boolean, what: string): Promise<void> {
    for (const deadline = performance.now() + 20_000; !this.events.some(test);) {
      if (performance.now() > deadline) throw new Error(`the MIDI peer: no ${what} in 20 s`);
      await new Promise((r) => setTimeout(r, 10));
    }
  }

  /** Closes its stdin (it exits) and waits for it. */
  async stop(): Promise<void> {
    await this.#writer.close().catch(() => {});
    await this.#child.status;
    await this.#reading.catch(() => {});
  }
}

/** A packet the relay handed to Cueport: when (bench clock, ms) and its messages. */
export interface Arrival {
  at: number;
  messages: MidiMessage[];
}

function bind(port: number): Promise<dgram.Socket> {
  return new Promise((resolve, reject) => {
    const socket = dgram.createSocket("udp4");
    socket.once("error", reject);
    socket.bind(port, "127.0.0.1", () => resolve(socket));
  });
}

/**
 * A relay on a port pair of its own: the peer invites it, it passes every datagram on to
 * Cueport's session (`target`, its control port) and back, and tells `onArrival` of each
 * RTP-MIDI packet as it passes it to Cueport.
 */
export class SessionRelay {
  #sockets: dgram.Socket[] = [];
  #peer: Array<{ port: number } | null> = [null, null];

  private constructor(readonly port: number) {}

  /** Opens the relay's four sockets (the peer's side on a free even pair). */
  static async open(target: number, onArrival: (a: Arrival) => void): Promise<SessionRelay> {
    const port = freePortPair();
    const relay = new SessionRelay(port);
    const facing = [await bind(port), await bind(port + 1)];
    const inward = [await bind(0), await bind(0)];
    relay.#sockets = [...facing, ...inward];
    const sysex = { data: null };
    for (const i of [0, 1]) {
      facing[i]!.on("message", (data: Uint8Array, from: dgram.RemoteInfo) => {
        relay.#peer[i] = { port: from.port };
        if (i === 1 && !isControlPacket(data)) {
          const packet = decodePacket(data, sysex);
          onArrival({ at: performance.now(), messages: packet?.messages ?? [] });
        }
        inward[i]!.send(data, target + i, "127.0.0.1");
      });
      inward[i]!.on("message", (data: Uint8Array) => {
        const peer = relay.#peer[i];
        if (peer) facing[i]!.send(data, peer.port, "127.0.0.1");
      });
    }
    return relay;
  }

  /** Closes its sockets. */
  close(): void {
    for (const s of this.#sockets) s.close();
  }
}
