/**
 * The receiving side of the recovery journal (RFC 6295 ch. 4, RFC 4696 s.6),
 * one per participant: it follows the sequence numbers (as RFC 3550 A.1
 * does: a gap of up to `MAX_DROPOUT` is a loss, a packet up to
 * `MAX_MISORDER` behind is late or repeated and dropped, and a run of
 * `RESYNC_AFTER` consecutive packets beyond either is a sender that started
 * numbering anew, followed from there), and keeps the state the received
 * messages set (each channel's program, controller values, sounding notes,
 * each with the packet that set it). When packets were lost, the next
 * packet's journal is compared with that state and what differs is
 * recovered as messages: a program change, a controller's last value, a note
 * off for a note that ended, a note on for one that began, and a note off
 * then on for a note released and pressed again (its note log is newer than
 * the note on we hold: ours came before the journal's checkpoint). A
 * controller changed and changed back (127 then 0) is recovered as its
 * latest value only: chapter C's value tool holds no more. A journal whose
 * checkpoint comes after the first lost packet does not cover the loss and
 * is not read. The state then holds what was recovered, so nothing is
 * recovered twice.
 * @module
 */
import type { MidiMessage } from "../messages.ts";
import type { Journal } from "./journal.ts";

/** A value and the extended sequence number of the packet that set it. */
interface Held {
  value: number;
  at: number;
}

interface ChannelState {
  program?: number;
  controllers: Map<number, Held>;
  /** Sounding notes: their velocity and the packet of their note on. */
  notes: Map<number, Held>;
}

/** What one received packet means for the stream. */
export interface Arrival {
  /** False for a late, repeated or stray packet: its messages are not delivered. */
  isFresh: boolean;
  /** Packets lost just before this one. */
  lost: number;
  /** Messages recovered from its journal, to deliver before its own. */
  recovered: MidiMessage[];
}

/** The largest gap taken as packets lost (RFC 3550 A.1). */
export const MAX_DROPOUT = 3000;
/** How far behind a packet is late or repeated, rather than out of the window. */
export const MAX_MISORDER = 100;
/** Consecutive packets out of the window after which the stream is followed from them. */
export const RESYNC_AFTER = 2;

const STALE: Arrival = { isFresh: false, lost: 0, recovered: [] };

/** The sequence and MIDI state of the packets from one participant. */
export class JournalReceiver {
  /** The extended (never wrapping) sequence number expected next. */
  #expected: number | null = null;
  /** The run of packets out of the window: the one it expects next, and its length. */
  #stray: { next: number; count: number } | null = null;
  #channels = new Map<number, ChannelState>();

  /** How many packets were lost before `sequence` (0 in order), or -1 when it is late or repeated. */
  gapBefore(sequence: number): number {
    if (this.#expected === null) return 0;
    const gap = (sequence - this.#expected) & 0xffff;
    return gap >= 0x10000 - MAX_MISORDER ? -1 : gap;
  }

  /** Accounts for the packet numbered `sequence` carrying `journal` (null when it had none). */
  arrive(sequence: number, journal: Journal | null): Arrival {
    if (this.#expected === null) {
      this.#expected = sequence + 1;
      return { isFresh: true, lost: 0, recovered: [] };
    }
    const first = this.#expected & 0xffff;
    const gap = this.gapBefore(sequence);
    if (gap < 0) return STALE;
    if (gap >= MAX_DROPOUT) {
      const count = this.#stray?.next === sequence ? this.#stray.count + 1 : 1;
      this.#stray = { next: (sequence + 1) & 0xffff, count };
      if (count < RESYNC_AFTER) return STALE;
      this.#stray = null;
      this.#expected += gap + 1; // extended numbers only grow: what was held stays older
      return { isFresh: true, lost: 0, recovered: [] };
    }
    this.#stray = null;
    this.#expected += gap + 1;
    const after = journal ? (journal.checkpoint - first) & 0xffff : 0; // checkpoint after the first lost
    const recovered = gap > 0 && journal && (after === 0 || after >= 0x8000)
      ? this.recover(journal)
      : [];
    return { isFresh: true, lost: gap, recovered };
  }

  /** The last sequence number received, or null before the first. */
  get last(): number | null {
    return this.#expected === null ? null : (this.#expected - 1) & 0xffff;
  }

  /** The extended sequence number of the packet last received. */
  get #current(): number {
    return (this.#expected ?? 0) - 1;
  }

  /** Records what the last received packet's (or recovered) messages set. */
  observe(messages: readonly MidiMessage[]): void {
    const at = this.#current;
    for (const message of messages) {
      if (!("channel" in message)) continue;
      const state = this.#channel(message.channel);
      if (message.type === "programChange") state.program = message.program;
      else if (message.type === "controlChange") {
        state.controllers.set(message.controller, { value: message.value, at });
      } else if (message.type === "noteOn") {
        state.notes.set(message.note, { value: message.velocity, at });
      } else if (message.type === "noteOff") state.notes.delete(message.note);
    }
  }

  /** The messages that put the state right by `journal` (of the packet last received), recorded as received. */
  recover(journal: Journal): MidiMessage[] {
    const current = this.#current;
    // The checkpoint as an extended number: what we hold from before it is older than the journal's.
    const checkpoint = current - ((current - journal.checkpoint) & 0xffff);
    const out: MidiMessage[] = [];
    for (const c of journal.channels) {
      const state = this.#channel(c.channel);
      const channel = c.channel;
      if (c.program !== undefined && state.program !== c.program) {
        out.push({ type: "programChange", channel, program: c.program });
      }
      for (const { controller, value } of c.controllers ?? []) {
        const held = state.controllers.get(controller);
        if (!held || held.value !== value || held.at < checkpoint) {
          out.push({ type: "controlChange", channel, controller, value });
        }
      }
      for (const note of c.notes?.off ?? []) {
        if (state.notes.has(note)) out.push({ type: "noteOff", channel, note, velocity: 0 });
      }
      for (const { note, velocity, isPlayable } of c.notes?.on ?? []) {
        const held = state.notes.get(note);
        if (!isPlayable || (held && held.at >= checkpoint)) continue;
        if (held) out.push({ type: "noteOff", channel, note, velocity: 0 }); // pressed again
        out.push({ type: "noteOn", channel, note, velocity });
      }
    }
    this.observe(out);
    return out;
  }

  #channel(channel: number): ChannelState {
    let state = this.#channels.get(channel);
    if (!state) {
      state = { controllers: new Map(), notes: new Map() };
      this.#channels.set(channel, state);
    }
    return state;
  }
}
