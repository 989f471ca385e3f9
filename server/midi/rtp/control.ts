/**
 * Apple's session protocol ("AppleMIDI") on the wire: the control packets a
 * session participant exchanges on its control and data ports, each starting
 * with `FF FF` and a two-letter command. `IN` invites, `OK` accepts, `NO`
 * refuses, `BY` ends; `CK` synchronizes clocks (three packets, counts 0-2,
 * 64-bit timestamps in 100 us units); `RS` is receiver feedback (the last
 * sequence number received, so the sender may trim its journal).
 * @module
 */

/** The protocol version every packet of the invitation family carries. */
export const PROTOCOL_VERSION = 2;

/** An invitation-family packet: `IN`, `OK`, `NO` or `BY`. */
export interface InvitationPacket {
  command: "IN" | "OK" | "NO" | "BY";
  token: number;
  ssrc: number;
  /** The session name (empty when the packet carried none). */
  name: string;
}

/** A clock synchronization packet (`CK`): `count` 0, 1 or 2, timestamps in 100 us units. */
export interface ClockPacket {
  command: "CK";
  ssrc: number;
  count: number;
  timestamps: [bigint, bigint, bigint];
}

/** Receiver feedback (`RS`): the sender of this packet has received up to `sequence`. */
export interface FeedbackPacket {
  command: "RS";
  ssrc: number;
  sequence: number;
}

/** Any control packet this implementation reads. */
export type ControlPacket = InvitationPacket | ClockPacket | FeedbackPacket;

const CODES: Record<string, number> = {
  IN: 0x494e,
  OK: 0x4f4b,
  NO: 0x4e4f,
  BY: 0x4259,
  CK: 0x434b,
  RS: 0x5253,
};
const COMMANDS = new Map(Object.entries(CODES).map(([name, code]) => [code, name]));

/** Whether `data` starts like a control packet (`FF FF`), as opposed to an RTP packet. */
export function isControlPacket(data: Uint8Array): boolean {
  return data.length >= 4 && data[0] === 0xff && data[1] === 0xff;
}

/** The packet `data` holds, or null when it is malformed or a command this side ignores (`RL`). */
export function decodeControl(data: Uint8Array): ControlPacket | null {
  if (!isControlPacket(data)) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const command = COMMANDS.get(view.getUint16(2));
  if (command === "CK") {
    if (data.length < 36) return null;
    return {
      command,
      ssrc: view.getUint32(4),
      count: data[8]!,
      timestamps: [view.getBigUint64(12), view.getBigUint64(20), view.getBigUint64(28)],
    };
  }
  if (command === "RS") {
    if (data.length < 10) return null;
    return { command, ssrc: view.getUint32(4), sequence: view.getUint16(8) };
  }
  if (command === undefined || data.length < 16) return null;
  if (view.getUint32(4) !== PROTOCOL_VERSION) return null;
  let end = 16;
  while (end < data.length && data[end] !== 0) end++;
  const name = new TextDecoder("utf-8", { fatal: false }).decode(data.subarray(16, end));
  return {
    command: command as InvitationPacket["command"],
    token: view.getUint32(8),
    ssrc: view.getUint32(12),
    name: name.slice(0, 256),
  };
}

/** The bytes of a control packet. */
export function encodeControl(packet: ControlPacket): Uint8Array<ArrayBuffer> {
  if (packet.command === "CK") {
    const out = new Uint8Array(36);
    const view = new DataView(out.buffer);
    view.setUint32(0, 0xffff0000 | CODES.CK!);
    view.setUint32(4, packet.ssrc >>> 0);
    out[8] = packet.count;
    packet.timestamps.forEach((t, i) => view.setBigUint64(12 + 8 * i, BigInt.asUintN(64, t)));
    return out;
  }
  if (packet.command === "RS") {
    const out = new Uint8Array(12);
    const view = new DataView(out.buffer);
    view.setUint32(0, 0xffff0000 | CODES.RS!);
    view.setUint32(4, packet.ssrc >>> 0);
    view.setUint16(8, packet.sequence & 0xffff);
    return out;
  }
  const name = new TextEncoder().encode(packet.name);
  const out = new Uint8Array(16 + name.length + (packet.command === "BY" ? 0 : 1));
  const view = new DataView(out.buffer);
  view.setUint32(0, 0xffff0000 | CODES[packet.command]!);
  view.setUint32(4, PROTOCOL_VERSION);
  view.setUint32(8, packet.token >>> 0);
  view.setUint32(12, packet.ssrc >>> 0);
  out.set(name, 16);
  return out;
}
