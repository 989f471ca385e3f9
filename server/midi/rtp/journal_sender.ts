/**
 * The sending side of the recovery journal (RFC 4696 s.4-5), one per
 * participant: it numbers the packets sent to it and keeps, per channel, the
 * last program, each controller's last value and each note's last state,
 * with the packet that set them. Each packet carries the journal of what
 * changed since the checkpoint (the first packet the participant has not
 * acknowledged); receiver feedback (`RS`) moves the checkpoint on and trims
 * what it covers, so the journal stays small.
 * @module
 */
import type { MidiMessage } from "../messages.ts";
import type { OutgoingCommand } from "./commands.ts";
import { encodeJournal, type Journal } from "./journal.ts";

interface Entry {
  value: number;
  /** The extended sequence number of the packet that set it. */
  at: number;
}

interface ChannelHistory {
  program?: Entry;
  controllers: Map<number, Entry>;
  /** Velocity > 0: sounding; 0: ended. */
  notes: Map<number, Entry>;
}

/** A packet's sequence number and the journal it carries. */
export interface OutgoingPacket {
  sequence: number;
  journal: Uint8Array<ArrayBuffer> | null;
}

/** Sequence numbers and the journal of the packets to one participant. */
export class JournalSender {
  /** Extended (never wrapping) sequence number of the last packet sent. */
  #last: number;
  /** Extended sequence number of the first packet not acknowledged. */
  #checkpoint: number;
  #channels = new Map<number, ChannelHistory>();
  #acked = false;

  /** Starts numbering after `initial` (random by default, as RTP asks). */
  constructor(initial = Math.floor(Math.random() * 0x10000)) {
    this.#last = initial;
    this.#checkpoint = initial + 1;
  }

  /** The next packet's sequence number and journal; `messages` are recorded as its content. */
  next(messages: readonly OutgoingCommand[]): OutgoingPacket {
    const journal = encodeJournal(this.journal());
    this.#last++;
    for (const message of messages) this.#record(message, this.#last);
    return { sequence: this.#last & 0xffff, journal };
  }

  /** The journal of the history since the checkpoint. */
  journal(): Journal {
    const journal: Journal = { checkpoint: this.#checkpoint & 0xffff, channels: [] };
    for (const [channel, history] of [...this.#channels].sort((a, b) => a[0] - b[0])) {
      const controllers = [...history.controllers].map(([controller, e]) => ({
        controller,
        value: e.value,
      }));
      const notes = [...history.notes];
      journal.channels.push({
        channel,
        ...(history.program ? { program: history.program.value } : {}),
        ...(controllers.length > 0 ? { controllers } : {}),
        ...(notes.length > 0
          ? {
            notes: {
              on: notes.filter(([, e]) => e.value > 0).map(([note, e]) => ({
                note,
                velocity: e.value,
                isPlayable: true,
              })),
              off: notes.filter(([, e]) => e.value === 0).map(([note]) => note),
            },
          }
          : {}),
      });
    }
    return journal;
  }

  /** The last sequence number the participant acknowledged, or null before any. */
  get acknowledged(): number | null {
    return this.#acked ? (this.#checkpoint - 1) & 0xffff : null;
  }

  /** The participant received up to `sequence`: what that covers leaves the journal. */
  acknowledge(sequence: number): void {
    const behind = (this.#last - sequence) & 0xffff;
    const acked = this.#last - behind;
    if (acked < this.#checkpoint - 1 || acked > this.#last) return; // old or unknown
    this.#checkpoint = acked + 1;
    this.#acked = true;
    for (const [channel, history] of this.#channels) {
      if (history.program && history.program.at <= acked) delete history.program;
      for (const map of [history.controllers, history.notes]) {
        for (const [key, entry] of map) if (entry.at <= acked) map.delete(key);
      }
      if (!history.program && history.controllers.size === 0 && history.notes.size === 0) {
        this.#channels.delete(channel);
      }
    }
  }

  #record(command: OutgoingCommand, at: number): void {
    if (command.type === "sysexSegment" || !("channel" in command)) return;
    const message: MidiMessage = command;
    let history = this.#channels.get(message.channel);
    if (!history) {
      history = { controllers: new Map(), notes: new Map() };
      this.#channels.set(message.channel, history);
    }
    if (message.type === "programChange") history.program = { value: message.program, at };
    else if (message.type === "controlChange") {
      history.controllers.set(message.controller, { value: message.value, at });
    } else if (message.type === "noteOn") {
      history.notes.set(message.note, { value: message.velocity, at });
    } else if (message.type === "noteOff") history.notes.set(message.note, { value: 0, at });
  }
}
