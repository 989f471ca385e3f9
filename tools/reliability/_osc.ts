/**
 * OSC 1.0 encoding (messages and bundles) and fuzzed datagrams built from it.
 * @module
 */
import { interestingValue } from "./_mutate.ts";
import type { Rng } from "./_prng.ts";

const encoder = new TextEncoder();

/** One OSC argument. */
export type OscArg =
  | { type: "i"; value: number }
  | { type: "f"; value: number }
  | { type: "s"; value: string }
  | { type: "b"; value: Uint8Array }
  | { type: "T" | "F" | "N" };

function oscString(text: string): Uint8Array {
  const bytes = encoder.encode(text);
  const out = new Uint8Array((Math.floor(bytes.length / 4) + 1) * 4); // NUL and padding
  out.set(bytes);
  return out;
}

function int32(n: number): Uint8Array {
  const out = new Uint8Array(4);
  new DataView(out.buffer).setInt32(0, n);
  return out;
}

function concat(parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** An OSC message. */
export function oscMessage(address: string, args: readonly OscArg[]): Uint8Array<ArrayBuffer> {
  const parts = [oscString(address), oscString("," + args.map((a) => a.type).join(""))];
  for (const arg of args) {
    if (arg.type === "i") parts.push(int32(arg.value));
    else if (arg.type === "f") {
      const f = new Uint8Array(4);
      new DataView(f.buffer).setFloat32(0, arg.value);
      parts.push(f);
    } else if (arg.type === "s") parts.push(oscString(arg.value));
    else if (arg.type === "b") {
      const padded = new Uint8Array(Math.ceil(arg.value.length / 4) * 4);
      padded.set(arg.value);
      parts.push(int32(arg.value.length), padded);
    }
  }
  return concat(parts);
}

/** An OSC bundle of elements (messages or bundles), timetag "immediately". */
export function oscBundle(elements: readonly Uint8Array[]): Uint8Array<ArrayBuffer> {
  const parts = [oscString("#bundle"), new Uint8Array([0, 0, 0, 0, 0, 0, 0, 1])];
  for (const e of elements) parts.push(int32(e.length), e);
  return concat(parts);
}

const ADDRESSES = [
  "/cueport/action/PLAY_IN",
  "/cueport/action/SET_CONTROL",
  "/action/TRIGGER_CLIP_IN",
  "/control/A",
  "/ping",
  "/*",
  "/[a-",
  "/{a,b",
  "//",
  "/",
  "",
  "noslash",
];

function randomArg(rng: Rng): OscArg {
  switch (rng.int(6)) {
    case 0:
      return { type: "i", value: rng.pick([0, 1, -1, 2 ** 31 - 1, -(2 ** 31), rng.int(128)]) };
    case 1:
      return { type: "f", value: rng.pick([0, 0.5, 1, NaN, Infinity, -Infinity, 1e38]) };
    case 2:
      return { type: "s", value: String(interestingValue(rng)).slice(0, 2000) };
    case 3:
      return { type: "b", value: rng.bytes(rng.size(2000)) };
    default:
      return { type: rng.pick(["T", "F", "N"] as const) };
  }
}

/** A fuzzed datagram: random bytes, a mutated message, a broken bundle. */
export function fuzzDatagram(rng: Rng): Uint8Array<ArrayBuffer> {
  const r = rng.next();
  if (r < 0.2) return rng.bytes(rng.size(8192));
  const address = rng.chance(0.9) ? rng.pick(ADDRESSES) : "/" + "a".repeat(rng.range(100, 8000));
  const message = oscMessage(address, Array.from({ length: rng.int(6) }, () => randomArg(rng)));
  if (r < 0.5) return message;
  if (r < 0.7) {
    // Flip, cut or lie: a wrong type tag, a truncated tail, a blob size past the end.
    const out = message.slice(0, rng.range(1, message.length));
    if (rng.chance(0.5) && out.length > 8) {
      out[rng.int(out.length)] = rng.pick([0x2c, 0x62, 0x73, 0x69, 0xff]);
    }
    return out;
  }
  if (r < 0.8) {
    return concat([
      oscString(address),
      oscString(",b"),
      int32(rng.pick([-1, 2 ** 31 - 1, 65_536])),
    ]);
  }
  let bundle = oscBundle([message]);
  for (let depth = rng.range(1, 200); depth > 0; depth--) bundle = oscBundle([bundle]);
  if (r < 0.9) return bundle.length > 65_000 ? bundle.slice(0, 65_000) : bundle;
  const lie = bundle.slice(0, Math.min(bundle.length, 1000));
  new DataView(lie.buffer).setInt32(16, rng.pick([-1, 2 ** 31 - 1, 0]));
  return lie;
}
