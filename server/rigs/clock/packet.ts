/**
 * The clock exchange's datagram: 40 bytes, the same size asked and answered, so an answer is
 * never bigger than what asked for it (no amplification for a forged source address).
 *
 * | Bytes | Field                                                                         |
 * | ----- | ----------------------------------------------------------------------------- |
 * | 0-3   | `CPCK` (magic)                                                                |
 * | 4     | version, 1                                                                    |
 * | 5     | kind: 1 a request, 2 an answer                                                |
 * | 6-7   | 0                                                                             |
 * | 8-11  | the request's id, echoed (uint32)                                             |
 * | 12-15 | the answerer's own error, ms (float32; 0 in a request)                        |
 * | 16-23 | T1: the requester's clock when it sent (float64 ms), echoed                   |
 * | 24-31 | T2: the answerer's show time when the request arrived (0 in a request)        |
 * | 32-39 | T3: the answerer's show time when it sent the answer (0 in a request)         |
 *
 * Numbers are big-endian, as NTP's.
 * @module
 */

/** The size of every datagram of the exchange, bytes. */
export const PACKET_BYTES = 40;
const MAGIC = [0x43, 0x50, 0x43, 0x4b]; // "CPCK"
const VERSION = 1;

/** A request: its id and when it left (the requester's clock, ms). */
export interface ClockRequest {
  readonly kind: "request";
  readonly id: number;
  readonly t1: number;
}

/** An answer: the request's id and T1 echoed, T2 and T3 on the answerer's show time. */
export interface ClockAnswer {
  readonly kind: "answer";
  readonly id: number;
  readonly t1: number;
  readonly t2: number;
  readonly t3: number;
  /** The answerer's own error against the group's reference, ms (0 for the leader). */
  readonly error: number;
}

/** Encodes a request or an answer into its 40 bytes. */
export function encodePacket(packet: ClockRequest | ClockAnswer): Uint8Array<ArrayBuffer> {
  const bytes = new Uint8Array(PACKET_BYTES);
  bytes.set(MAGIC, 0);
  bytes[4] = VERSION;
  bytes[5] = packet.kind === "request" ? 1 : 2;
  const view = new DataView(bytes.buffer);
  view.setUint32(8, packet.id >>> 0);
  view.setFloat64(16, packet.t1);
  if (packet.kind === "answer") {
    view.setFloat32(12, packet.error);
    view.setFloat64(24, packet.t2);
    view.setFloat64(32, packet.t3);
  }
  return bytes;
}

/** Decodes a datagram; null for anything but a well-formed packet of this version. */
export function decodePacket(bytes: Uint8Array): ClockRequest | ClockAnswer | null {
  if (bytes.length !== PACKET_BYTES) return null;
  if (MAGIC.some((b, i) => bytes[i] !== b) || bytes[4] !== VERSION) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const id = view.getUint32(8);
  const t1 = view.getFloat64(16);
  if (!Number.isFinite(t1)) return null;
  if (bytes[5] === 1) return { kind: "request", id, t1 };
  if (bytes[5] !== 2) return null;
  const [t2, t3, error] = [view.getFloat64(24), view.getFloat64(32), view.getFloat32(12)];
  if (![t2, t3, error].every(Number.isFinite) || error < 0 || t3 < t2) return null;
  return { kind: "answer", id, t1, t2, t3, error };
}
