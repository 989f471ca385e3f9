/**
 * Layout checks of the web remote, run inside the page: what reaches past
 * the device's width, loading text left on screen, a header title cut short
 * while the header has room, and how many rows of Clips show at once.
 *
 * With mobile emulation a page wider than the device makes Chromium zoom
 * out (`innerWidth` grows to the content), so every check compares with the
 * emulated device's width, never with `innerWidth`.
 */
import type { Page } from "puppeteer-core";

// The probes are page code, kept as source text: this file is type-checked without the DOM's types.

/** `(deviceWidth) => string[]`: every element or text past the device's edges, and why. */
const OVERFLOW_PROBE = `(deviceWidth) => {
  const problems = [];
  const doc = document.documentElement;
  const label = (node) => {
    if (node.nodeType === Node.TEXT_NODE) {
      return \`text "\${node.textContent.trim().slice(0, 30)}" in \${label(node.parentElement)}\`;
    }
    const classes = [...node.classList].map((c) => "." + c).join("");
    return node.tagName.toLowerCase() + (node.id ? "#" + node.id : "") + classes;
  };
  const isShown = (element) => {
    const style = getComputedStyle(element);
    return element.getClientRects().length > 0 && style.visibility === "visible" &&
      style.opacity !== "0";
  };
  // What shows of a box: ancestors that hide their overflow cut it (scrolling ones are checked
  // on their own: they must not scroll sideways).
  const shownPart = (node, rect) => {
    let { left, right } = rect;
    for (let a = node.parentElement; a && a !== doc; a = a.parentElement) {
      const overflow = getComputedStyle(a).overflowX;
      if (overflow === "hidden" || overflow === "clip") {
        const box = a.getBoundingClientRect();
        left = Math.max(left, box.left);
        right = Math.min(right, box.right);
      }
    }
    return { left, right };
  };
  const check = (node, rect) => {
    if (rect.width === 0 && rect.height === 0) return;
    const { left, right } = shownPart(node, rect);
    if (right <= left) return; // cut away entirely
    if (right > deviceWidth + 0.5 || left < -0.5) {
      problems.push(\`\${label(node)} spans \${left.toFixed(1)}-\${right.toFixed(1)} px\`);
    }
  };
  if (doc.scrollWidth > deviceWidth) problems.push(\`the document is \${doc.scrollWidth} px wide\`);
  for (const element of document.body.querySelectorAll("*")) {
    if (!isShown(element)) continue;
    check(element, element.getBoundingClientRect());
    const overflow = getComputedStyle(element).overflowX;
    const isField = element.matches("input, textarea, select");
    if (!isField && (overflow === "auto" || overflow === "scroll") &&
      element.scrollWidth > element.clientWidth + 1) {
      problems.push(\`\${label(element)} scrolls sideways (\${element.scrollWidth} px in \${element.clientWidth} px)\`);
    }
    // A box too small for what it holds: a button's label spilling out or cut, a tile squeezed.
    // Only a line that ends in an ellipsis may be cut, and only across.
    const style = getComputedStyle(element);
    const isCutting = overflow === "hidden" || overflow === "clip" || element.matches("button");
    const isEllipsis = style.textOverflow === "ellipsis";
    if (!isField && isCutting && (element.scrollHeight > element.clientHeight + 1 ||
      (!isEllipsis && element.scrollWidth > element.clientWidth + 1))) {
      problems.push(\`\${label(element)} is too small for its content (\${element.scrollWidth}x\${element.scrollHeight} px in \${element.clientWidth}x\${element.clientHeight} px)\`);
    }
    for (const child of element.childNodes) {
      if (child.nodeType !== Node.TEXT_NODE || child.textContent.trim() === "") continue;
      const range = document.createRange();
      range.selectNodeContents(child);
      check(child, range.getBoundingClientRect());
    }
  }
  return problems;
}`;

/** `() => string[]`: loading or waiting notes a reader can see. */
const LOADING_PROBE = `() => {
  const text = document.body.innerText;
  return ["Loading the remote", "Waiting for the show"].filter((note) => text.includes(note));
}`;

