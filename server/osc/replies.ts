/**
 * The replies of the OSC port: `/reply<address>` with one string argument,
 * the JSON `{"address", "status": "ok" | "error", "data"}` (QLab's shape);
 * an error's `data` is `{code, message, details?}` with the service's codes.
 * The one place where an error becomes an OSC answer: a reply, `/error` for
 * a packet that could not be read, and the short refusal of a sender that
 * may not send; each takes its body from the core's `errorBody`.
 * @module
 */
import * as osc from "osc-min";
import { asCueportError, CueportError, errorBody } from "../core/mod.ts";
import { encodePlainMessage } from "./encode.ts";

/** The largest reply sent; a bigger answer becomes PAYLOAD_TOO_LARGE (ask over HTTP). */
export const MAX_REPLY_BYTES = 60_000;

/** A reply's JSON. */
export interface ReplyBody {
  address: string;
  status: "ok" | "error";
  data: unknown;
}

function bytesOf(view: DataView): Uint8Array<ArrayBuffer> {
  return new Uint8Array(view.buffer as ArrayBuffer, view.byteOffset, view.byteLength);
}

/**
 * Encodes one OSC message (the direct pass of `encode.ts`, else `osc-min`).
 * @throws {Error} osc-min's error for what OSC cannot carry (a string with a NUL)
 */
export function encodeMessage(
  address: string,
  args: osc.OscArgOrArrayInput[],
): Uint8Array<ArrayBuffer> {
  return encodePlainMessage(address, args) ?? bytesOf(osc.toBuffer({ address, args }));
}

/** The reply to `address` (the address as the sender wrote it) with an answer or an error. */
export function encodeReply(
  address: string,
  outcome: { data: unknown } | { error: unknown },
): Uint8Array<ArrayBuffer> {
  const body: ReplyBody = "error" in outcome
    ? { address, status: "error", data: errorBody(outcome.error) }
    : { address, status: "ok", data: outcome.data };
  const bytes = encodeMessage(`/reply${address}`, [JSON.stringify(body)]);
  if (bytes.length <= MAX_REPLY_BYTES) return bytes;
  return encodeMessage(`/reply${address}`, [
    JSON.stringify({
      address,
      status: "error",
      data: errorBody(
        new CueportError(
          "PAYLOAD_TOO_LARGE",
          `The answer is ${bytes.length} bytes, more than one datagram carries (${MAX_REPLY_BYTES}): ask over HTTP`,
        ),
      ),
    }),
  ]);
}

/**
 * The fewest bytes `encodeReply(address, outcome)` can be, known without
 * encoding: the address twice (a UTF-8 string has at least a byte per UTF-16
 * unit) and the body's fixed keys, with no `data`. What an address over its
 * send budget is checked against first, so a flood of answers to it does not
 * pay for their JSON.
 */
export function replyLeastBytes(
  address: string,
  outcome: { data: unknown } | { error: unknown },
): number {
  const status = "error" in outcome ? "error" : "ok";
  // `/reply<address>`, `,s`, then `{"address":"<address>","status":"<status>"}`.
  const body = `{"address":"","status":"${status}"}`.length + address.length;
  return padded(6 + address.length) + 4 + padded(body);
}

/** Bytes of an OSC string of `length` bytes: its NUL, padded to 4. */
function padded(length: number): number {
  return (length + 4) & ~3;
}

/**
 * The refusal of a sender that may not send, or null when even the shortest
 * form would be bigger than the datagram that caused it (no amplification).
 */
export function encodeRefusal(
  address: string,
  error: unknown,
  maxBytes: number,
): Uint8Array<ArrayBuffer> | null {
  const full = encodeReply(address.slice(0, 200), { error });
  if (full.length <= maxBytes) return full;
  const short = encodeMessage("/error", [asCueportError(error).code]);
  return short.length <= maxBytes ? short : null;
}

/**
 * `/error` with `{"address": null, "status": "error", "data"}`: the answer to
 * a datagram that is no OSC packet (it has no address to reply to).
 */
export function encodeError(error: unknown): Uint8Array<ArrayBuffer> {
  const data = errorBody(error);
  return encodeMessage("/error", [JSON.stringify({ address: null, status: "error", data })]);
}
