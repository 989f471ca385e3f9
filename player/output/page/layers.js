// @ts-check
// The media of the layers: an image, a video or an audio element, or a camera, per playing
// Clip, each with its texture and (for sound) its gain into the master; kept on the clock. A
// generator Clip has no media: its shader, the first pass of its layer (`compositor.js`),
// draws its picture each frame with TIME its position on the clock.
import { positionOf } from "./clock.js";
import { texture, upload } from "./gl.js";

/** @typedef {import("../../../protocol/output.ts").RenderLayer} RenderLayer */
/** @typedef {import("./clock.js").PlayerClock} PlayerClock */
/** @typedef {import("./sound.js").Sound} Sound */
/**
 * A Clip's media: what it shows (`kind`, `source`: a change makes it anew), its element, its
 * texture, its gain into the master.
 * @typedef {{
 *   kind: RenderLayer["kind"],
 *   source: string | null,
 *   clipId: string,
 *   texture: WebGLTexture,
 *   el: HTMLImageElement | HTMLMediaElement | null,
 *   gain: GainNode | null,
 *   isUploaded: boolean,
 *   failed: boolean,
 *   presented: number | null,
 * }} Media
 */

/**
 * The Clip's card: its name on grey, shown when its media cannot be.
 * @param {string} name
 */
function card(name) {
  const c = document.createElement("canvas");
  c.width = 640;
  c.height = 360;
  const g = c.getContext("2d");
  if (!g) return c;
  g.fillStyle = "#30343c";
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = "#e8e8e8";
  g.font = "bold 40px sans-serif";
  g.textAlign = "center";
  g.fillText(name, c.width / 2, c.height / 2);
  return c;
}

/**
 * What `Layers#sync` answers: one record per `Layers`, set in place each frame (read it before
 * the next call).
 * @typedef {{isReady: boolean, drift: number}} Synced
 */

