/**
 * The network MIDI session as the MIDI transport attaches it (docs/midi.md,
 * "Network MIDI"): an `RtpMidiNetwork` on the settings' port and name,
 * admitting participants by the transport's admission, its datagrams taken
 * from the service's shared rate budget, inviting the hosts of `midiInvite`;
 * seen by the transport as a `MidiPort` (its participants as MIDI sources,
 * a hook told when one joins).
 * @module
 */
import type { MidiParticipant } from "../../protocol/midi.ts";
import { SETTING_DEFAULTS } from "../../protocol/settings.ts";
import type { RateMeter } from "../auth/rate_limit.ts";
import type { MidiEndpoint, MidiMessage, MidiSource } from "./messages.ts";
import { type RtpMidiEvent, RtpMidiNetwork, type RtpMidiOptions } from "./rtp/mod.ts";

/** What the service opens its network MIDI session with. */
export interface MidiSessionOptions {
  /** Setting midiPort: the control port (the data port is the next); 0 picks a free pair. */
  port: number;
  /** Setting host: the addresses to bind. */
  hosts: readonly string[];
  /** Setting midiName. */
  name: string;
  /** Whether a participant inviting from `source` is accepted (`MidiAdmission.admit`). */
  admit: (source: MidiSource) => boolean;
  /** Setting midiInvite: `host` or `host:port` (the default MIDI port). */
  invite: readonly string[];
  /** The service's shared budget, taken once a datagram (as the OSC port takes it). */
  shared?: RateMeter;
  /** Everything else of the session (tests: clocks, timers, budgets). */
  rtp?: Omit<RtpMidiOptions, "port" | "hosts" | "name" | "admit" | "invite" | "onEvent">;
  /** Told of what happens in the session (joins, refusals, goodbyes). */
  onEvent?: (event: RtpMidiEvent) => void;
  log?: (level: "debug" | "info" | "warn", message: string) => void;
}

/**
 * `host` or `host:port` of the setting midiInvite, IPv6 as `[::1]:5004` or
 * bare; the port defaults to the default MIDI port.
 * @throws {Error} for a port that is not a number 1-65535
 */
export function inviteTarget(entry: string): { host: string; port: number } {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const plain = /^([^:]+):(\d+)$/.exec(entry);
  const [host, port] = bracketed
    ? [bracketed[1]!, bracketed[2]]
    : plain
    ? [plain[1]!, plain[2]]
    : [entry, undefined];
  const number = port === undefined ? SETTING_DEFAULTS.midiPort : Number(port);
  if (!Number.isInteger(number) || number < 1 || number > 65535) {
    throw new Error(`midiInvite: "${entry}" has no port 1-65535`);
  }
  return { host, port: number };
}

/** An `RtpMidiNetwork` as a `MidiPort` of the transport (`mod.ts`): joins told, participants. */
export class MidiSession implements MidiEndpoint {
  readonly network: RtpMidiNetwork;
  #joined: ((source: MidiSource) => void) | null = null;
  /** When each participant in session joined (ISO 8601), by `ssrc@address`. */
  #joinedAt = new Map<string, string>();

  /**
   * Builds and starts the session: binds its ports, invites the hosts.
   * @throws the bind error when a port cannot be bound, or a bad midiInvite entry
   */
  constructor(o: MidiSessionOptions) {
    const invite = o.invite.map(inviteTarget);
    this.network = new RtpMidiNetwork({
      ...o.rtp,
      port: o.port,
      hosts: o.hosts,
      name: o.name,
      admit: (address, name) => o.admit({ kind: "rtp", address, name }),
      invite,
      budget: { ...o.rtp?.budget, ...(o.shared ? { shared: o.shared } : {}) },
      onEvent: (event) => {
        if (event.type === "joined" || event.type === "left") {
          const { ssrc, address } = event.participant;
          const key = `${ssrc}@${address}`;
          if (event.type === "left") this.#joinedAt.delete(key);
          else this.#joinedAt.set(key, new Date().toISOString());
        }
        o.onEvent?.(event);
        if (event.type === "joined") {
          const { address, name } = event.participant;
          this.#joined?.({ kind: "rtp", address, name });
        }
      },
      ...(o.log ? { log: o.log } : {}),
    });
    this.network.start();
  }

  /** The bound control port (the data port is the next). */
  get port(): number {
    return this.network.port;
  }

  /** Sets the one handler of incoming messages. */
  onMessages(handler: (messages: readonly MidiMessage[], from: MidiSource) => void): void {
    this.network.onMessages(handler);
  }

  /** Sends `messages` to every participant in session. */
  send(messages: readonly MidiMessage[]): void {
    this.network.send(messages);
  }

  /** Sends `messages` only to the participants `to` (feedback's targets). */
  sendTo(messages: readonly MidiMessage[], to: readonly MidiSource[]): void {
    this.network.sendTo(messages, to);
  }

  /** Sets the one handler told when a participant joins. */
  onJoined(handler: (source: MidiSource) => void): void {
    this.#joined = handler;
  }

  /** The participants in session (both ports open), with their counters. */
  participants(): MidiParticipant[] {
    return this.network.participants().filter((p) => p.dataPort !== null)
      .map((p) => ({
        kind: "rtp",
        address: p.address,
        name: p.name,
        ssrc: p.ssrc,
        initiator: p.initiator,
        joinedAt: this.#joinedAt.get(`${p.ssrc}@${p.address}`) ?? null,
        latencyMs: p.latencyMs,
        received: p.received,
        lost: p.lost,
        recovered: p.recovered,
        late: p.late,
      }));
  }

  /** Datagrams the session dropped as over their sender's budget. */
  get overBudget(): number {
    return this.network.overBudget;
  }

  /** Says goodbye to every participant and closes the ports. */
  close(): Promise<void> {
    return this.network.close();
  }
}
