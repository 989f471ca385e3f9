/**
 * Mutations of valid inputs: structural (a value of another type or size, a
 * key removed or added, deep nesting) and textual (truncation, invalid
 * UTF-8, numbers JSON cannot hold). Inputs that could reach outside the temp
 * data dir (`file.import` takes a path and may move the file) are never made.
 * @module
 */
import type { Rng } from "./_prng.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

const encoder = new TextEncoder();

/** Strings that have broken parsers and validators before. */
const STRINGS = [
  "",
  " ",
  "A",
  "a",
  "0",
  "-1",
  "null",
  "true",
  "__proto__",
  "constructor",
  "prototype",
  "toString",
  "hasOwnProperty",
  "../../../../etc/passwd",
  "..",
  "%s%s%n",
  "%00",
  "\u0000",
  "\ud800",
  "\udfff\ud800",
  "\u202e",
  "\u{1f600}\u{1f600}",
  "\r\n",
  "<script>",
  "clip:clip-aurora/opacity",
  "clip:x/",
  "song-opening",
  "clip-aurora",
  "demo",
  "effect-blur",
  "viz-bars",
  "fx-blur",
  "PLAY_IN",
  "song.add",
  "project.undo",
];

/** Numbers at the edges: ranges, integers, floats, signs. */
const NUMBERS = [
  0,
  -0,
  1,
  -1,
  0.5,
  1.5,
  127,
  128,
  -129,
  255,
  65535,
  2 ** 31,
  2 ** 32,
  2 ** 53 + 2,
  -(2 ** 53) - 2,
  1e21,
  1e308,
  -1e308,
  5e-324,
  Number.MAX_VALUE,
  86401,
];

/** Number texts JSON.parse turns into Infinity or rounds, and ones it refuses. */
const NUMBER_TEXTS = [
  "1e999",
  "-1e999",
  "123456789012345678901234567890",
  "0.0000000000000000000000000000001",
  "NaN",
  "Infinity",
  "-",
  "0x10",
  "01",
  "1.",
  ".5",
  "+1",
  "1e",
];

/** An interesting value of any type. */
export function interestingValue(rng: Rng): Json {
  switch (rng.int(9)) {
    case 0:
      return null;
    case 1:
      return rng.chance(0.5);
    case 2:
    case 3:
      return rng.pick(NUMBERS);
    case 4:
    case 5:
      return rng.pick(STRINGS);
    case 6:
      return rng.string(rng.size(100_000), "abcXYZ 0189-_\u00e9\u4e2d");
    case 7:
      return rng.chance(0.5) ? [] : {};
    default:
      return nested(rng.range(2, 200), rng);
  }
}

/** Arrays or objects nested `depth` deep. */
export function nested(depth: number, rng: Rng): Json {
  let value: Json = rng.chance(0.5) ? 1 : "x";
  for (let i = 0; i < depth; i++) value = rng.chance(0.5) ? [value] : { a: value };
  return value;
}

/** A wide value: many keys or many items. */
function wide(rng: Rng): Json {
  const n = rng.range(100, 20_000);
  if (rng.chance(0.5)) return Array.from({ length: n }, (_, i) => i);
  return Object.fromEntries(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
}

/** Paths to every node of a JSON value (objects and arrays only hold children). */
function nodes(value: Json, path: (string | number)[] = [], out: (string | number)[][] = []) {
  out.push(path);
  if (out.length > 200) return out;
  if (Array.isArray(value)) value.forEach((v, i) => nodes(v, [...path, i], out));
  else if (value && typeof value === "object") {
    for (const k of Object.keys(value)) nodes(value[k], [...path, k], out);
  }
  return out;
}

/** Sets an own property, even one named `__proto__`, so it reaches the JSON text. */
function put(target: Json, key: string | number, value: Json): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}