/** The layers' media for one GL context, their files under one base. */
export class Layers {
  /** The media by Clip id. @type {Map<string, Media>} */
  #media = new Map();
  /** `sync`'s answer, reused. @type {Synced} */
  #synced = { isReady: true, drift: 0 };
  /** The layers of the `sync` under way (for `#dropStopped`). @type {RenderLayer[]} */
  #syncing = [];
  /** Drops a Clip's media when no layer of `#syncing` plays it (made once: a `forEach`'s). */
  #dropStopped = (/** @type {Media} */ _entry, /** @type {string} */ id) => {
    if (!isPlaying(this.#syncing, id)) this.#drop(id);
  };
  /** Files said to `report` already. */
  #faults = new Set();
  #gl;
  #base;
  #report;
  #clock;
  #sound;

  /**
   * `report(clipId, message)` is told once per file that cannot be shown; `sound` takes the
   * layers' sound, `clock` keeps their media on the player's clock.
   * @param {WebGL2RenderingContext} gl
   * @param {{
   *   base: string,
   *   clock: PlayerClock,
   *   sound: Sound,
   *   report: (clipId: string, message: string) => void,
   * }} options
   */
  constructor(gl, { base, clock, sound, report }) {
    this.#gl = gl;
    this.#base = base;
    this.#clock = clock;
    this.#sound = sound;
    this.#report = report;
  }

  /**
   * A layer's picture, or null before it has one.
   * @param {string} clipId
   */
  textureOf(clipId) {
    const entry = this.#media.get(clipId);
    return entry?.isUploaded ? entry.texture : null;
  }

  /**
   * Follows the clock with every layer's media and uploads their pictures; drops the media
   * of Clips no longer playing. Answers whether every layer shows its frame, and the
   * largest drift (ms), in one record reused by every call (a frame allocates none).
   * @param {RenderLayer[]} layers
   * @param {number} clock
   * @param {number} frameSeconds
   * @returns {Synced}
   */
  sync(layers, clock, frameSeconds) {
    let isReady = true;
    let drift = 0;
    // Indexed loops: an array's `for...of` makes an iterator (unless the optimizer removes it).
    for (let i = 0; i < layers.length; i++) {
      const layer = /** @type {RenderLayer} */ (layers[i]);
      // A generator's TIME (s) is the Clip's position, as a media's time would be.
      if (layer.generator) layer.generator.uniforms.TIME = positionOf(layer, clock);
      const entry = this.#mediaOf(layer);
      const el = entry.el;
      if (entry.failed || !(el instanceof HTMLMediaElement)) {
        isReady &&= entry.isUploaded || entry.failed;
        continue;
      }
      if (entry.gain) entry.gain.gain.value = layer.volume;
      if (layer.kind === "camera") {
        isReady &&= el.readyState >= 2;
      } else {
        drift = Math.max(drift, this.#clock.follow(el, layer, clock, frameSeconds));
        const shown = layer.kind === "video" ? entry.presented : el.currentTime;
        const isSettled = this.#clock.isRealtime ||
          (shown !== null && Math.abs(shown - positionOf(layer, clock)) <= frameSeconds);
        isReady &&= el.readyState >= 2 && !el.seeking && isSettled;
      }
      // A video or a camera (an audio layer's element is no picture).
      if (el instanceof HTMLVideoElement && el.readyState >= 2) {
        upload(this.#gl, entry.texture, el);
        entry.isUploaded = true;
      }
    }
    // A Map deleted from while `forEach` walks it goes on with the next entry: no copy, no
    // iterator, no closure a frame.
    this.#syncing = layers;
    this.#media.forEach(this.#dropStopped);
    const synced = this.#synced;
    synced.isReady = isReady;
    synced.drift = drift;
    return synced;
  }

  /**
   * @param {RenderLayer} layer
   * @param {string} message
   */
  #fault(layer, message) {
    const entry = this.#media.get(layer.clipId);
    if (entry) {
      entry.failed = true;
      upload(this.#gl, entry.texture, card(layer.name));
      entry.isUploaded = true;
    }
    const key = `${layer.clipId} ${layer.source}`;
    if (this.#faults.has(key)) return;
    this.#faults.add(key);
    this.#report(layer.clipId, message);
  }

  /**
   * @param {RenderLayer} layer
   * @returns {Media}
   */
  #mediaOf(layer) {
    // Compared field by field: a key string built here would be a string a layer a frame.
    const known = this.#media.get(layer.clipId);
    if (known && known.kind === layer.kind && known.source === layer.source) return known;
    return this.#newMedia(layer, known);
  }

  /**
   * A layer's media made anew (out of `#mediaOf`: its closures would make a scope a frame
   * there), replacing `known`.
   * @param {RenderLayer} layer
   * @param {Media | undefined} known
   * @returns {Media}
   */
  #newMedia(layer, known) {
    if (known) this.#drop(layer.clipId);
    /** @type {Media} */
    const entry = {
      kind: layer.kind,
      source: layer.source,
      clipId: layer.clipId,
      texture: texture(this.#gl),
      el: null,
      gain: null,
      isUploaded: false,
      failed: false,
      presented: null,
    };
    this.#media.set(layer.clipId, entry);
    if (layer.kind === "image") {
      const img = new Image();
      img.onload = () => {
        upload(this.#gl, entry.texture, img);
        entry.isUploaded = true;
      };
      img.onerror = () => this.#fault(layer, "the browser cannot decode the image");
      img.src = this.#base + layer.source;
      entry.el = img;
    } else if (layer.kind === "video" || layer.kind === "audio" || layer.kind === "camera") {
      entry.el = this.#mediaElement(layer, entry);
    } else if (layer.kind === "generator") {
      // Transparent: its shader draws the picture over it (it reads no image input).
      entry.isUploaded = true;
    } else {
      upload(this.#gl, entry.texture, card(layer.name));
      entry.isUploaded = true;
    }
    return entry;
  }

  /**
   * @param {RenderLayer} layer
   * @param {Media} entry
   */
  #mediaElement(layer, entry) {
    const el = document.createElement(layer.kind === "audio" ? "audio" : "video");
    el.preload = "auto";
    if (el instanceof HTMLVideoElement) el.playsInline = true;
    el.onerror = () => this.#fault(layer, `the browser cannot decode the ${layer.kind}`);
    if (layer.kind === "camera") {
      el.muted = true;
      openCamera(layer).then((stream) => {
        el.srcObject = stream;
        el.play().catch(() => {});
      }, (error) => this.#fault(layer, `the camera cannot be opened: ${error.message}`));
      return el;
    }
    el.src = this.#base + layer.source;
    if (el instanceof HTMLVideoElement) {
      watchFrames(el, entry, () => this.#media.get(entry.clipId) === entry);
    }
    const { audio, master } = this.#sound;
    entry.gain = audio.createGain();
    audio.createMediaElementSource(el).connect(entry.gain);
    entry.gain.connect(master);
    return el;
  }

  /** @param {string} clipId */
  #drop(clipId) {
    const entry = this.#media.get(clipId);
    if (!entry) return;
    if (entry.el instanceof HTMLMediaElement) {
      entry.el.pause();
      const source = entry.el.srcObject;
      if (source instanceof MediaStream) source.getTracks().forEach((t) => t.stop());
      entry.el.removeAttribute("src");
      entry.el.load();
    }
    entry.gain?.disconnect();
    this.#gl.deleteTexture(entry.texture);
    this.#media.delete(clipId);
  }
}

/**
 * Whether a layer of `layers` plays the Clip `clipId` (a loop: a frame allocates nothing).
 * @param {RenderLayer[]} layers
 * @param {string} clipId
 */
function isPlaying(layers, clipId) {
  for (let i = 0; i < layers.length; i++) if (layers[i]?.clipId === clipId) return true;
  return false;
}

/**
 * The camera a layer names: `default` (or the player's synthetic `test-pattern`, which
 * the browser has not) the default camera; otherwise the device whose id or label is the
 * player's (the player knows Linux device names and labels, the browser its own ids).
 * @param {RenderLayer} layer
 */
async function openCamera(layer) {
  if (layer.source === "default" || layer.source === "test-pattern") {
    return navigator.mediaDevices.getUserMedia({ video: true });
  }
  const devices = (await navigator.mediaDevices.enumerateDevices())
    .filter((d) => d.kind === "videoinput");
  const device = devices.find((d) => d.deviceId === layer.source) ??
    devices.find((d) => d.label && (d.label === layer.name || d.label.startsWith(layer.name)));
  if (!device) throw new Error(`no camera "${layer.name}" among ${devices.length}`);
  return navigator.mediaDevices.getUserMedia({ video: { deviceId: { exact: device.deviceId } } });
}

/**
 * Notes the media time of each frame the video presents (a seek is done when it shows) while
 * `isCurrent()`.
 * @param {HTMLVideoElement} el
 * @param {Media} entry
 * @param {() => boolean} isCurrent
 */
function watchFrames(el, entry, isCurrent) {
  /** @type {VideoFrameRequestCallback} */
  const onFrame = (_now, meta) => {
    entry.presented = meta.mediaTime;
    if (isCurrent()) el.requestVideoFrameCallback(onFrame);
  };
  el.requestVideoFrameCallback(onFrame);
}
