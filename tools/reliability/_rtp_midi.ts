/**
 * Fuzzed network MIDI for `midi_fuzz`: AppleMIDI control packets (`IN`, `OK`,
 * `NO`, `BY`, `CK`, `RS` with wrong versions, lengths, names, counts) and
 * RTP-MIDI payloads (RFC 6295): random MIDI made with Cueport's own codec,
 * then mutated, and command sections built by hand where a codec would never
 * go: lengths that lie, running status with no status, delta times that do
 * not end, system exclusive segments that never close or never began, and
 * recovery journals whose lengths and counts are wrong.
 * @module
 */
import { encodeControl } from "../../server/midi/rtp/control.ts";
import { encodeJournal, type Journal } from "../../server/midi/rtp/journal.ts";
import { encodePacket } from "../../server/midi/rtp/packet.ts";
import type { MidiMessage } from "../../server/midi/messages.ts";
import type { Rng } from "./_prng.ts";

/** The kinds of datagram the probe sends, counted by kind in its notes. */
export type RtpFuzzKind =
  | "random"
  | "control"
  | "valid MIDI"
  | "mutated MIDI"
  | "hand-made section"
  | "journal"
  | "sysex stream";

/** One MIDI message of any type, its data in range (channels 1-16). */
export function randomMessage(rng: Rng): MidiMessage {
  const channel = rng.range(1, 16);
  const d = () => rng.int(128);
  switch (rng.int(14)) {
    case 0:
      return { type: "noteOn", channel, note: d(), velocity: d() };
    case 1:
      return { type: "noteOff", channel, note: d(), velocity: d() };
    case 2:
      return { type: "polyPressure", channel, note: d(), pressure: d() };
    case 3:
      return { type: "controlChange", channel, controller: d(), value: d() };
    case 4:
      return { type: "programChange", channel, program: d() };
    case 5:
      return { type: "channelPressure", channel, pressure: d() };
    case 6:
      return { type: "pitchBend", channel, value: rng.int(16384) };
    case 7:
      return { type: "quarterFrame", piece: rng.int(8), value: rng.int(16) };
    case 8:
      return { type: "songPosition", beats: rng.int(16384) };
    case 9:
      return { type: "songSelect", song: d() };
    case 10:
      return { type: rng.pick(["clock", "start", "continue", "stop", "activeSensing"] as const) };
    case 11:
      return { type: "sysex", data: Uint8Array.from(rng.bytes(rng.size(900)), (b) => b & 0x7f) };
    default: // the default map's channel, where notes and CCs run actions
      return { type: "noteOn", channel: 1, note: rng.range(36, 127), velocity: d() };
  }
}

/** A well-formed RTP-MIDI packet of `ssrc` with up to 20 random messages. */
export function validPacket(rng: Rng, ssrc: number, sequence: number): Uint8Array<ArrayBuffer> {
  const messages = Array.from({ length: rng.range(1, 20) }, () => randomMessage(rng));
  let size = 0;
  const fitting = messages.filter((m) => (size += m.type === "sysex" ? m.data.length : 3) < 1000);
  return encodePacket({
    sequence,
    timestamp: rng.int(0x100000000),
    ssrc,
    messages: fitting.length > 0 ? fitting : [{ type: "start" }],
    journal: rng.chance(0.3) ? randomJournal(rng) : null,
  });
}

/** Bytes changed, cut, repeated or appended, sparing the first 12 (the RTP header) mostly. */
export function mutate(rng: Rng, bytes: Uint8Array): Uint8Array<ArrayBuffer> {
  let out = Uint8Array.from(bytes);
  const edits = rng.range(1, 4);
  for (let i = 0; i < edits; i++) {
    const from = out.length > 12 && rng.chance(0.9) ? 12 : 0;
    const at = from + rng.int(Math.max(1, out.length - from));
    switch (rng.int(5)) {
      case 0:
        out[at] = rng.int(256);
        break;
      case 1:
        out[at] = rng.pick([0x00, 0x7f, 0x80, 0xf0, 0xf4, 0xf7, 0xff]);
        break;
      case 2:
        out = out.slice(0, at);
        break;
      case 3: {
        const more = new Uint8Array(out.length + rng.size(64));
        more.set(out);
        more.set(rng.bytes(more.length - out.length), out.length);
        out = more;
        break;
      }
      default: { // the section header's LEN and flags
        if (out.length > 12) out[12] = rng.int(256);
      }
    }
  }
  return out;
}

