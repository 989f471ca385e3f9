/**
 * The receiving side of the recovery journal (RFC 6295 ch. 4, RFC 4696 s.6),
 * one per participant: it follows the sequence numbers, drops late and
 * repeated packets, and keeps the state the received messages set (each
 * channel's program, controller values, sounding notes). When packets were
 * lost, the next packet's journal is compared with that state and what
 * differs is recovered as messages: a program change, a controller's last
 * value, a note off for a note that ended, a note on for one that began.
 * The state then holds what was recovered, so nothing is recovered twice.
 * @module
 */
import type { MidiMessage } from "../messages.ts";
import type { Journal } from "./journal.ts";

interface ChannelState {
  program?: number;
  controllers: Map<number, number>;
  /** Sounding notes and their velocity. */
  notes: Map<number, number>;
}

/** What one received packet means for the stream. */
export interface Arrival {
  /** False for a late or repeated packet: its messages are not delivered. */
  isFresh: boolean;
  /** Packets lost just before this one. */
  lost: number;
  /** Messages recovered from its journal, to deliver before its own. */
  recovered: MidiMessage[];
}

/** The sequence and MIDI state of the packets from one participant. */
export class JournalReceiver {
  #expected: number | null = null;
  #channels = new Map<number, ChannelState>();

  /** How many packets were lost before `sequence` (0 in order), or -1 when it is late or repeated. */
  gapBefore(sequence: number): number {
    if (this.#expected === null) return 0;
    const gap = (sequence - this.#expected) & 0xffff;
    return gap >= 0x8000 ? -1 : gap;
  }

  /** Accounts for the packet numbered `sequence` carrying `journal` (null when it had none). */
  arrive(sequence: number, journal: Journal | null): Arrival {
    const gap = this.gapBefore(sequence);
    if (gap < 0) return { isFresh: false, lost: 0, recovered: [] };
    this.#expected = (sequence + 1) & 0xffff;
    const recovered = gap > 0 && journal ? this.recover(journal) : [];
    return { isFresh: true, lost: gap, recovered };
  }

  /** The last sequence number received, or null before the first. */
  get last(): number | null {
    return this.#expected === null ? null : (this.#expected - 1) & 0xffff;
  }

  /** Records what received (or recovered) messages set. */
  observe(messages: readonly MidiMessage[]): void {
    for (const message of messages) {
      if (!("channel" in message)) continue;
      const state = this.#channel(message.channel);
      if (message.type === "programChange") state.program = message.program;
      else if (message.type === "controlChange") {
        state.controllers.set(message.controller, message.value);
      } else if (message.type === "noteOn") state.notes.set(message.note, message.velocity);
      else if (message.type === "noteOff") state.notes.delete(message.note);
    }
  }

  /** The messages that put the state right by `journal`, recorded as received. */
  recover(journal: Journal): MidiMessage[] {
    const out: MidiMessage[] = [];
    for (const c of journal.channels) {
      const state = this.#channel(c.channel);
      const channel = c.channel;
      if (c.program !== undefined && state.program !== c.program) {
        out.push({ type: "programChange", channel, program: c.program });
      }
      for (const { controller, value } of c.controllers ?? []) {
        if (state.controllers.get(controller) !== value) {
          out.push({ type: "controlChange", channel, controller, value });
        }
      }
      for (const note of c.notes?.off ?? []) {
        if (state.notes.has(note)) out.push({ type: "noteOff", channel, note, velocity: 0 });
      }
      for (const { note, velocity, play } of c.notes?.on ?? []) {
        if (play && !state.notes.has(note)) out.push({ type: "noteOn", channel, note, velocity });
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
