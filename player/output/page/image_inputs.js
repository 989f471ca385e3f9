// @ts-check
// The image inputs of ISF programs other than the layer's `inputImage` (docs/presets.md,
// "Several image inputs"): each bound by the player (`RenderImage`) to a playing Clip's
// picture, the layers drawn below, a playing camera's picture, or an image at a loopback URL
// of the output server (a Project's image file, a preset's IMPORTED image), loaded once and
// kept; an input left unbound, or an image not loaded yet, reads a 1x1 transparent black
// texture with an `_<name>_imgSize` of 1x1.
import { setPair, texture, upload } from "./gl.js";

/** @typedef {import("../../../protocol/output.ts").RenderImage} RenderImage */
/** @typedef {import("../../../protocol/output.ts").RenderLayer} RenderLayer */
/** @typedef {import("./gl.js").UniformValue} UniformValue */
/** @typedef {import("./gl.js").Size} Size */
/**
 * What a frame's bindings read: the layers and their pictures, the picture below the layer
 * drawn, the render's size. One record, set for each frame and layer.
 * @typedef {{
 *   layers: RenderLayer[],
 *   textureOf: (clipId: string) => WebGLTexture | null,
 *   below: WebGLTexture | null,
 *   size: Size,
 * }} ImageContext
 */
/**
 * An image loaded from a URL: its texture once loaded (null before), its size.
 * @typedef {{texture: WebGLTexture | null, width: number, height: number}} UrlImage
 */

/** The most URL images kept (textures); the oldest used is deleted past it. */
const MAX_URL_IMAGES = 64;

/** The pictures of image inputs, resolved each frame. */
export class ImageInputs {
  #gl;
  /** 1x1, transparent black: an unbound input. */
  #empty;
  /** URL -> its image, the most recently used last. @type {Map<string, UrlImage>} */
  #urls = new Map();
  /**
   * What the bindings read this frame (`frame`); `below` set for each layer drawn.
   * @type {ImageContext}
   */
  context = { layers: [], textureOf: () => null, below: null, size: { width: 1, height: 1 } };

  /** @param {WebGL2RenderingContext} gl */
  constructor(gl) {
    this.#gl = gl;
    this.#empty = texture(gl);
  }

  /**
   * Starts a frame: its layers, their pictures, the render's size.
   * @param {RenderLayer[]} layers
   * @param {(clipId: string) => WebGLTexture | null} textureOf
   * @param {Size} size
   */
  frame(layers, textureOf, size) {
    const context = this.context;
    context.layers = layers;
    context.textureOf = textureOf;
    context.size = size;
    context.below = null;
  }

  /**
   * Sets `textures[name]` and `values[_<name>_imgSize]` of `name`, read from `image` (undefined:
   * unbound) for this frame (`context`).
   * @param {string} name
   * @param {RenderImage | undefined} image
   * @param {Record<string, WebGLTexture>} textures
   * @param {Record<string, UniformValue>} values
   * @param {string} sizeKey
   */
  bind(name, image, textures, values, sizeKey) {
    const context = this.context;
    const { size } = context;
    let picture = null;
    let width = size.width, height = size.height;
    if (image?.from === "url") {
      const loaded = this.#url(image.url);
      picture = loaded.texture;
      width = loaded.width, height = loaded.height;
    } else if (image?.from === "below") picture = context.below;
    else if (image?.from === "clip") picture = context.textureOf(image.clipId);
    else if (image?.from === "camera") picture = cameraPicture(context, image.cameraId);
    textures[name] = picture ?? this.#empty;
    if (picture) setPair(values, sizeKey, width, height);
    else setPair(values, sizeKey, 1, 1);
  }

  /**
   * The image at `url`, its load started on first use.
   * @param {string} url
   */
  #url(url) {
    let image = this.#urls.get(url);
    if (image) {
      // Used now: kept past older ones.
      this.#urls.delete(url);
      this.#urls.set(url, image);
      return image;
    }
    /** @type {UrlImage} */
    const entry = { texture: null, width: 1, height: 1 };
    image = entry;
    this.#urls.set(url, entry);
    const img = new Image();
    img.onload = () => {
      if (this.#urls.get(url) !== entry || this.#gl.isContextLost()) return;
      const t = texture(this.#gl);
      upload(this.#gl, t, img);
      entry.texture = t;
      entry.width = img.naturalWidth;
      entry.height = img.naturalHeight;
    };
    img.src = url;
    if (this.#urls.size > MAX_URL_IMAGES) {
      const [oldest, gone] = this.#urls.entries().next().value ?? [];
      if (oldest !== undefined) this.#urls.delete(oldest);
      if (gone?.texture) this.#gl.deleteTexture(gone.texture);
    }
    return entry;
  }
}

/**
 * The picture of the first layer playing camera `cameraId`, or null.
 * @param {ImageContext} context
 * @param {string} cameraId
 */
function cameraPicture(context, cameraId) {
  const layers = context.layers;
  for (let i = 0; i < layers.length; i++) {
    const layer = /** @type {RenderLayer} */ (layers[i]);
    if (layer.kind === "camera" && layer.source === cameraId) {
      return context.textureOf(layer.clipId);
    }
  }
  return null;
}
