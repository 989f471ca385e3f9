/**
 * Text in the "Seven plus" pixel font of `js-pixel-fonts` (7 pixels high,
 * variable width, descenders below), drawn at a whole-number scale so each
 * font pixel is a crisp square at any card size.
 * @module
 */
import font from "js-pixel-fonts/data/seven-plus.json" with { type: "json" };

interface Glyph {
  offset: number;
  pixels: number[][];
}
const glyphs = font.glyphs as Record<string, Glyph>;
/** Rows of a line: 7 above the baseline and 2 for descenders. */
export const LINE_ROWS = 9;

function glyphOf(ch: string): Glyph {
  return glyphs[ch] ?? glyphs["?"]!;
}

function glyphWidth(g: Glyph): number {
  return g.pixels.reduce((n, row) => Math.max(n, row.length), 0);
}

/** The width of `text` in font pixels (one blank column between letters). */
export function measureText(text: string): number {
  let width = 0;
  for (const ch of text) width += glyphWidth(glyphOf(ch)) + 1;
  return Math.max(0, width - 1);
}

/** `text` cut and ended with ".." so that it is at most `maxWidth` font pixels wide. */
export function fitText(text: string, maxWidth: number): string {
  if (measureText(text) <= maxWidth) return text;
  const chars = [...text];
  while (chars.length > 0 && measureText(chars.join("") + "..") > maxWidth) chars.pop();
  return chars.length > 0 ? chars.join("") + ".." : "";
}

/**
 * Calls `plot(x, y)` for every lit font pixel of `text`, in font pixels, the
 * top of the capitals at y = 0.
 */
export function forEachTextPixel(text: string, plot: (x: number, y: number) => void): void {
  let x = 0;
  for (const ch of text) {
    const g = glyphOf(ch);
    g.pixels.forEach((row, y) => {
      row.forEach((on, dx) => {
        if (on) plot(x + dx, y + g.offset);
      });
    });
    x += glyphWidth(g) + 1;
  }
}
