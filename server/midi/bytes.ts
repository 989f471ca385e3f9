/**
 * The MIDI 1.0 byte stream codec: `MidiMessage` objects to the bytes a DIN
 * cable (or an RTP-MIDI command, or a local port) carries, and back. Decoding
 * keeps running status, lets real-time bytes (F8-FF) interleave anywhere
 * (even inside a message or a system exclusive), and drops what no message
 * can be made of (stray data bytes, undefined status bytes, an unfinished
 * message), never throwing.
 * @module
 */
import { DATA14_MAX, DATA_MAX } from "../../protocol/midi.ts";
import type { ChannelMessage, MidiMessage, SystemMessage } from "./messages.ts";

const CHANNEL_KINDS = [
  "noteOff",
  "noteOn",
  "polyPressure",
  "controlChange",
  "programChange",
  "channelPressure",
  "pitchBend",
] as const;

/**
 * The number of data bytes that follow `status`: 0-2, or -1 for a system
 * exclusive (up to F7), or null for an undefined status (F4, F5, F9, FD) or a
 * byte that is no status.
 */
export function dataLength(status: number): number | null {
  if (status < 0x80 || status > 0xff) return null;
  if (status < 0xf0) {
    const kind = status >> 4;
    return kind === 0xc || kind === 0xd ? 1 : 2;
  }
  switch (status) {
    case 0xf0:
      return -1;
    case 0xf1:
    case 0xf3:
      return 1;
    case 0xf2:
      return 2;
    case 0xf6:
    case 0xf8:
    case 0xfa:
    case 0xfb:
    case 0xfc:
    case 0xfe:
    case 0xff:
      return 0;
    default:
      return null; // F4, F5, F7 alone, F9, FD: undefined or no message
  }
}

/** Whether `status` is a system real-time byte (it may appear inside another message). */
export function isRealtime(status: number): boolean {
  return status >= 0xf8 && dataLength(status) === 0;
}

/** The message a status byte and its data bytes make, or null (undefined status, short data). */
export function messageOf(status: number, data: ArrayLike<number>): MidiMessage | null {
  const a = data[0] ?? -1;
  const b = data[1] ?? -1;
  if (status >= 0x80 && status < 0xf0) {
    const channel = (status & 0x0f) + 1;
    const kind = CHANNEL_KINDS[(status >> 4) - 8]!;
    if (a < 0 || (dataLength(status) === 2 && b < 0)) return null;
    return channelMessage(kind, channel, a, b);
  }
  switch (status) {
    case 0xf1:
      return a < 0 ? null : { type: "quarterFrame", piece: a >> 4, value: a & 0x0f };
    case 0xf2:
      return a < 0 || b < 0 ? null : { type: "songPosition", beats: a | (b << 7) };
    case 0xf3:
      return a < 0 ? null : { type: "songSelect", song: a };
    default:
      return systemOf(status);
  }
}

function channelMessage(
  kind: (typeof CHANNEL_KINDS)[number],
  channel: number,
  a: number,
  b: number,
): ChannelMessage {
  switch (kind) {
    case "noteOn":
      return b === 0
        ? { type: "noteOff", channel, note: a, velocity: 0 }
        : { type: "noteOn", channel, note: a, velocity: b };
    case "noteOff":
      return { type: "noteOff", channel, note: a, velocity: b };
    case "polyPressure":
      return { type: "polyPressure", channel, note: a, pressure: b };
    case "controlChange":
      return { type: "controlChange", channel, controller: a, value: b };
    case "programChange":
      return { type: "programChange", channel, program: a };
    case "channelPressure":
      return { type: "channelPressure", channel, pressure: a };
    case "pitchBend":
      return { type: "pitchBend", channel, value: a | (b << 7) };
  }
}

const SYSTEM_BY_STATUS: Record<number, SystemMessage["type"]> = {
  0xf8: "clock",
  0xfa: "start",
  0xfb: "continue",
  0xfc: "stop",
  0xfe: "activeSensing",
  0xff: "reset",
};

function systemOf(status: number): MidiMessage | null {
  const type = SYSTEM_BY_STATUS[status];
  return type ? ({ type } as MidiMessage) : null; // F6 (tune request) is no MidiMessage
}

const STATUS_OF_SYSTEM: Record<string, number> = Object.fromEntries(
  Object.entries(SYSTEM_BY_STATUS).map(([status, type]) => [type, Number(status)]),
);

