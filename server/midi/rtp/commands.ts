/**
 * The MIDI command section of an RTP-MIDI payload (RFC 6295 ch. 3): a header
 * (`B J Z P LEN`) and a list of commands, each but the first preceded by a
 * delta time of 1-4 octets (the first too when `Z` is set). Channel commands
 * may use running status; system real-time bytes may appear anywhere, also
 * inside a system exclusive; a system exclusive may be cut into segments
 * across packets (`F0 ... F0`, `F7 ... F0`, `F7 ... F7`, cancelled by `F4`), which a
 * `SysexSegments` per sender joins. Decoding never throws: it stops at the
 * first octet no command can be made of and keeps what came before.
 * @module
 */
import { dataLength, encodeMessage, isRealtime, messageOf } from "../bytes.ts";
import type { MidiMessage } from "../messages.ts";

/** The longest system exclusive joined from segments; a longer one is dropped. */
export const MAX_SYSEX = 65536;

/** A sender's system exclusive under way across packets. */
export interface SysexSegments {
  data: number[] | null;
}

/** What a command section holds. */
export interface CommandSection {
  /** The messages, in order. */
  messages: MidiMessage[];
  /** Each message's delta time (RTP timestamp units after the packet's timestamp). */
  deltas: number[];
  /** Whether a recovery journal follows the section. */
  hasJournal: boolean;
  /** Where the section ends in the payload (the journal starts there). */
  end: number;
}

/** Reads the command section at the start of `payload`; null when its header is cut short. */
export function decodeCommands(payload: Uint8Array, sysex: SysexSegments): CommandSection | null {
  if (payload.length < 1) return null;
  const header = payload[0]!;
  const big = (header & 0x80) !== 0;
  const length = big ? ((header & 0x0f) << 8) | (payload[1] ?? -1) : header & 0x0f;
  const start = big ? 2 : 1;
  const end = start + length;
  if (length < 0 || end > payload.length) return null;
  const out: CommandSection = {
    messages: [],
    deltas: [],
    hasJournal: (header & 0x40) !== 0,
    end,
  };
  const firstHasDelta = (header & 0x20) !== 0;
  new ListReader(payload.subarray(0, end), start, { firstHasDelta, sysex, out }).read();
  return out;
}

/** Walks one command list. */
class ListReader {
  #at: number;
  #running = 0;
  #time = 0;
  #bytes: Uint8Array;
  #firstHasDelta: boolean;
  #sysex: SysexSegments;
  #out: CommandSection;

  constructor(
    bytes: Uint8Array,
    start: number,
    list: { firstHasDelta: boolean; sysex: SysexSegments; out: CommandSection },
  ) {
    this.#at = start;
    this.#bytes = bytes;
    this.#firstHasDelta = list.firstHasDelta;
    this.#sysex = list.sysex;
    this.#out = list.out;
  }

  read(): void {
    let first = true;
    while (this.#at < this.#bytes.length) {
      if (!first || this.#firstHasDelta) {
        if (!this.#readDelta()) return;
      }
      first = false;
      if (!this.#command()) return;
    }
  }

  #readDelta(): boolean {
    let value = 0;
    for (let i = 0; i < 4; i++) {
      const byte = this.#bytes[this.#at++];
      if (byte === undefined) return false;
      value = (value << 7) | (byte & 0x7f);
      if ((byte & 0x80) === 0) {
        this.#time += value;
        return true;
      }
    }
    return false;
  }

  #emit(message: MidiMessage | null): void {
    if (!message) return;
    this.#out.messages.push(message);
    this.#out.deltas.push(this.#time);
  }

  #command(): boolean {
    let status = this.#bytes[this.#at]!;
    if (status < 0x80) {
      if (this.#running === 0) return false;
      status = this.#running;
    } else {
      this.#at++;
    }
    if (status === 0xf0 || status === 0xf7) return this.#sysexSegment(status);
    const length = dataLength(status);
    if (length === null || length < 0) return false;
    const data = this.#bytes.subarray(this.#at, this.#at + length);
    if (data.length < length || data.some((b) => b >= 0x80)) return false;
    this.#at += length;
    if (status < 0xf0) this.#running = status;
    else if (!isRealtime(status)) this.#running = 0; // system common cancels running status
    this.#emit(messageOf(status, data));
    return true;
  }

