/**
 * The recovery journal on the wire (RFC 6295 ch. 4-5 and Appendix A): what a
 * packet says of the session's history since its checkpoint, so a receiver
 * that lost packets can put its state right. This codec reads and writes the
 * channel journal's chapters P (program change), C (control change) and N
 * (note on/off); it skips the system journal and every other chapter by its
 * length (M, W before N are skipped too, so N is read behind them). Decoding
 * never throws: a journal cut short or inconsistent decodes as null.
 * @module
 */
import { DATA_MAX } from "../../../protocol/midi.ts";

/** A note the journal says sounds: its last note on. */
export interface NoteLog {
  note: number;
  velocity: number;
  /** The sender recommends playing it on recovery (the `Y` bit). */
  isPlayable: boolean;
}

/** One channel's chapters. */
export interface ChannelJournal {
  /** 1-16. */
  channel: number;
  /** Chapter P: the last program change. */
  program?: number;
  /** Chapter C: the last value of each controller (the value tool; toggle and count logs are skipped). */
  controllers?: { controller: number; value: number }[];
  /** Chapter N: the notes that sound, and those that ended (OFFBITS). */
  notes?: { on: NoteLog[]; off: number[] };
}

/** A recovery journal. */
export interface Journal {
  /** The sequence number of the first packet of the history the journal codes. */
  checkpoint: number;
  channels: ChannelJournal[];
}

/** Reads the journal at the start of `bytes`; null when it is malformed. */
export function decodeJournal(bytes: Uint8Array): Journal | null {
  if (bytes.length < 3) return null;
  const header = bytes[0]!;
  const journal: Journal = { checkpoint: (bytes[1]! << 8) | bytes[2]!, channels: [] };
  let at = 3;
  if (header & 0x40) { // Y: a system journal, skipped by its length
    if (at + 2 > bytes.length) return null;
    const length = ((bytes[at]! & 0x03) << 8) | bytes[at + 1]!;
    if (length < 2) return null;
    at += length;
  }
  if (!(header & 0x20)) return at <= bytes.length ? journal : null; // A: channel journals
  const count = (header & 0x0f) + 1;
  for (let i = 0; i < count; i++) {
    if (at + 3 > bytes.length) return null;
    const length = ((bytes[at]! & 0x03) << 8) | bytes[at + 1]!;
    if (length < 3 || at + length > bytes.length) return null;
    const channel = decodeChannel(bytes.subarray(at, at + length));
    if (!channel) return null;
    journal.channels.push(channel);
    at += length;
  }
  return journal;
}

/** One channel journal (its header included), or null. */
function decodeChannel(bytes: Uint8Array): ChannelJournal | null {
  const out: ChannelJournal = { channel: ((bytes[0]! >> 3) & 0x0f) + 1 };
  const toc = bytes[2]!;
  let at = 3;
  if (toc & 0x80) { // P
    if (at + 3 > bytes.length) return null;
    out.program = bytes[at]! & 0x7f;
    at += 3;
  }
  if (toc & 0x40) { // C
    const logs = (bytes[at]! & 0x7f) + 1;
    if (at + 1 + 2 * logs > bytes.length) return null;
    out.controllers = [];
    for (let i = 0; i < logs; i++) {
      const number = bytes[at + 1 + 2 * i]!, value = bytes[at + 2 + 2 * i]!;
      if (value & 0x80) continue; // A: the toggle or count tool
      out.controllers.push({ controller: number & 0x7f, value });
    }
    at += 1 + 2 * logs;
  }
  if (toc & 0x20) { // M: skipped by its LENGTH
    if (at + 2 > bytes.length) return null;
    const length = ((bytes[at]! & 0x03) << 8) | bytes[at + 1]!;
    if (length < 2) return null;
    at += length;
  }
  if (toc & 0x10) at += 2; // W
  if (toc & 0x08) { // N
    const notes = decodeNotes(bytes, at);
    if (!notes) return null;
    out.notes = notes;
  }
  return at <= bytes.length ? out : null;
}

