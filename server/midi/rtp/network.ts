/**
 * Cueport as an RTP-MIDI session participant (RFC 6295 and Apple's session
 * protocol): `RtpMidiNetwork` binds a control port and the data port above
 * it, answers invitations (the `admit` option decides OK or NO), invites the
 * hosts it is given (`invitations.ts`), answers and runs clock sync, drops a
 * participant that stops answering, and carries MIDI both ways with the
 * recovery journal (`journal_sender.ts`, `journal_receiver.ts`). It is a
 * `MidiEndpoint`: messages in with their source, messages out to every
 * participant in session. The session protocol's handling is in
 * `session_control.ts`; the timers run in `tick()`.
 * @module
 */
import { SETTING_DEFAULTS } from "../../../protocol/settings.ts";
import { isLocalAddress } from "../../auth/credentials.ts";
import type { MidiEndpoint, MidiMessage, MidiSource } from "../messages.ts";
import { commandSize, MAX_SYSEX, type OutgoingCommand, sysexSegments } from "./commands.ts";
import { clockStart, ticksAt } from "./clock.ts";
import { decodeControl, encodeControl, isControlPacket } from "./control.ts";
import { DatagramMeter, type EdgeBudget } from "./edge.ts";
import { type Backoff, Invitations } from "./invitations.ts";
import { decodePacket, encodePacket, sequenceOf, ssrcOf } from "./packet.ts";
import type { RtpMidiEvent } from "./events.ts";
import { type Participant, type ParticipantInfo, Participants } from "./participant.ts";
import { SessionControl } from "./session_control.ts";
import { type PortKind, SessionSockets } from "./sockets.ts";
import type { SkipLog } from "../../net/datagram.ts";

/** How the session is set up. */
export interface RtpMidiOptions {
  /** The control port (default the setting midiPort's; the data port is the next). 0 picks a free even one. */
  port?: number;
  /** The addresses to bind (default `0.0.0.0`). */
  hosts?: readonly string[];
  /** The session name peers show (default `Cueport`). */
  name?: string;
  /** Whether a participant inviting from `address` as `name` is accepted (default: local ones only). */
  admit?: (address: string, name: string) => boolean;
  /** Hosts to invite once started (`host`, control `port`). */
  invite?: readonly { host: string; port: number }[];
  /** The per-address budget of datagrams and bytes. */
  budget?: EdgeBudget;
  /** Backoff of invitations to a host that does not answer. */
  backoff?: Backoff;
  /** Clock sync with the hosts Cueport invited, every this many ms (default 10,000). */
  syncIntervalMs?: number;
  /** A participant not heard of for this long is dropped (default `PARTICIPANT_TIMEOUT_MS`). */
  timeoutMs?: number;
  /** How often the timers run (default 500 ms); 0 runs none: the caller calls `tick()`. */
  tickMs?: number;
  /** The clock (ms), for timers and the session's timestamps. */
  now?: () => number;
  /** Our SSRC (default random). */
  ssrc?: number;
  onEvent?: (event: RtpMidiEvent) => void;
  log?: (level: "debug" | "info" | "warn", message: string) => void;
}

/**
 * A participant silent this long (ms) is dropped: past Apple's contract of a
 * clock sync at least every 60 s (peers that sync every 10 s miss six).
 */
export const PARTICIPANT_TIMEOUT_MS = 61_000;

/** The most command octets in one packet; more messages go in further packets. */
const MAX_SECTION = 1000;

/** A network MIDI session participant. */
export class RtpMidiNetwork implements MidiEndpoint {
  readonly ssrc: number;
  readonly name: string;
  #o: RtpMidiOptions;
  #now: () => number;
  #sockets: SessionSockets | null = null;
  #serving: Promise<void> | null = null;
  #timer: ReturnType<typeof setInterval> | null = null;
  #meter: DatagramMeter;
  #participants = new Participants();
  #invitations: Invitations;
  #control: SessionControl;
  #handler: ((messages: readonly MidiMessage[], from: MidiSource) => void) | null = null;

