/**
 * Encoding a message. `osc-min` encodes everything; a plain message (an
 * address and string, `float` and `integer` arguments: every reply and
 * feedback value the service sends) is first written by a direct pass,
 * into one buffer of the right size, which gives the same bytes as
 * `osc-min` without its buffer per part and their concatenation. A
 * `/control/*` stream sends a value to every LISTEN client and subscriber
 * per update: osc-min's parts were a tenth of the service's garbage
 * (issue 30). Anything else (other types, a string with a NUL, which
 * osc-min refuses) goes to `osc-min`, whose result or error is the answer.
 * @module
 */
import type * as osc from "osc-min";

const encoder = new TextEncoder();

/** Bytes of an OSC string of `length` UTF-8 bytes: its NUL, padded to 4. */
function padded(length: number): number {
  return (length + 4) & ~3;
}

/** The message, or null when the direct pass does not apply. */
export function encodePlainMessage(
  address: string,
  args: readonly osc.OscArgOrArrayInput[],
): Uint8Array<ArrayBuffer> | null {
  if (address.includes("\0")) return null;
  const addressBytes = encoder.encode(address);
  let size = padded(addressBytes.length) + padded(1 + args.length);
  let texts: Uint8Array[] | null = null;
  for (const arg of args) {
    const text = typeof arg === "string"
      ? arg
      : typeof arg === "object" && arg !== null && "type" in arg && arg.type === "string"
      ? (arg as { value: unknown }).value
      : null;
    if (text !== null) {
      if (typeof text !== "string" || text.includes("\0")) return null;
      const bytes = encoder.encode(text);
      (texts ??= []).push(bytes);
      size += padded(bytes.length);
    } else if (isNumber(arg, "float") || isNumber(arg, "integer")) size += 4;
    else return null;
  }
  const out = new Uint8Array(size);
  const view = new DataView(out.buffer);
  out.set(addressBytes);
  let at = padded(addressBytes.length);
  let tag = at;
  out[tag++] = 0x2c; // ","
  at += padded(1 + args.length);
  let t = 0;
  for (const arg of args) {
    if (isNumber(arg, "float")) {
      out[tag++] = 0x66; // f
      view.setFloat32(at, arg.value, false);
      at += 4;
    } else if (isNumber(arg, "integer")) {
      out[tag++] = 0x69; // i
      view.setInt32(at, arg.value, false);
      at += 4;
    } else {
      out[tag++] = 0x73; // s
      const bytes = texts![t++]!;
      out.set(bytes, at);
      at += padded(bytes.length);
    }
  }
  return out;
}

function isNumber(
  arg: osc.OscArgOrArrayInput,
  type: "float" | "integer",
): arg is { type: typeof type; value: number } {
  return typeof arg === "object" && arg !== null && "type" in arg && arg.type === type &&
    typeof (arg as { value: unknown }).value === "number";
}
