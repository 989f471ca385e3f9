/**
 * Renders a page of the module's presets as Companion draws its keys, for the docs: each key's
 * colour and text from the preset's style (variables filled from the module's values), the style
 * of its boolean feedbacks when they are on, and the PNG of its advanced feedbacks (the Clip
 * thumbnail, the Control bar) as the module drew them at the key's size.
 * @module
 */
import { blendPixel, createRaster, type Raster } from "../../../server/media/render/raster.ts";
import { decodePng, encodePng } from "../../../server/media/render/codecs.ts";
import {
  fitText,
  forEachTextPixel,
  LINE_ROWS,
  measureText,
} from "../../../server/media/render/text.ts";

/** A key as the docs draw it. */
export interface KeyPicture {
  bgcolor: number;
  color: number;
  text: string;
  /** `center:bottom` puts the text at the bottom (the Clip keys); else it is centred. */
  alignment?: string;
  /** PNGs drawn over the colour, in order (advanced feedbacks). */
  images: Uint8Array[];
}

/** The side of a key in pixels (a Stream Deck's) and the gap between keys. */
export const KEY = 72;
const GAP = 8;

const rgba = (
  c: number,
): [number, number, number, number] => [(c >> 16) & 255, (c >> 8) & 255, c & 255, 255];

function drawOver(page: Raster, image: Raster, x0: number, y0: number): void {
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      const i = (y * image.width + x) * 4;
      const a = image.data[i + 3]! / 255;
      if (a > 0) {
        blendPixel(page, x0 + x, y0 + y, [
          image.data[i]!,
          image.data[i + 1]!,
          image.data[i + 2]!,
          255,
        ], a);
      }
    }
  }
}

function drawText(page: Raster, key: KeyPicture, x0: number, y0: number): void {
  const lines = key.text.split("\n").filter((l) => l !== "");
  const scale = lines.every((l) => measureText(l) * 2 <= KEY - 6) && lines.length <= 3 ? 2 : 1;
  const height = lines.length * LINE_ROWS * scale;
  let y = key.alignment === "center:bottom" ? KEY - height - 2 : Math.floor((KEY - height) / 2);
  for (const raw of lines) {
    const line = fitText(raw, Math.floor((KEY - 4) / scale));
    const x = Math.floor((KEY - measureText(line) * scale) / 2);
    forEachTextPixel(line, (px, py) => {
      for (let dy = 0; dy < scale; dy++) {
        for (let dx = 0; dx < scale; dx++) {
          blendPixel(page, x0 + x + px * scale + dx, y0 + y + py * scale + dy, rgba(key.color), 1);
        }
      }
    });
    y += LINE_ROWS * scale;
  }
}

/** The page image (PNG) of `keys`, `columns` to a row. */
export async function renderPage(keys: KeyPicture[], columns = 8): Promise<Uint8Array> {
  const rows = Math.ceil(keys.length / columns);
  const page = createRaster(columns * (KEY + GAP) + GAP, rows * (KEY + GAP) + GAP, [
    24,
    24,
    24,
    255,
  ]);
  for (const [i, key] of keys.entries()) {
    const x0 = GAP + (i % columns) * (KEY + GAP);
    const y0 = GAP + Math.floor(i / columns) * (KEY + GAP);
    drawOver(page, createRaster(KEY, KEY, rgba(key.bgcolor)), x0, y0);
    for (const png of key.images) drawOver(page, await decodePng(png), x0, y0);
    drawText(page, key, x0, y0);
  }
  return encodePng(page);
}
