/**
 * imagescript's JPEG and PNG decoders (WASM), driven here rather than
 * through its `wasm/node/*.js` glue, which copies every decoded picture out
 * of the decoder's memory (25 MB for a 4K JPEG) before we turn it into RGBA:
 * here the samples are read where the decoder left them, once. One instance
 * of each per worker, as its glue has; its memory grows to fit the largest
 * picture and goes with the worker (the pool replaces a worker after a large
 * picture, `pool.ts`).
 * @module
 */
import { createRequire } from "node:module";
// The glue itself is not used, but imported: its package, with the .wasm files read here, is
// then in the module graph, so fetched with the rest and carried by the compiled binary.
import "imagescript/wasm/node/jpeg.js";
import "imagescript/wasm/node/png.js";

/** Decoded samples, a view of the decoder's memory valid until its next decode. */
export interface Samples {
  width: number;
  height: number;
  /** Grey (1 byte a pixel), RGB (3) or CMYK (4) for a JPEG; RGBA for a PNG. */
  samples: Uint8Array;
}

interface Common {
  memory: WebAssembly.Memory;
  walloc(size: number): number;
}
interface JpegExports extends Common {
  wfree(ptr: number, size: number): void;
  wlen(): number;
  decode(ptr: number, length: number, width: number, height: number): number;
  decode_width(frame: number): number;
  decode_height(frame: number): number;
  decode_buffer(frame: number): number;
  decode_free(frame: number): void;
}
interface PngExports extends Common {
  wfree(ptr: number): void;
  decode(ptr: number, length: number): number;
  width(): number;
  height(): number;
}

let jpeg: Promise<JpegExports> | null = null;
let png: Promise<PngExports> | null = null;

/**
 * The bytes of one of the package's .wasm files (the flavour its glue picks): where the import
 * map resolves it, else where Node's resolution finds it (as the glue's own `__dirname` does,
 * the way a compiled binary's embedded packages are read).
 */
async function wasmBytes(name: "jpeg" | "png"): Promise<Uint8Array<ArrayBuffer>> {
  const flavour = Deno.env.get("IMAGESCRIPT_WASM_SIMD") ? "simd" : "any";
  const file = `imagescript/wasm/${flavour}/${name}.wasm`;
  try {
    return await Deno.readFile(new URL(import.meta.resolve(file)));
  } catch {
    return await Deno.readFile(createRequire(import.meta.url).resolve(file));
  }
}

async function instantiate<T>(name: "jpeg" | "png"): Promise<T> {
  const module = await WebAssembly.compile(await wasmBytes(name));
  const imports = { env: { emscripten_notify_memory_growth() {} } };
  return new WebAssembly.Instance(module, name === "png" ? imports : {}).exports as T;
}

/** Compiles both decoders (a worker does it as it starts). */
export async function compileDecoders(): Promise<void> {
  jpeg ??= instantiate("jpeg");
  png ??= instantiate("png");
  await Promise.all([jpeg, png]);
}

function copyIn(wasm: Common, bytes: Uint8Array): number {
  const ptr = wasm.walloc(bytes.length);
  new Uint8Array(wasm.memory.buffer, ptr, bytes.length).set(bytes);
  return ptr;
}

/**
 * Decodes a JPEG, scaled while decoding to the smallest 1/1..1/8 scale whose
 * sides are at least `minSide` (0: full size; a JPEG that cannot be scaled is
 * decoded at full size), and gives its samples to `take`.
 * @throws {Error} when imagescript cannot decode it
 */
export async function decodeJpeg<T>(
  bytes: Uint8Array,
  minSide: number,
  take: (samples: Samples) => T,
): Promise<T> {
  const wasm = await (jpeg ??= instantiate("jpeg"));
  // `decode` takes the input's buffer as its own (imagescript's glue never frees it).
  let frame = wasm.decode(copyIn(wasm, bytes), bytes.length, minSide, minSide);
  if (frame === 1 && minSide > 0) frame = wasm.decode(copyIn(wasm, bytes), bytes.length, 0, 0);
  if (frame === 0) throw new Error("jpg: failed to decode");
  if (frame === 1) throw new Error("jpg: failed to scale decoder");
  try {
    const width = wasm.decode_width(frame);
    const height = wasm.decode_height(frame);
    const samples = new Uint8Array(wasm.memory.buffer, wasm.decode_buffer(frame), wasm.wlen());
    return take({ width, height, samples });
  } finally {
    wasm.decode_free(frame);
  }
}

/**
 * Decodes a PNG (any bit depth, palette, grey or alpha) to RGBA samples, given to `take`.
 * @throws {Error} when imagescript cannot decode it
 */
export async function decodePng<T>(bytes: Uint8Array, take: (samples: Samples) => T): Promise<T> {
  const wasm = await (png ??= instantiate("png"));
  const input = copyIn(wasm, bytes);
  const status = wasm.decode(input, bytes.length);
  wasm.wfree(input);
  if (status < 0) throw new Error(`png: failed to decode (${status})`);
  try {
    const width = wasm.width();
    const height = wasm.height();
    return take({
      width,
      height,
      samples: new Uint8Array(wasm.memory.buffer, status, width * height * 4),
    });
  } finally {
    wasm.wfree(status);
  }
}
