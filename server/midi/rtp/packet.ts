/**
 * RTP-MIDI packets (RFC 6295): the RTP header (version 2, payload type 97 as
 * Apple's sessions use it, a sequence number, a timestamp in the session's
 * 10 kHz clock, the sender's SSRC), the MIDI command section
 * (`commands.ts`) and the recovery journal when `J` says one follows
 * (`journal.ts`). Decoding never throws: a malformed packet is null.
 * @module
 */
import type { MidiMessage } from "../messages.ts";
import {
  decodeCommands,
  encodeCommands,
  type OutgoingCommand,
  type SysexSegments,
} from "./commands.ts";
import { decodeJournal, type Journal } from "./journal.ts";

/** The RTP payload type of RTP-MIDI in AppleMIDI sessions. */
export const PAYLOAD_TYPE = 0x61;

/** A decoded RTP-MIDI packet. */
export interface RtpMidiPacket {
  sequence: number;
  timestamp: number;
  ssrc: number;
  messages: MidiMessage[];
  /** The journal, when the packet had one that could be read. */
  journal: Journal | null;
}

/** The SSRC of an RTP packet, without decoding the rest (null when too short to be one). */
export function ssrcOf(data: Uint8Array): number | null {
  if (data.length < 12 || data[0]! >> 6 !== 2) return null;
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getUint32(8);
}

/** The sequence number of an RTP packet whose SSRC `ssrcOf` could read. */
export function sequenceOf(data: Uint8Array): number {
  return (data[2]! << 8) | data[3]!;
}

/** The packet `data` holds, or null when it is no RTP-MIDI packet. */
export function decodePacket(data: Uint8Array, sysex: SysexSegments): RtpMidiPacket | null {
  if (data.length < 13 || data[0]! >> 6 !== 2) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const csrcs = data[0]! & 0x0f;
  let at = 12 + 4 * csrcs;
  if (data[0]! & 0x10) { // a header extension
    if (at + 4 > data.length) return null;
    at += 4 + 4 * view.getUint16(at + 2);
  }
  let end = data.length;
  if (data[0]! & 0x20) end -= data[data.length - 1]!; // padding
  if (at >= end) return null;
  const payload = data.subarray(at, end);
  const section = decodeCommands(payload, sysex);
  if (!section) return null;
  return {
    sequence: view.getUint16(2),
    timestamp: view.getUint32(4),
    ssrc: view.getUint32(8),
    messages: section.messages,
    journal: section.hasJournal ? decodeJournal(payload.subarray(section.end)) : null,
  };
}

/** What `encodePacket` needs. */
export interface PacketFields {
  sequence: number;
  timestamp: number;
  ssrc: number;
  messages: readonly OutgoingCommand[];
  journal: Uint8Array | null;
}

/** The bytes of an RTP-MIDI packet. */
export function encodePacket(fields: PacketFields): Uint8Array<ArrayBuffer> {
  const section = encodeCommands(fields.messages, { hasJournal: fields.journal !== null });
  const out = new Uint8Array(12 + section.length + (fields.journal?.length ?? 0));
  const view = new DataView(out.buffer);
  out[0] = 0x80;
  out[1] = PAYLOAD_TYPE;
  view.setUint16(2, fields.sequence & 0xffff);
  view.setUint32(4, fields.timestamp >>> 0);
  view.setUint32(8, fields.ssrc >>> 0);
  out.set(section, 12);
  if (fields.journal) out.set(fields.journal, 12 + section.length);
  return out;
}
