// @ts-check
// The output's pictures for previews (`output.frame` with a size, player protocol 1.8): the
// canvas scaled into a small 2D canvas and encoded there (a 320-pixel JPEG instead of a
// full-size PNG), taken right after a frame the page draws anyway.

/**
 * What a picture is asked as: its longer side, its format, its JPEG quality (0 to 1).
 * @typedef {{
 *   size?: number | undefined,
 *   format?: import("../../../protocol/pictures.ts").PictureFormat | undefined,
 *   quality?: number | undefined,
 * }} Asked
 */

/** Scales and encodes the output canvas's picture; holds the previews waiting for a frame. */
export class Previews {
  /** @type {HTMLCanvasElement} */
  #canvas;
  /** @type {HTMLCanvasElement | null} Made at the first preview. */
  #small = null;
  /** @type {{ asked: Asked, resolve: (url: string) => void }[]} */
  #waiting = [];

  /** @param {HTMLCanvasElement} canvas The output's canvas. */
  constructor(canvas) {
    this.#canvas = canvas;
  }

  /**
   * The canvas's picture now as a data URL: a PNG as it is, or scaled so its longer side is
   * `size` and encoded as asked. Call it in the task that drew the canvas (its drawing buffer
   * is not kept after).
   * @param {Asked} asked
   */
  picture({ size, format, quality }) {
    const type = format === "jpeg" ? "image/jpeg" : "image/png";
    if (size === undefined && type === "image/png") return this.#canvas.toDataURL(type);
    const { width, height } = this.#canvas;
    const scale = size === undefined ? 1 : size / Math.max(width, height);
    const small = (this.#small ??= document.createElement("canvas"));
    small.width = Math.max(1, Math.round(width * scale));
    small.height = Math.max(1, Math.round(height * scale));
    const ctx = /** @type {CanvasRenderingContext2D} */ (small.getContext("2d"));
    ctx.imageSmoothingQuality = "high";
    ctx.drawImage(this.#canvas, 0, 0, small.width, small.height);
    return small.toDataURL(type, quality);
  }

  /**
   * The picture of the next frame the page draws (`drawn`): no extra draw, and no canvas
   * resized to the display's size (a full-size draw costs a frame at scale 1 and two canvas
   * resizes). A page that draws no frame within 250 ms (a hidden window) draws one (`draw`).
   * @param {Asked} asked
   * @param {() => void} draw Draws a frame at the scale of now.
   * @returns {Promise<string>}
   */
  next(asked, draw) {
    return new Promise((resolve) => {
      const waiting = { asked, resolve };
      this.#waiting.push(waiting);
      setTimeout(() => {
        const at = this.#waiting.indexOf(waiting);
        if (at < 0) return;
        this.#waiting.splice(at, 1);
        draw();
        resolve(this.picture(asked));
      }, 250);
    });
  }

  /** A frame was just drawn: the previews waiting for one get its picture. */
  drawn() {
    if (this.#waiting.length === 0) return;
    for (const { asked, resolve } of this.#waiting.splice(0)) resolve(this.picture(asked));
  }
}