function decodeNotes(bytes: Uint8Array, at: number): ChannelJournal["notes"] | null {
  if (at + 2 > bytes.length) return null;
  const low = bytes[at + 1]! >> 4, high = bytes[at + 1]! & 0x0f;
  // LEN=127 with LOW=15 HIGH=0 is the one way to say 128 note logs.
  const logs = (bytes[at]! & 0x7f) +
    ((bytes[at]! & 0x7f) === 127 && low === 15 && high === 0 ? 1 : 0);
  const octets = low <= high ? high - low + 1 : 0;
  if (at + 2 + 2 * logs + octets > bytes.length) return null;
  const on: NoteLog[] = [];
  for (let i = 0; i < logs; i++) {
    const note = bytes[at + 2 + 2 * i]! & 0x7f, v = bytes[at + 3 + 2 * i]!;
    if ((v & 0x7f) === 0) continue; // velocity 0 is reserved
    on.push({ note, velocity: v & 0x7f, isPlayable: (v & 0x80) !== 0 });
  }
  const off: number[] = [];
  const base = at + 2 + 2 * logs;
  for (let i = 0; i < octets; i++) {
    for (let bit = 0; bit < 8; bit++) {
      if (bytes[base + i]! & (0x80 >> bit)) off.push(8 * (low + i) + bit);
    }
  }
  return { on, off };
}

/** The bytes of `journal` (no system journal); null when it has no channel. */
export function encodeJournal(journal: Journal): Uint8Array<ArrayBuffer> | null {
  const channels = journal.channels.map(encodeChannel).filter((c) => c !== null);
  if (channels.length === 0) return null;
  const header = [0x20 | (channels.length - 1), (journal.checkpoint >> 8) & 0xff];
  header.push(journal.checkpoint & 0xff);
  return Uint8Array.from([...header, ...channels.flat()]);
}

function encodeChannel(c: ChannelJournal): number[] | null {
  let toc = 0;
  const body: number[] = [];
  if (c.program !== undefined) {
    toc |= 0x80;
    body.push(c.program & 0x7f, 0, 0);
  }
  const controllers = (c.controllers ?? []).slice(0, 128);
  if (controllers.length > 0) {
    toc |= 0x40;
    body.push(controllers.length - 1);
    for (const { controller, value } of controllers) body.push(controller & 0x7f, value & 0x7f);
  }
  if (c.notes && (c.notes.on.length > 0 || c.notes.off.length > 0)) {
    toc |= 0x08;
    body.push(...encodeNotes(c.notes));
  }
  if (toc === 0) return null;
  const length = 3 + body.length;
  return [((c.channel - 1) & 0x0f) << 3 | (length >> 8), length & 0xff, toc, ...body];
}

function encodeNotes(notes: NonNullable<ChannelJournal["notes"]>): number[] {
  const on = notes.on.filter((n) => n.velocity > 0).slice(0, DATA_MAX + 1); // LEN 127 can say 128
  const logs = on.flatMap((n) => [n.note & 0x7f, (n.isPlayable ? 0x80 : 0) | (n.velocity & 0x7f)]);
  // No OFFBITS: LOW 15, HIGH 1, except for 128 logs (LEN 127, LOW 15, HIGH 0: RFC 6295 A.6).
  if (notes.off.length === 0) {
    return on.length === 128 ? [127, 0xf0, ...logs] : [on.length, 0xf1, ...logs];
  }
  const low = Math.min(...notes.off) >> 3, high = Math.max(...notes.off) >> 3;
  const bits = new Array<number>(high - low + 1).fill(0);
  for (const note of notes.off) bits[(note >> 3) - low]! |= 0x80 >> (note & 7);
  return [on.length, (low << 4) | high, ...logs, ...bits];
}