const d7 = (n: number) => Math.max(0, Math.min(DATA_MAX, Math.trunc(n)));
const d14 = (n: number) => Math.max(0, Math.min(DATA14_MAX, Math.trunc(n)));
const ch = (channel: number) => (Math.max(1, Math.min(16, Math.trunc(channel))) - 1) & 0x0f;

/** The bytes of one message, with its status byte (values out of range are clamped). */
export function encodeMessage(message: MidiMessage): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(messageBytes(message));
}

function messageBytes(m: MidiMessage): number[] {
  switch (m.type) {
    case "noteOff":
      return [0x80 | ch(m.channel), d7(m.note), d7(m.velocity)];
    case "noteOn":
      return [0x90 | ch(m.channel), d7(m.note), d7(m.velocity)];
    case "polyPressure":
      return [0xa0 | ch(m.channel), d7(m.note), d7(m.pressure)];
    case "controlChange":
      return [0xb0 | ch(m.channel), d7(m.controller), d7(m.value)];
    case "programChange":
      return [0xc0 | ch(m.channel), d7(m.program)];
    case "channelPressure":
      return [0xd0 | ch(m.channel), d7(m.pressure)];
    case "pitchBend":
      return [0xe0 | ch(m.channel), d14(m.value) & 0x7f, d14(m.value) >> 7];
    case "quarterFrame":
      return [0xf1, ((m.piece & 0x07) << 4) | (m.value & 0x0f)];
    case "songPosition":
      return [0xf2, d14(m.beats) & 0x7f, d14(m.beats) >> 7];
    case "songSelect":
      return [0xf3, d7(m.song)];
    case "sysex":
      return [0xf0, ...Array.from(m.data, (b) => b & 0x7f), 0xf7];
    default:
      return [STATUS_OF_SYSTEM[m.type]!];
  }
}

/** The bytes of `messages` back to back, each with its status byte. */
export function encodeMessages(messages: readonly MidiMessage[]): Uint8Array<ArrayBuffer> {
  return Uint8Array.from(messages.flatMap(messageBytes));
}

/** A decoder of a byte stream that may be cut anywhere: it keeps what is unfinished for the next bytes. */
export class MidiStreamDecoder {
  #status = 0;
  #data: number[] = [];
  #sysex: number[] | null = null;
  /** The longest system exclusive kept; a longer one is dropped. */
  readonly maxSysex: number;

  /** Builds a decoder keeping at most `maxSysex` bytes of a system exclusive (default 64 KiB). */
  constructor(maxSysex = 65536) {
    this.maxSysex = maxSysex;
  }

  /** The messages `bytes` completes, in order. */
  push(bytes: ArrayLike<number>): MidiMessage[] {
    const out: MidiMessage[] = [];
    for (let i = 0; i < bytes.length; i++) this.#byte(bytes[i]! & 0xff, out);
    return out;
  }

  #byte(byte: number, out: MidiMessage[]): void {
    if (byte >= 0xf8) {
      const message = systemOf(byte);
      if (message) out.push(message);
      return;
    }
    if (byte === 0xf7 && this.#sysex) {
      if (this.#sysex.length <= this.maxSysex) {
        out.push({ type: "sysex", data: Uint8Array.from(this.#sysex) });
      }
      this.#sysex = null;
      return;
    }
    if (byte >= 0x80) return this.#statusByte(byte, out);
    if (this.#sysex) {
      if (this.#sysex.length <= this.maxSysex) this.#sysex.push(byte);
      return;
    }
    if (this.#status === 0) return; // a stray data byte
    this.#data.push(byte);
    if (this.#data.length === dataLength(this.#status)) {
      const message = messageOf(this.#status, this.#data);
      if (message) out.push(message);
      this.#data = [];
      // System common messages cancel running status.
      if (this.#status >= 0xf0) this.#status = 0;
    }
  }

  #statusByte(byte: number, out: MidiMessage[]): void {
    this.#sysex = null;
    this.#data = [];
    const length = dataLength(byte);
    if (byte === 0xf0) {
      this.#status = 0;
      this.#sysex = [];
    } else if (length === 0) {
      this.#status = 0;
      const message = messageOf(byte, []);
      if (message) out.push(message);
    } else {
      this.#status = length === null ? 0 : byte;
    }
  }
}

/** The messages of a whole byte stream (what is unfinished at its end is dropped). */
export function decodeMessages(bytes: ArrayLike<number>): MidiMessage[] {
  return new MidiStreamDecoder().push(bytes);
}
