/**
 * The network MIDI test peer (`tools/midi_peer/peer.js`, npm `rtpmidi` run by
 * Node) as a test drives it: commands as JSON lines on its stdin, its events
 * from its stdout into an `EventLog`. `peerIgnore()` skips the tests when Node
 * or the peer's install is missing (unless `CUEPORT_TEST_PEERS=required`).
 */
import { findPeer } from "../../../../tools/peers.ts";
import { MIDI_PEER_DIR } from "../../../../tools/midi_peer_build.ts";
import { PEERS_REQUIRED } from "../../../../tools/testing/peers.ts";
import { freeMidiPort } from "../../../../tools/testing/midi.ts";
import { EventLog } from "./_events.ts";

/** An event of the peer. */
export interface PeerEvent {
  event: string;
  [key: string]: unknown;
}

/** Whether Node and the peer's install (`deno task test` makes it) are here. */
function peerReady(): boolean {
  if (findPeer("node") === undefined) return false;
  try {
    Deno.statSync(`${MIDI_PEER_DIR}node_modules/rtpmidi/package.json`);
    return true;
  } catch {
    return false;
  }
}

/** `{ ignore }` for `Deno.test`: true when the peer cannot run here (and is not required). */
export function peerIgnore(): { ignore: boolean } {
  return { ignore: !PEERS_REQUIRED && !peerReady() };
}

/** A free even UDP port whose next one is free too, on loopback. */
export const freePortPair: () => number = freeMidiPort;

/** A running `rtpmidi` session. */
export class MidiPeer {
  readonly log = new EventLog<PeerEvent>();
  readonly port: number;
  ssrc = 0;
  #child: Deno.ChildProcess;
  #writer: WritableStreamDefaultWriter<Uint8Array>;
  #reading: Promise<void>;

  private constructor(port: number) {
    this.port = port;
    this.#child = new Deno.Command(findPeer("node") ?? "node", {
      args: [`${MIDI_PEER_DIR}peer.js`],
      stdin: "piped",
      stdout: "piped",
      stderr: "inherit",
    }).spawn();
    this.#writer = this.#child.stdin.getWriter();
    this.#reading = this.#read();
  }

  /**
   * Starts a peer session named `name` on `port` (a free pair when not given),
   * bound to `address` alone when given (a participant from elsewhere: 127.0.0.2).
   */
  static async start(name = "peer", port = freePortPair(), address?: string): Promise<MidiPeer> {
    const peer = new MidiPeer(port);
    await peer.command({ cmd: "start", port, name, ...(address ? { address } : {}) });
    const ready = await peer.log.waitFor((e) => e.event === "ready", "the peer ready");
    peer.ssrc = ready.ssrc as number;
    return peer;
  }

  async #read(): Promise<void> {
    let rest = "";
    const decoder = new TextDecoder();
    for await (const chunk of this.#child.stdout) {
      rest += decoder.decode(chunk, { stream: true });
      const lines = rest.split("\n");
      rest = lines.pop()!;
      for (const line of lines) if (line.trim()) this.log.push(JSON.parse(line) as PeerEvent);
    }
  }

  /** Sends one command. */
  async command(command: Record<string, unknown>): Promise<void> {
    await this.#writer.write(new TextEncoder().encode(JSON.stringify(command) + "\n"));
  }

  /** The MIDI bytes received from `from` (an index in the log) on, flattened. */
  bytesSince(from: number): number[] {
    return this.log.events.slice(from).filter((e) => e.event === "message")
      .flatMap((e) => e.bytes as number[]);
  }

  /** Ends the peer: `graceful` says BY first; else it is killed (a crash). */
  async stop(graceful = true): Promise<void> {
    if (graceful) {
      const from = this.log.events.length;
      await this.command({ cmd: "end" });
      await this.log.waitFor((e) => e.event === "ended", "the peer ended", from);
    }
    try {
      this.#child.kill("SIGKILL");
    } catch {
      // already gone
    }
    await this.#writer.close().catch(() => {});
    await this.#child.status;
    await this.#reading.catch(() => {});
  }
}
