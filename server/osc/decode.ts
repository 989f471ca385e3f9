/**
 * Decoding a datagram. `osc-min` decodes everything; a plain message (an
 * ASCII address, and int, float, double, 64-bit int, ASCII string, `T`, `F`,
 * `N`, `I` arguments: what desks send) is first read by a direct pass over
 * the bytes, which gives the same result as `osc-min` without its
 * per-string `TextDecoder` and `DataView`s. At 20,000 datagrams a second
 * that was a fifth of the OSC server's time (docs/osc.md). Anything else,
 * or anything the pass doubts (bad padding, a short buffer, a bundle),
 * goes to `osc-min`, whose result or error is the answer.
 * @module
 */
import * as osc from "osc-min";

/**
 * One datagram as an OSC packet.
 * @throws {Error} osc-min's error for a malformed packet
 */
export function decodePacket(data: Uint8Array): osc.OscPacketOutput {
  return decodePlainMessage(data) ?? osc.fromBuffer(data);
}

/** The message, or null when the direct pass does not apply. */
export function decodePlainMessage(data: Uint8Array): osc.OscMessageOutput | null {
  if (data[0] !== 0x2f) return null; // "/": a bundle, or an error osc-min words
  const address = readString(data, 0);
  if (address === null) return null;
  let at = padded(address.length);
  if (at >= data.length) return { address, args: [], oscType: "message" };
  const tags = readString(data, at);
  if (tags === null || tags.charCodeAt(0) !== 0x2c) return null; // ","
  at += padded(tags.length);
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const args: osc.OscArgOutput[] = [];
  for (let t = 1; t < tags.length; t++) {
    const tag = tags.charCodeAt(t);
    if (tag === 0x66 || tag === 0x69) { // f i
      if (at + 4 > data.length) return null;
      args.push(
        tag === 0x66
          ? { type: "float", value: view.getFloat32(at, false) }
          : { type: "integer", value: view.getInt32(at, false) },
      );
      at += 4;
    } else if (tag === 0x64 || tag === 0x68) { // d h
      if (at + 8 > data.length) return null;
      args.push(
        tag === 0x64
          ? { type: "double", value: view.getFloat64(at, false) }
          : { type: "bigint", value: view.getBigInt64(at, false) },
      );
      at += 8;
    } else if (tag === 0x73) { // s
      const value = readString(data, at);
      if (value === null) return null;
      args.push({ type: "string", value });
      at += padded(value.length);
    } else if (tag === 0x54) args.push({ type: "true", value: true });
    else if (tag === 0x46) args.push({ type: "false", value: false });
    else if (tag === 0x4e) args.push({ type: "null", value: null });
    else if (tag === 0x49) args.push({ type: "bang", value: "bang" });
    else return null;
  }
  return { address, args, oscType: "message" };
}

/** Longer strings go to osc-min (one `fromCharCode` call takes them all as arguments). */
const MAX_STRING = 1024;

/** Bytes an OSC string of this length takes: its NUL, padded to 4. */
function padded(length: number): number {
  return (length + 4) & ~3;
}

/** An ASCII OSC string at `start` with zero padding inside the data, else null. */
function readString(data: Uint8Array, start: number): string | null {
  let end = start;
  const limit = Math.min(data.length, start + MAX_STRING);
  while (end < limit && data[end] !== 0) {
    if (data[end]! > 0x7f) return null;
    end++;
  }
  if (end === limit && limit < data.length) return null;
  const stop = start + padded(end - start);
  if (stop > data.length) return null;
  for (let i = end; i < stop; i++) if (data[i] !== 0) return null;
  return String.fromCharCode.apply(null, data.subarray(start, end) as unknown as number[]);
}