function setAt(root: Json, path: (string | number)[], value: Json): Json {
  if (path.length === 0) return value;
  let parent = root;
  for (const key of path.slice(0, -1)) parent = parent[key];
  put(parent, path[path.length - 1]!, value);
  return root;
}

/** One to three structural mutations of a copy of `value`. */
export function mutateValue(value: Json, rng: Rng): Json {
  let root = structuredClone(value);
  for (let n = rng.range(1, 3); n > 0; n--) {
    const all = nodes(root);
    const path = rng.pick(all);
    let node = root;
    for (const key of path) node = node[key];
    const op = rng.int(10);
    if (op <= 3) root = setAt(root, path, interestingValue(rng));
    else if (op === 4 && node && typeof node === "object" && !Array.isArray(node)) {
      const keys = Object.keys(node);
      if (keys.length > 0) delete node[rng.pick(keys)];
    } else if (op === 5 && node && typeof node === "object") {
      if (Array.isArray(node)) node.push(interestingValue(rng));
      else put(node, rng.pick([...STRINGS, rng.string(8)]), interestingValue(rng));
    } else if (op === 6) root = setAt(root, path, [node]);
    else if (op === 7) {
      root = setAt(
        root,
        path,
        typeof node === "string" ? Number(node) : JSON.stringify(node) ?? "",
      );
    } else if (op === 8) root = setAt(root, path, wide(rng));
    else root = setAt(root, path, nested(rng.range(100, 5000), rng));
  }
  return root;
}

/** Invalid UTF-8 sequences: stray continuation, overlong, surrogate, past U+10FFFF, truncated. */
const BAD_UTF8 = [[0xff], [0xfe, 0xff], [0x80], [0xc0, 0x80], [0xed, 0xa0, 0x80], [
  0xf4,
  0x90,
  0x80,
  0x80,
], [
  0xe2,
  0x82,
]];

/** Text-level mutations of a JSON text; the result may be any bytes. */
export function mutateText(text: string, rng: Rng): Uint8Array<ArrayBuffer> {
  const bytes = encoder.encode(text);
  const at = rng.int(bytes.length + 1);
  switch (rng.int(8)) {
    case 0:
      return bytes.slice(0, at); // truncated
    case 1:
      return join(bytes.slice(0, at), new Uint8Array(rng.pick(BAD_UTF8)), bytes.slice(at));
    case 2: {
      const number = /-?\d+(\.\d+)?/.exec(text);
      return number
        ? encoder.encode(text.replace(number[0], rng.pick(NUMBER_TEXTS)))
        : encoder.encode(`${text}${rng.pick(NUMBER_TEXTS)}`);
    }
    case 3:
      return join(bytes.slice(0, at), rng.bytes(rng.range(1, 64)), bytes.slice(at));
    case 4: {
      const depth = rng.pick([1000, 10_000, 100_000, 400_000]);
      const open = rng.chance(0.5) ? "[" : '{"a":';
      const close = open === "[" ? "]" : "}";
      return encoder.encode(`{"name":${open.repeat(depth)}1${close.repeat(depth)}}`);
    }
    case 5:
      return encoder.encode(`\ufeff${text}`); // a byte-order mark
    case 6: {
      const key = /"([A-Za-z]+)":/.exec(text);
      return encoder.encode(
        key ? `${text.slice(0, -1)},"${key[1]}":${rng.pick(NUMBER_TEXTS)}}` : text,
      );
    }
    default:
      return encoder.encode(
        text.replace(/[{}[\]:,"]/, rng.pick(["", "}", "]", '"', "\\", "\u0000"])),
      );
  }
}

function join(...parts: Uint8Array[]): Uint8Array<ArrayBuffer> {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Whether an input is safe to send: nothing that names a path on this machine to import. */
export function isSafeInput(data: string | Uint8Array): boolean {
  const text = typeof data === "string" ? data : new TextDecoder().decode(data);
  return !/file\.import|file%2eimport/i.test(text);
}