function rtpHeader(ssrc: number, sequence: number): number[] {
  const s = ssrc >>> 0;
  return [0x80, 0x61, (sequence >> 8) & 0xff, sequence & 0xff, 0, 0, 0, 0, ...[
    s >>> 24,
    (s >>> 16) & 0xff,
    (s >>> 8) & 0xff,
    s & 0xff,
  ]];
}

/** A command list as RFC 6295 draws it but wrong: each case one way of being wrong. */
function badList(rng: Rng): { list: number[]; journal: boolean; z: boolean } {
  const data = () => rng.int(128);
  switch (rng.int(6)) {
    case 0: // running status with no status before it
      return { list: [data(), data(), 0, data(), data()], journal: false, z: false };
    case 1: // a delta time that never ends, or ends past 4 octets
      return {
        list: [0x90, 60, 100, 0x80, 0x80, 0x80, 0x80, 0x80, 0x01],
        journal: false,
        z: false,
      };
    case 2: // a segment continuing a system exclusive nobody began, or never closed
      return {
        list: rng.chance(0.5) ? [0xf7, data(), data(), 0xf7] : [0xf0, ...rng.bytes(8), 0x90],
        journal: false,
        z: rng.chance(0.5),
      };
    case 3: // a cancelled segment, a stray F4, system common with missing data
      return { list: [0xf0, data(), 0xf4, 0, 0xf2, data(), 0, 0xf1], journal: false, z: false };
    case 4: // data octets of 0x80 and up, a status with nothing after it
      return { list: [0xb0, 0x80, 0xff, 0, 0xc0], journal: false, z: false };
    default: // a journal flag with garbage after a good list
      return { list: [0x90, 36, 64], journal: true, z: false };
  }
}

/** A packet whose command section is built by hand, its `LEN` true or lying. */
export function handMadeSection(rng: Rng, ssrc: number, sequence: number): Uint8Array<ArrayBuffer> {
  const { list, journal, z } = badList(rng);
  const lying = rng.chance(0.4);
  const length = lying ? rng.pick([0, 1, list.length + 1, 15, 255, 4095]) : list.length;
  const flags = (journal ? 0x40 : 0) | (z ? 0x20 : 0);
  const header = length > 15 || rng.chance(0.2)
    ? [0x80 | flags | ((length >> 8) & 0x0f), length & 0xff]
    : [flags | length];
  const tail = journal ? [...rng.bytes(rng.size(40))] : [];
  return Uint8Array.from([...rtpHeader(ssrc, sequence), ...header, ...list, ...tail]);
}

/** A journal of a few channels' chapters P, C and N, well-formed. */
function randomJournal(rng: Rng): Uint8Array<ArrayBuffer> | null {
  const journal: Journal = { checkpoint: rng.int(65536), channels: [] };
  for (let i = rng.range(1, 3); i > 0; i--) {
    journal.channels.push({
      channel: rng.range(1, 16),
      program: rng.int(128),
      controllers: [{ controller: rng.int(120), value: rng.int(128) }],
      notes: {
        on: [{ note: rng.int(128), velocity: rng.range(1, 127), isPlayable: true }],
        off: [],
      },
    });
  }
  return encodeJournal(journal);
}