  /** A system exclusive command or segment, from after its first octet through its last. */
  #sysexSegment(opener: number): boolean {
    this.#running = 0;
    const body: number[] = [];
    for (;;) {
      const byte = this.#bytes[this.#at++];
      if (byte === undefined) return false;
      if (byte < 0x80) body.push(byte);
      else if (isRealtime(byte)) this.#emit(messageOf(byte, []));
      else if (byte === 0xf0 || byte === 0xf7 || byte === 0xf4) {
        this.#joinSegment(opener, body, byte);
        return true;
      } else return false;
    }
  }

  #joinSegment(opener: number, body: number[], closer: number): void {
    const segments = this.#sysex;
    if (closer === 0xf4) { // cancelled
      segments.data = null;
      return;
    }
    if (opener === 0xf0) segments.data = [];
    if (segments.data === null) return; // a continuation of nothing we saw begin
    if (segments.data.length + body.length > MAX_SYSEX) {
      segments.data = null;
      return;
    }
    segments.data.push(...body);
    if (closer === 0xf7) {
      this.#emit({ type: "sysex", data: Uint8Array.from(segments.data) });
      segments.data = null;
    }
  }
}

/**
 * One segment of a system exclusive too long for one packet, as sent: its
 * octets with their framing (`F0 ... F0`, `F7 ... F0`, `F7 ... F7`).
 */
export interface SysexSegment {
  type: "sysexSegment";
  bytes: Uint8Array;
}

/** What a packet's command section carries when sent. */
export type OutgoingCommand = MidiMessage | SysexSegment;

/** The octets of a system exclusive segment's data at most (its framing aside). */
export const SEGMENT_DATA = 960;

/** The segments of a system exclusive of `data`, each to go in a packet of its own. */
export function sysexSegments(data: Uint8Array): SysexSegment[] {
  const out: SysexSegment[] = [];
  for (let at = 0; at < data.length || at === 0; at += SEGMENT_DATA) {
    const body = data.subarray(at, at + SEGMENT_DATA);
    const last = at + SEGMENT_DATA >= data.length;
    const bytes = [
      at === 0 ? 0xf0 : 0xf7,
      ...Array.from(body, (b) => b & 0x7f),
      last ? 0xf7 : 0xf0,
    ];
    out.push({ type: "sysexSegment", bytes: Uint8Array.from(bytes) });
  }
  return out;
}

/**
 * The command section of `commands` (delta times 0, running status for
 * repeated channel statuses), with `J` set when a journal will follow.
 * @throws {RangeError} when the section would pass 4095 octets (split the messages first)
 */
export function encodeCommands(
  commands: readonly OutgoingCommand[],
  options: { hasJournal: boolean },
): Uint8Array<ArrayBuffer> {
  const list: number[] = [];
  let running = 0;
  commands.forEach((command, i) => {
    if (i > 0) list.push(0); // delta time 0
    const bytes = command.type === "sysexSegment" ? command.bytes : encodeMessage(command);
    const status = bytes[0]!;
    const start = status < 0xf0 && status === running ? 1 : 0;
    for (let k = start; k < bytes.length; k++) list.push(bytes[k]!);
    if (status < 0xf0) running = status;
    else if (!isRealtime(status)) running = 0;
  });
  if (list.length > 0x0fff) throw new RangeError("A command section holds at most 4095 octets");
  const j = options.hasJournal ? 0x40 : 0;
  const header = list.length > 15
    ? [0x80 | j | (list.length >> 8), list.length & 0xff]
    : [j | list.length];
  return Uint8Array.from([...header, ...list]);
}

/** The octets `message` takes in a command section (at most), for splitting into packets. */
export function commandSize(message: MidiMessage): number {
  return encodeMessage(message).length + 1;
}
