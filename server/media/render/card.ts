/**
 * The generated card shown when a file has no picture of its own (audio, a
 * video without ffmpeg, a file that cannot be decoded): a colour and an icon
 * by kind, the file's name and its duration.
 * @module
 */
import {
  blendPixel,
  boxDistance,
  circleDistance,
  createRaster,
  fillShape,
  packRgba,
  polygonDistance,
  type Raster,
  type Rgba,
} from "./raster.ts";
import { fitText, forEachTextPixel, LINE_ROWS, measureText } from "./text.ts";
import type { SourceFile } from "./types.ts";

const COLOURS: Record<SourceFile["kind"], readonly [number, number, number]> = {
  video: [29, 78, 216],
  audio: [126, 34, 206],
  image: [15, 118, 110],
};
const WHITE: Rgba = [255, 255, 255, 255];
const SOFT: Rgba = [255, 255, 255, 200];

/** "0:42", "12:05", "1:02:03": how long a file plays, whole seconds. */
export function formatDuration(seconds: number): string {
  const total = Math.max(0, Math.round(seconds));
  const h = Math.floor(total / 3600), m = Math.floor(total / 60) % 60, s = total % 60;
  const ss = String(s).padStart(2, "0");
  return h > 0 ? `${h}:${String(m).padStart(2, "0")}:${ss}` : `${m}:${ss}`;
}

/** A card of `width x height` for the file (text from 48 pixels up, the icon alone below). */
export function renderCard(source: SourceFile, width: number, height: number): Raster {
  const [r, g, b] = COLOURS[source.kind];
  const card = createRaster(width, height);
  const pixels = new Uint32Array(card.data.buffer, card.data.byteOffset, width * height);
  for (let y = 0; y < height; y++) {
    // A gentle vertical gradient, lighter at the top: one colour per row, filled as words.
    const k = 1.15 - 0.35 * (y / Math.max(1, height - 1));
    const row = packRgba([Math.min(255, r * k), Math.min(255, g * k), Math.min(255, b * k), 255]);
    pixels.fill(row, y * width, (y + 1) * width);
  }
  const side = Math.min(width, height);
  const hasText = side >= 48;
  const iconY = hasText ? height * 0.36 : height / 2;
  drawIcon(card, source.kind, width / 2, iconY, side * (hasText ? 0.2 : 0.32));
  if (!hasText) return card;
  const scale = Math.max(1, Math.round(side / 96));
  const maxWidth = Math.floor((width * 0.9) / scale);
  let y = Math.round(height * 0.64);
  drawLine(card, fitText(printable(source.name), maxWidth), y, scale, WHITE);
  if (source.duration !== null) {
    y += Math.round(LINE_ROWS * scale * 1.3);
    drawLine(card, formatDuration(source.duration), y, scale, SOFT);
  }
  return card;
}

/** The name in the font's characters (printable ASCII); others become "?". */
function printable(name: string): string {
  return [...name].map((c) => (c >= " " && c <= "~" ? c : "?")).join("");
}

function drawLine(card: Raster, text: string, top: number, scale: number, colour: Rgba): void {
  const left = Math.round((card.width - measureText(text) * scale) / 2);
  forEachTextPixel(text, (fx, fy) => {
    for (let dy = 0; dy < scale; dy++) {
      for (let dx = 0; dx < scale; dx++) {
        blendPixel(card, left + fx * scale + dx, top + fy * scale + dy, colour, 1);
      }
    }
  });
}

function drawIcon(card: Raster, kind: SourceFile["kind"], cx: number, cy: number, R: number): void {
  const all = { x0: cx - R * 1.1, y0: cy - R * 1.1, x1: cx + R * 1.1, y1: cy + R * 1.1 };
  if (kind === "video") {
    // A camera: a body and a lens cone.
    fillShape(card, all, boxDistance(cx - R, cy - R * 0.6, cx + R * 0.35, cy + R * 0.6), WHITE);
    const cone = [[cx + R * 0.45, cy], [cx + R, cy - R * 0.55], [cx + R, cy + R * 0.55]] as const;
    fillShape(card, all, polygonDistance(cone), WHITE);
  } else if (kind === "audio") {
    // A quaver: a head, a stem and a flag.
    fillShape(card, all, circleDistance(cx - R * 0.25, cy + R * 0.55, R * 0.35), WHITE);
    fillShape(
      card,
      all,
      boxDistance(cx - R * 0.04, cy - R * 0.9, cx + R * 0.1, cy + R * 0.55),
      WHITE,
    );
    const flag = [
      [cx + R * 0.05, cy - R * 0.9],
      [cx + R * 0.65, cy - R * 0.5],
      [cx + R * 0.65, cy - R * 0.22],
      [cx + R * 0.05, cy - R * 0.6],
    ] as const;
    fillShape(card, all, polygonDistance(flag), WHITE);
  } else {
    // A framed landscape: a frame, a mountain and a sun.
    const outer = boxDistance(cx - R, cy - R * 0.8, cx + R, cy + R * 0.8);
    const inner = boxDistance(cx - R * 0.82, cy - R * 0.62, cx + R * 0.82, cy + R * 0.62);
    fillShape(card, all, (x, y) => Math.max(outer(x, y), -inner(x, y)), WHITE);
    const hill = [[cx - R * 0.82, cy + R * 0.62], [cx - R * 0.2, cy - R * 0.2], [
      cx + R * 0.45,
      cy + R * 0.62,
    ]] as const;
    fillShape(card, all, polygonDistance(hill), WHITE);
    fillShape(card, all, circleDistance(cx + R * 0.45, cy - R * 0.25, R * 0.18), WHITE);
  }
}