/** A packet whose journal lies: wrong channel counts, lengths past its end or under its header. */
export function badJournal(rng: Rng, ssrc: number, sequence: number): Uint8Array<ArrayBuffer> {
  const journal = [...(randomJournal(rng) ?? [0x20, 0, 0])];
  switch (rng.int(4)) {
    case 0: // TOTCHAN says more channels than there are
      journal[0] = (journal[0]! & 0xf0) | 0x0f;
      break;
    case 1: // the first channel's LEN past the end, or under its own header
      if (journal.length > 4) journal[4] = rng.pick([0, 1, 2, 0xff]);
      break;
    case 2: // a system journal (Y) with a length that lies
      journal.splice(0, 1, journal[0]! | 0x40);
      journal.splice(3, 0, 0x03, rng.pick([0, 1, 0xff]));
      break;
    default: // bytes flipped anywhere in it
      for (let i = 0; i < 3; i++) journal[rng.int(journal.length)] = rng.int(256);
  }
  return Uint8Array.from([...rtpHeader(ssrc, sequence), 0x43, 0x90, 36, 64, ...journal]);
}

/**
 * A system exclusive in `count` segments of ~960 octets: its first `F0 ... F0`, then
 * `F7 ... F0` continuations, the last `F7 ... F7` (unless `unclosed`): past 64 KiB it is dropped.
 */
export function sysexStream(
  rng: Rng,
  ssrc: number,
  firstSequence: number,
  count: number,
  unclosed: boolean,
): Uint8Array<ArrayBuffer>[] {
  const body = Array.from(rng.bytes(960), (b) => b & 0x7f);
  return Array.from({ length: count }, (_, i) => {
    const open = i === 0 ? 0xf0 : 0xf7;
    const close = i === count - 1 && !unclosed ? 0xf7 : 0xf0;
    const list = [open, ...body, close];
    const header = [0x80 | (list.length >> 8), list.length & 0xff];
    const sequence = (firstSequence + i) & 0xffff;
    return Uint8Array.from([...rtpHeader(ssrc, sequence), ...header, ...list]);
  });
}

/** An AppleMIDI control packet, right or wrong (version, length, name, count, command). */
export function controlPacket(rng: Rng, ssrc: number): Uint8Array<ArrayBuffer> {
  const command = rng.pick(["IN", "OK", "NO", "BY", "CK", "RS"] as const);
  const token = rng.int(0x100000000);
  let bytes: Uint8Array<ArrayBuffer>;
  if (command === "CK") {
    const t = () => BigInt(rng.int(0x100000000)) * BigInt(rng.int(0x100000000));
    bytes = encodeControl({ command, ssrc, count: rng.int(5), timestamps: [t(), t(), t()] });
  } else if (command === "RS") {
    bytes = encodeControl({ command, ssrc, sequence: rng.int(65536) });
  } else {
    const name = rng.chance(0.1) ? rng.string(rng.size(4000)) : `fuzz ${rng.string(8)}`;
    bytes = encodeControl({ command, token, ssrc, name });
  }
  if (rng.chance(0.2)) bytes[7] = rng.int(256); // the protocol version
  if (rng.chance(0.2)) bytes = bytes.slice(0, rng.int(bytes.length + 1)); // cut short
  if (rng.chance(0.1)) bytes = Uint8Array.from([...bytes, ...rng.bytes(rng.size(600))]);
  if (rng.chance(0.1) && bytes.length >= 4) bytes.set(rng.bytes(2), 2); // an unknown command
  return bytes;
}

/** Random bytes, sometimes starting like a control packet (`FF FF`) or an RTP one. */
export function randomDatagram(rng: Rng): Uint8Array<ArrayBuffer> {
  const bytes = rng.bytes(rng.size(rng.chance(0.02) ? 60_000 : 1500));
  const start = rng.int(3);
  if (start === 0 && bytes.length >= 2) bytes.set([0xff, 0xff]);
  if (start === 1 && bytes.length >= 2) bytes.set([0x80, 0x61]);
  return bytes;
}
