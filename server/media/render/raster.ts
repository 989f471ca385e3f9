/**
 * An opaque RGBA picture in memory, and the small drawing primitives the
 * overlay, the cards and the waveforms share.
 * @module
 */

/** RGBA pixels, row by row, `width * height * 4` bytes. */
export interface Raster {
  width: number;
  height: number;
  data: Uint8Array;
}

/** From this many bytes, pixels get a memory of their own (`pixelBuffer`). */
const OWN_MEMORY_BYTES = 4 * 1024 * 1024;
/** Bytes given memories of their own since the worker started (`ownMemoryBytes`). */
let ownBytes = 0;

/**
 * A buffer for `length` bytes of pixels. A large one has a memory of its own
 * (a `WebAssembly.Memory`, mapped apart from the allocator's heaps), which
 * goes back to the system when its worker ends: freed pixels of 4K pictures
 * stayed with the allocator, and the service grew with every one (issue 30).
 */
export function pixelBuffer(length: number): Uint8Array {
  if (length < OWN_MEMORY_BYTES) return new Uint8Array(length);
  const pages = Math.ceil(length / 65536);
  ownBytes += pages * 65536;
  return new Uint8Array(
    new WebAssembly.Memory({ initial: pages, maximum: pages }).buffer,
    0,
    length,
  );
}

/**
 * Bytes of memories of their own made so far: those not yet collected are
 * counted nowhere else (not in `Deno.memoryUsage()`), so the pool replaces a
 * worker past a budget of them.
 */
export function ownMemoryBytes(): number {
  return ownBytes;
}

/** An RGBA colour, each channel 0..255. */
export type Rgba = readonly [number, number, number, number];

/**
 * `rgba` (channels rounded) as one 32-bit word in this machine's byte order: a pixel a
 * `Uint32Array` over a raster's data holds, so a run of pixels is one `fill`.
 */
export function packRgba(rgba: Rgba): number {
  return new Uint32Array(Uint8Array.from(rgba, Math.round).buffer)[0]!;
}

/** A new raster filled with one colour. */
export function createRaster(width: number, height: number, fill: Rgba = [0, 0, 0, 255]): Raster {
  const data = new Uint8Array(width * height * 4);
  new Uint32Array(data.buffer).fill(packRgba(fill));
  return { width, height, data };
}

/**
 * Blends `colour` over the pixel at (x, y) with `coverage` 0..1 (times the
 * colour's own alpha); the raster's alpha becomes the union of both.
 */
export function blendPixel(r: Raster, x: number, y: number, colour: Rgba, coverage: number): void {
  if (x < 0 || y < 0 || x >= r.width || y >= r.height) return;
  const a = coverage * colour[3] / 255;
  if (a <= 0) return;
  const i = (y * r.width + x) * 4;
  const d = r.data;
  const da = d[i + 3]! / 255;
  const outA = a + da * (1 - a);
  if (outA <= 0) return;
  for (let c = 0; c < 3; c++) {
    d[i + c] = Math.round((colour[c]! * a + d[i + c]! * da * (1 - a)) / outA);
  }
  d[i + 3] = Math.round(outA * 255);
}

/**
 * Paints a shape given by a signed distance function (negative inside, in
 * pixels) with coverage-based antialiasing: a pixel whose centre lies within
 * half a pixel of the edge gets partial coverage, so edges are smooth at any size.
 */
export function fillShape(
  r: Raster,
  box: { x0: number; y0: number; x1: number; y1: number },
  distance: (x: number, y: number) => number,
  colour: Rgba,
): void {
  const x0 = Math.max(0, Math.floor(box.x0 - 1)), x1 = Math.min(r.width, Math.ceil(box.x1 + 1));
  const y0 = Math.max(0, Math.floor(box.y0 - 1)), y1 = Math.min(r.height, Math.ceil(box.y1 + 1));
  for (let y = y0; y < y1; y++) {
    for (let x = x0; x < x1; x++) {
      const coverage = Math.min(1, Math.max(0, 0.5 - distance(x + 0.5, y + 0.5)));
      if (coverage > 0) blendPixel(r, x, y, colour, coverage);
    }
  }
}

/** A signed distance function: negative inside a shape, in pixels. */
export type Distance = (x: number, y: number) => number;

/** Signed distance to a circle. */
export function circleDistance(cx: number, cy: number, radius: number): Distance {
  return (x: number, y: number): number => Math.hypot(x - cx, y - cy) - radius;
}

/** Signed distance to an axis-aligned box (exact outside and inside). */
export function boxDistance(x0: number, y0: number, x1: number, y1: number): Distance {
  const cx = (x0 + x1) / 2, cy = (y0 + y1) / 2, hw = (x1 - x0) / 2, hh = (y1 - y0) / 2;
  return (x: number, y: number): number => {
    const dx = Math.abs(x - cx) - hw, dy = Math.abs(y - cy) - hh;
    const outside = Math.hypot(Math.max(dx, 0), Math.max(dy, 0));
    return outside + Math.min(Math.max(dx, dy), 0);
  };
}

/**
 * Signed distance (inside exact, outside a close bound) to a convex polygon
 * whose points go clockwise in screen coordinates (y down).
 */
export function polygonDistance(points: ReadonlyArray<readonly [number, number]>): Distance {
  const edges = points.map(([ax, ay], i) => {
    const [bx, by] = points[(i + 1) % points.length]!;
    const len = Math.hypot(bx - ax, by - ay);
    // Outward normal of a clockwise (screen) polygon.
    return { ax, ay, nx: (by - ay) / len, ny: -(bx - ax) / len };
  });
  return (x: number, y: number): number => {
    let d = -Infinity;
    for (const e of edges) d = Math.max(d, (x - e.ax) * e.nx + (y - e.ay) * e.ny);
    return d;
  };
}
