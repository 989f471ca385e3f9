/**
 * How deep a JSON text nests, found without parsing it; the player bounds its
 * request lines with it, the service its JSON bodies. V8's `JSON.parse` of
 * deep nesting costs far more than the text: 200 lines nesting 400,000 levels
 * (0.8-2.4 MB each) took the player from 100 MB to 324 MB resident (measured);
 * refused before they are parsed, 122 MB.
 * @module
 */

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/**
 * Whether `text` opens more than `max` arrays or objects inside one another.
 * Brackets inside strings do not count; a text that is no JSON at all gives
 * some answer and fails its parse later. A text shorter than `2 * max + 2`
 * characters cannot nest that deep, so callers may skip the scan for it.
 */
export function isNestedDeeper(text: string, max: number): boolean {
  if (opensAtMost(text, max)) return false;
  let depth = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i) + 1;
      continue;
    }
    if (c === OPEN_BRACKET || c === OPEN_BRACE) {
      if (++depth > max) return true;
    } else if (c === CLOSE_BRACKET || c === CLOSE_BRACE) depth--;
    i++;
  }
  return false;
}

/**
 * Whether `text` has at most `max` opening brackets, inside strings or not: then nothing in it
 * nests deeper than `max`, as each level opens one. Found by `indexOf`, a builtin that needs no
 * warming, where the scan runs in V8's lower tiers in a process that calls it a few thousand
 * times a second (the player's request lines): 0.9 us for a 2 KB batch of 32 actions against
 * 3 us for the scan at its best and 60 us at its first calls (docs/load.md, Session 20).
 */
function opensAtMost(text: string, max: number): boolean {
  let count = 0;
  for (let at = text.indexOf("{"); at >= 0; at = text.indexOf("{", at + 1)) {
    if (++count > max) return false;
  }
  for (let at = text.indexOf("["); at >= 0; at = text.indexOf("[", at + 1)) {
    if (++count > max) return false;
  }
  return true;
}

/** The index of the quote that closes the string opened at `open` (the text's end if none). */
function stringEnd(text: string, open: number): number {
  let quote = text.indexOf('"', open + 1);
  while (quote >= 0) {
    let backslashes = 0;
    while (text.charCodeAt(quote - 1 - backslashes) === BACKSLASH) backslashes++;
    if (backslashes % 2 === 0) return quote; // not escaped
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}
