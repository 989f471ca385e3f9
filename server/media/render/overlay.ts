/**
 * The play and pause symbols drawn over a thumbnail: a white triangle or two
 * white bars on a translucent dark disc, centred and scaled to the picture,
 * with coverage-based antialiasing (smooth at 16 and at 512 pixels).
 * @module
 */
import { boxDistance, circleDistance, fillShape, polygonDistance, type Raster } from "./raster.ts";

const DISC = [0, 0, 0, 150] as const;
const SYMBOL = [255, 255, 255, 255] as const;

/** Draws the `play` or `pause` symbol over the raster, in place (`none` draws nothing). */
export function drawOverlay(r: Raster, overlay: "play" | "pause" | "none"): void {
  if (overlay === "none") return;
  const side = Math.min(r.width, r.height);
  const cx = r.width / 2, cy = r.height / 2;
  // A third of the picture across: large enough at 16 pixels, not hiding a 512 one.
  const radius = Math.max(4, side * 0.34);
  const box = { x0: cx - radius, y0: cy - radius, x1: cx + radius, y1: cy + radius };
  fillShape(r, box, circleDistance(cx, cy, radius), DISC);
  const s = radius * 0.5; // the symbol's half height
  if (overlay === "play") {
    // The triangle's centroid sits a little right of the disc's centre, so it looks centred.
    const left = cx - s * 0.62, right = cx + s * 0.95;
    const triangle = [[left, cy - s], [right, cy], [left, cy + s]] as const;
    fillShape(
      r,
      { x0: left, y0: cy - s, x1: right, y1: cy + s },
      polygonDistance(triangle),
      SYMBOL,
    );
  } else {
    const barWidth = s * 0.62, gap = s * 0.5;
    for (const x0 of [cx - gap / 2 - barWidth, cx + gap / 2]) {
      const box = { x0, y0: cy - s, x1: x0 + barWidth, y1: cy + s };
      fillShape(r, box, boxDistance(box.x0, box.y0, box.x1, box.y1), SYMBOL);
    }
  }
}