/**
 * `(selector) => {...}`: the title's whole width, the width it shows, and
 * whether the header would hold it whole if every other item of the header
 * took only the room its content needs (items that shorten with an ellipsis
 * need none).
 */
const TITLE_PROBE = `(selector) => {
  const title = document.querySelector(selector);
  const header = title.closest("header");
  const px = (value) => parseFloat(value) || 0;
  const frame = (style) =>
    px(style.paddingLeft) + px(style.paddingRight) + px(style.borderLeftWidth) +
    px(style.borderRightWidth);
  const need = (element) => {
    const style = getComputedStyle(element);
    if (element === title) return title.scrollWidth + px(style.borderLeftWidth) + px(style.borderRightWidth);
    if (style.display === "none" || element.getClientRects().length === 0) return 0;
    if (style.textOverflow === "ellipsis" && !element.contains(title)) return frame(style);
    if (style.display === "flex" || style.display === "inline-flex") {
      const items = [...element.children].filter((c) => c.getClientRects().length > 0);
      const gap = px(style.columnGap) * Math.max(0, items.length - 1);
      const margins = items.reduce((sum, c) => {
        const s = getComputedStyle(c);
        return sum + px(s.marginLeft) + px(s.marginRight);
      }, 0);
      return frame(style) + gap + margins + items.reduce((sum, c) => sum + need(c), 0);
    }
    const range = document.createRange();
    range.selectNodeContents(element);
    return frame(style) + range.getBoundingClientRect().width;
  };
  return {
    text: title.textContent,
    whole: title.scrollWidth,
    shown: title.clientWidth,
    needed: Math.ceil(need(header)),
    room: header.clientWidth + px(getComputedStyle(header).borderLeftWidth) +
      px(getComputedStyle(header).borderRightWidth),
  };
}`;

/**
 * `(deviceHeight) => {rows, shownRows}`: rows of Clip tiles, and those shown whole without
 * scrolling (within every scrolling or clipping box around them, and the device's height).
 */
const CLIP_ROWS_PROBE = `(deviceHeight) => {
  const tiles = [...document.querySelectorAll("[data-clip]")];
  const rowsOf = (list) => new Set(list.map((t) => Math.round(t.getBoundingClientRect().top))).size;
  let top = 0;
  let bottom = deviceHeight;
  for (let a = tiles[0]?.parentElement; a; a = a.parentElement) {
    if (getComputedStyle(a).overflowY === "visible") continue;
    const box = a.getBoundingClientRect();
    top = Math.max(top, box.top);
    bottom = Math.min(bottom, box.bottom);
  }
  const whole = tiles.filter((t) => {
    const r = t.getBoundingClientRect();
    return r.top >= top - 0.5 && r.bottom <= bottom + 0.5;
  });
  return { rows: rowsOf(tiles), shownRows: rowsOf(whole) };
}`;

/** Every element or text of the page that reaches past the device's width (none is right). */
export async function overflowProblems(page: Page, deviceWidth: number): Promise<string[]> {
  return await page.evaluate(`(${OVERFLOW_PROBE})(${deviceWidth})`) as string[];
}

/** The loading notes still on screen (none is right once a screen shows). */
export async function loadingNotes(page: Page): Promise<string[]> {
  return await page.evaluate(`(${LOADING_PROBE})()`) as string[];
}

/** How a header title fits: `whole` and `shown` widths, the header's `needed` width and `room`. */
export interface TitleFit {
  text: string;
  whole: number;
  shown: number;
  needed: number;
  room: number;
}

/** How the title at `selector` fits in its header. */
export async function titleFit(page: Page, selector: string): Promise<TitleFit> {
  return await page.evaluate(`(${TITLE_PROBE})(${JSON.stringify(selector)})`) as TitleFit;
}

/** The rows of Clips, and how many of them show whole without scrolling. */
export async function clipRows(
  page: Page,
  deviceHeight: number,
): Promise<{ rows: number; shownRows: number }> {
  return await page.evaluate(`(${CLIP_ROWS_PROBE})(${deviceHeight})`) as {
    rows: number;
    shownRows: number;
  };
}
