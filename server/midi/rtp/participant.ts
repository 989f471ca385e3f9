/**
 * A session participant: the peer at the other end of one AppleMIDI session
 * (its SSRC, name, address and ports, who invited whom), its journals both
 * ways, its clock and what was seen of it. `Participants` holds them by SSRC
 * and finds the one a packet belongs to: a packet counts only when its SSRC
 * and its sender's address both match a participant in session. A peer that
 * invited us is pending (held apart, a few at most) until it proved its
 * address by echoing our clock sync.
 * @module
 */
import type { SysexSegments } from "./commands.ts";
import { JournalReceiver } from "./journal_receiver.ts";
import { JournalSender } from "./journal_sender.ts";

/** How many packets a pending participant's are held until it opens. */
const MAX_EARLY = 64;

/** What the operator and the tests see of a participant. */
export interface ParticipantInfo {
  ssrc: number;
  name: string;
  address: string;
  controlPort: number;
  /** Null until the data port's invitation is accepted. */
  dataPort: number | null;
  /** `us` when Cueport invited it, `peer` when it invited Cueport. */
  initiator: "us" | "peer";
  /** Half the last clock sync's round trip, or null before one completed. */
  latencyMs: number | null;
  /** The last sequence number of ours it acknowledged (receiver feedback), or null. */
  acknowledged: number | null;
  /** RTP-MIDI packets received, lost (gaps in sequence numbers), messages recovered. */
  received: number;
  lost: number;
  recovered: number;
  /** RTP-MIDI packets that came after a later one or repeated (not told apart): not acted on. */
  late: number;
}

/** One participant's state. */
export class Participant {
  readonly ssrc: number;
  readonly name: string;
  readonly address: string;
  readonly controlPort: number;
  readonly token: number;
  readonly initiator: "us" | "peer";
  dataPort: number | null = null;
  /** When a datagram of it was last read (ms, the network's clock). */
  lastHeard: number;
  /** When our next clock sync to it is due (initiator side). */
  nextSyncAt = 0;
  /** The random timestamp of the clock sync it must echo to open (a peer's invitation), or null. */
  challenge: bigint | null = null;
  /** The sequence number last acknowledged to it by receiver feedback. */
  feedbackSent: number | null = null;
  latencyMs: number | null = null;
  received = 0;
  lost = 0;
  recovered = 0;
  late = 0;
  readonly sender = new JournalSender();
  readonly receiver = new JournalReceiver();
  readonly sysex: SysexSegments = { data: null };
  /** RTP-MIDI packets it sent while pending, delivered once it opens. */
  #early: Uint8Array[] = [];

  /** Builds a participant heard of at `now`. */
  constructor(
    fields: Pick<
      Participant,
      "ssrc" | "name" | "address" | "controlPort" | "token" | "initiator"
    >,
    now: number,
  ) {
    this.ssrc = fields.ssrc;
    this.name = fields.name;
    this.address = fields.address;
    this.controlPort = fields.controlPort;
    this.token = fields.token;
    this.initiator = fields.initiator;
    this.lastHeard = now;
  }

  /** Whether both ports are in session (MIDI flows). */
  get isOpen(): boolean {
    return this.dataPort !== null;
  }

  /** Holds a packet it sent while pending (after its data port's invitation; a few at most). */
  hold(data: Uint8Array): void {
    if (this.dataPort !== null && this.#early.length < MAX_EARLY) this.#early.push(data.slice());
  }

  /** The packets held while pending, in order; they are no longer held. */
  takeEarly(): Uint8Array[] {
    return this.#early.splice(0);
  }

  /** A copy of what is shown of it. */
  info(): ParticipantInfo {
    return {
      ssrc: this.ssrc,
      name: this.name,
      address: this.address,
      controlPort: this.controlPort,
      dataPort: this.dataPort,
      initiator: this.initiator,
      latencyMs: this.latencyMs,
      acknowledged: this.sender.acknowledged,
      received: this.received,
      lost: this.lost,
      recovered: this.recovered,
      late: this.late,
    };
  }
}

/** How many peers may be pending at once; past it, the oldest is forgotten. */
const MAX_PENDING = 8;

/** The participants of a session, by SSRC, and the pending ones. */
export class Participants {
  #bySsrc = new Map<number, Participant>();
  #pending: Participant[] = [];
  /** At most this many at once; a further invitation is refused. */
  readonly max: number;

  /** Builds an empty set holding at most `max`. */
  constructor(max = 64) {
    this.max = max;
  }

  /** The participant a packet of `ssrc` from `address` belongs to, if any. */
  of(ssrc: number, address: string): Participant | undefined {
    const found = this.#bySsrc.get(ssrc);
    return found && found.address === address ? found : undefined;
  }

  /** The participant whose control port is `address:port`, if any. */
  at(address: string, controlPort: number): Participant | undefined {
    for (const p of this.#bySsrc.values()) {
      if (p.address === address && p.controlPort === controlPort) return p;
    }
    return undefined;
  }

  /** Adds `participant`; a participant with its SSRC is replaced. */
  add(participant: Participant): void {
    this.#bySsrc.set(participant.ssrc, participant);
  }

  /** Removes `participant` (if it is still the one of its SSRC). */
  remove(participant: Participant): void {
    if (this.#bySsrc.get(participant.ssrc) === participant) this.#bySsrc.delete(participant.ssrc);
  }

  /** Holds `participant` apart until it proves its address (one of its SSRC and address is replaced). */
  pend(participant: Participant): void {
    this.unpend(this.pendingOf(participant.ssrc, participant.address));
    this.#pending.push(participant);
    if (this.#pending.length > MAX_PENDING) this.#pending.shift();
  }

  /** The pending participant of `ssrc` at `address`, if any. */
  pendingOf(ssrc: number, address: string): Participant | undefined {
    return this.#pending.find((p) => p.ssrc === ssrc && p.address === address);
  }

  /** Forgets the pending `participant`. */
  unpend(participant: Participant | undefined): void {
    this.#pending = this.#pending.filter((p) => p !== participant);
  }

  /** How many there are (in session, pending ones aside). */
  get size(): number {
    return this.#bySsrc.size;
  }

  /** Every participant. */
  all(): Participant[] {
    return [...this.#bySsrc.values()];
  }
}
