// @ts-check
// The live preview of the Output tab: the output's picture from GET /api/v1/output/frame.jpg at a
// few frames a second, one request at a time, paused while the tab or the page is hidden, backing
// off on errors and saying why (docs/remote.md, "Output").

import { html, useEffect, useRef } from "./preact.js";
import { outputFrame } from "./api.js";
import { PreviewLoop } from "./preview_loop.js";
import { PICTURE_SIZE } from "./pictures.js";

/**
 * The picture's size: the box's width in device pixels, within the route's range (16-512).
 * @param {HTMLElement} box
 */
function sizeFor(box) {
  const px = Math.round((box.clientWidth || 320) * (globalThis.devicePixelRatio || 1));
  return Math.min(PICTURE_SIZE.max, Math.max(PICTURE_SIZE.min, px));
}

/**
 * Starts the loop on the figure `box`; returns its stop (which frees the picture's blob URL).
 * @param {HTMLElement} box the figure of `Preview`, with its picture and caption
 */
function startPreview(box) {
  const img = /** @type {HTMLImageElement} */ (box.querySelector("img"));
  const caption = /** @type {HTMLElement} */ (box.querySelector("figcaption"));
  let url = /** @type {string | null} */ (null);
  let isGone = false;
  /** The picture shown's ETag and size: the same one again answers 304, not its bytes. */
  let shown = /** @type {{etag: string | null, size: number}} */ ({ etag: null, size: 0 });
  box.dataset.preview = "waiting";
  /** The picture on screen is the output's now: no refusal said. */
  const live = () => {
    box.dataset.preview = "live";
    caption.textContent = "";
  };
  const loop = new PreviewLoop({
    async fetchFrame(signal) {
      const size = sizeFor(box);
      const picture = await outputFrame(size, signal, size === shown.size ? shown.etag : null);
      if (picture === null) return null;
      shown = { etag: picture.etag, size };
      return picture.blob;
    },
    async show(blob) {
      const next = URL.createObjectURL(blob);
      img.src = next;
      try {
        await img.decode();
      } finally {
        // The picture on screen holds its pixels: the blob it came from can go (and this one too
        // when the tab closed while it was decoded).
        if (url) URL.revokeObjectURL(url);
        url = isGone ? null : next;
        if (isGone) URL.revokeObjectURL(next);
      }
      live();
    },
    // A 304 after a refusal: the show is still and the picture shown is still the output's.
    recover: live,
    fail(error) {
      box.dataset.preview = "refused";
      box.dataset.code = error.code ?? "";
      caption.textContent = `No preview: ${error.message}`;
    },
    isVisible: () => document.visibilityState === "visible",
    now: () => performance.now(),
    setTimer: (fn, ms) => setTimeout(fn, ms),
    clearTimer: (timer) => clearTimeout(/** @type {number | undefined} */ (timer)), // null: none
  });
  const onVisibility =
    () => (document.visibilityState === "visible" ? loop.resume() : loop.pause());
  document.addEventListener("visibilitychange", onVisibility);
  loop.resume();
  return () => {
    isGone = true;
    loop.stop();
    document.removeEventListener("visibilitychange", onVisibility);
    img.removeAttribute("src");
    if (url) URL.revokeObjectURL(url);
    url = null;
  };
}

/** The output's picture, live while the Output tab shows (it is unmounted with the tab). */
export function Preview() {
  const box = useRef(/** @type {HTMLElement | null} */ (null));
  // Effects run once the figure is in the page: the ref holds it.
  useEffect(() => startPreview(/** @type {HTMLElement} */ (box.current)), []);
  return html`
    <figure class="preview" ref=${box}>
      <img class="preview-picture" alt="The output now" decoding="async" />
      <figcaption role="status"></figcaption>
    </figure>
  `;
}