  /** Builds the session; nothing is bound until `start()`. */
  constructor(options: RtpMidiOptions = {}) {
    this.#o = options;
    this.#now = options.now ?? (() => performance.now());
    this.ssrc = options.ssrc ?? crypto.getRandomValues(new Uint32Array(1))[0]!;
    this.name = options.name ?? "Cueport";
    this.#meter = new DatagramMeter({ ...options.budget, now: this.#now });
    this.#invitations = new Invitations(options.backoff);
    this.#control = new SessionControl({
      ssrc: this.ssrc,
      name: this.name,
      now: this.#now,
      participants: this.#participants,
      invitations: this.#invitations,
      admit: options.admit ?? ((address) => isLocalAddress(address)),
      send: (packet, to) => this.#sockets?.send(encodeControl(packet), to),
      emit: (event) => this.#emit(event),
      opened: (p) => p.takeEarly().forEach((data) => this.#rtp(data, p.address)),
      syncIntervalMs: options.syncIntervalMs ?? 10_000,
    });
  }

  /** Binds the ports, starts the timers and invites the hosts of the options. */
  start(): void {
    // A host skipped (no IPv6, or IPv4 that a dual-stack `::` socket already serves) is debug, as
    // for the TCP and OSC ports, an address the machine lacks warn; no host bound at all throws.
    const log: SkipLog = (m, level) => this.#o.log?.(level, m);
    this.#sockets = SessionSockets.open(
      this.#o.hosts ?? ["0.0.0.0"],
      this.#o.port ?? SETTING_DEFAULTS.midiPort,
      log,
    );
    this.#serving = this.#sockets.serve((kind, data, address, port) => {
      try {
        this.#datagram(kind, data, address, port);
      } catch (error) {
        this.#o.log?.("warn", `MIDI session: a datagram failed: ${(error as Error).message}`);
      }
    });
    for (const { host, port } of this.#o.invite ?? []) this.invite(host, port);
    const tickMs = this.#o.tickMs ?? 500;
    if (tickMs > 0) this.#timer = setInterval(() => this.tick(), tickMs);
  }

  /** The bound control port (the data port is the next). */
  get port(): number {
    if (!this.#sockets) throw new Error("The MIDI session is not started");
    return this.#sockets.port;
  }

  /** Datagrams dropped at the edge for being over their sender's budget. */
  get overBudget(): number {
    return this.#meter.dropped;
  }

  /** Invites `host` (its control `port`) now, and again with backoff until it answers. */
  invite(host: string, port: number): void {
    this.#invitations.add(host, port, { now: this.#now() });
    this.tick();
  }

  /** The participants, in session or joining. */
  participants(): ParticipantInfo[] {
    return this.#participants.all().map((p) => p.info());
  }

  /** Sets the one handler of incoming messages. */
  onMessages(handler: (messages: readonly MidiMessage[], from: MidiSource) => void): void {
    this.#handler = handler;
  }

  /** Sends `messages` to every participant in session, each with its sequence and journal. */
  send(messages: readonly MidiMessage[]): void {
    this.sendTo(messages);
  }

  /** Sends `messages` to the participants in session named in `to` by address and name (all: every one). */
  sendTo(
    messages: readonly MidiMessage[],
    to?: readonly { address: string; name: string }[],
  ): void {
    if (!this.#sockets || messages.length === 0) return;
    const timestamp = Number(ticksAt(this.#now()) & 0xffffffffn);
    const runs = chunks(messages);
    if (runs.skipped > 0) {
      this.#o.log?.("warn", `MIDI session: ${runs.skipped} system exclusive too long to send`);
    }
    for (const chunk of runs.chunks) {
      for (const p of this.#participants.all()) {
        if (!p.isOpen || (to && !to.some((t) => t.address === p.address && t.name === p.name))) {
          continue;
        }
        const { sequence, journal } = p.sender.next(chunk);
        const bytes = encodePacket({
          sequence,
          timestamp,
          ssrc: this.ssrc,
          messages: chunk,
          journal,
        });
        this.#sockets.send(bytes, { kind: "data", address: p.address, port: p.dataPort! });
      }
    }
  }

  /** Runs what is due: invitations, clock sync, timeouts, receiver feedback. */
  tick(): void {
    if (!this.#sockets) return;
    const now = this.#now();
    this.#control.inviteDue(now);
    const timeoutMs = this.#o.timeoutMs ?? PARTICIPANT_TIMEOUT_MS;
    for (const p of this.#participants.all()) {
      if (now - p.lastHeard > timeoutMs) {
        this.#control.drop(p, "timeout");
        continue;
      }
      if (p.initiator === "us" && p.isOpen && now >= p.nextSyncAt) {
        p.nextSyncAt = now + (this.#o.syncIntervalMs ?? 10_000);
        this.#sockets.send(
          encodeControl(clockStart(this.ssrc, now)),
          { kind: "data", address: p.address, port: p.dataPort! },
        );
      }
      this.#feedback(p);
    }
  }

  /** Says goodbye to every participant and closes the ports. */
  async close(): Promise<void> {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
    for (const p of this.#participants.all()) this.#control.bye(p);
    this.#sockets?.close();
    await this.#serving;
    this.#sockets = null;
  }

  #datagram(kind: PortKind, data: Uint8Array, address: string, port: number): void {
    if (!this.#meter.allow(address, data.length)) return;
    if (isControlPacket(data)) {
      const packet = decodeControl(data);
      if (packet) this.#control.handle(packet, { kind, address, port });
      return;
    }
    if (kind === "data") this.#rtp(data, address);
  }

  #rtp(data: Uint8Array, address: string): void {
    const ssrc = ssrcOf(data);
    const p = ssrc === null ? undefined : this.#participants.of(ssrc, address);
    if (!p || !p.isOpen) { // nothing from outside the session is acted on (a pending peer's is held)
      if (ssrc !== null) this.#participants.pendingOf(ssrc, address)?.hold(data);
      return;
    }
    const gap = p.receiver.gapBefore(sequenceOf(data));
    if (gap < 0) { // late or repeated
      p.late++;
      return;
    }
    if (gap > 0) p.sysex.data = null; // a system exclusive under way lost a segment: dropped
    const packet = decodePacket(data, p.sysex);
    if (!packet) return;
    p.lastHeard = this.#now();
    const arrival = p.receiver.arrive(packet.sequence, packet.journal);
    if (!arrival.isFresh) return;
    p.received++;
    p.lost += arrival.lost;
    p.recovered += arrival.recovered.length;
    p.receiver.observe(packet.messages);
    if (arrival.lost > 0) {
      this.#emit({
        type: "recovered",
        participant: p.info(),
        lost: arrival.lost,
        messages: arrival.recovered,
      });
    }
    const messages = [...arrival.recovered, ...packet.messages];
    if (messages.length > 0) {
      this.#handler?.(messages, { kind: "rtp", address: p.address, name: p.name });
    }
  }

  /** Receiver feedback: tells `p` how far we have received, when that moved on. */
  #feedback(p: Participant): void {
    const last = p.receiver.last;
    if (last === null || last === p.feedbackSent || !p.isOpen) return;
    p.feedbackSent = last;
    const rs = encodeControl({ command: "RS", ssrc: this.ssrc, sequence: last });
    this.#sockets?.send(rs, { kind: "control", address: p.address, port: p.controlPort });
  }

  #emit(event: RtpMidiEvent): void {
    try {
      this.#o.onEvent?.(event);
    } catch (error) {
      this.#o.log?.("warn", `MIDI session: an event handler failed: ${(error as Error).message}`);
    }
  }
}

/**
 * `messages` in runs that fit a packet's command section; a system exclusive
 * too long for one goes in segments, a packet each; one over `MAX_SYSEX` is
 * left out and counted.
 */
function chunks(
  messages: readonly MidiMessage[],
): { chunks: OutgoingCommand[][]; skipped: number } {
  const out: OutgoingCommand[][] = [];
  let current: OutgoingCommand[] = [];
  let size = 0;
  let skipped = 0;
  const flush = () => {
    if (current.length > 0) out.push(current);
    current = [];
    size = 0;
  };
  for (const message of messages) {
    const length = commandSize(message);
    if (message.type === "sysex" && length > MAX_SECTION) {
      if (message.data.length > MAX_SYSEX) skipped++;
      else {
        flush();
        for (const segment of sysexSegments(message.data)) out.push([segment]);
      }
      continue;
    }
    if (size + length > MAX_SECTION) flush();
    current.push(message);
    size += length;
  }
  flush();
  return { chunks: out, skipped };
}
