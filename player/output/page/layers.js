// The media of the layers: an image, a video or an audio element, or a camera, per playing
// Clip, each with its texture and (for sound) its gain into the master; kept on the clock.
import { follow, isRealtime, positionOf } from "./clock.js";
import { texture, upload } from "./gl.js";
import { audio, master } from "./sound.js";

/** The media by Clip id. */
export const media = new Map();
const faults = new Set();

/** The Clip's card: its name on grey, shown when its media cannot be. */
function card(name) {
  const c = document.createElement("canvas");
  c.width = 640;
  c.height = 360;
  const g = c.getContext("2d");
  g.fillStyle = "#30343c";
  g.fillRect(0, 0, c.width, c.height);
  g.fillStyle = "#e8e8e8";
  g.font = "bold 40px sans-serif";
  g.textAlign = "center";
  g.fillText(name, c.width / 2, c.height / 2);
  return c;
}

/**
 * The layers' media for `gl`, its files under `base`; `report(clipId, message)` is told
 * once per file that cannot be shown.
 */
// long: the layers' closure, like a class: their media and the short functions over them
export function createLayers(gl, base, report) {
  function fault(layer, message) {
    const entry = media.get(layer.clipId);
    if (entry) {
      entry.failed = true;
      upload(gl, entry.texture, card(layer.name));
      entry.isUploaded = true;
    }
    const key = `${layer.clipId} ${layer.source}`;
    if (faults.has(key)) return;
    faults.add(key);
    report(layer.clipId, message);
  }

  function mediaOf(layer) {
    const key = `${layer.kind} ${layer.source}`;
    let entry = media.get(layer.clipId);
    if (entry && entry.key === key) return entry;
    if (entry) drop(layer.clipId);
    entry = {
      key,
      clipId: layer.clipId,
      texture: texture(gl),
      el: null,
      gain: null,
      isUploaded: false,
      failed: false,
      presented: null,
    };
    media.set(layer.clipId, entry);
    if (layer.kind === "image") {
      const img = new Image();
      img.onload = () => {
        upload(gl, entry.texture, img);
        entry.isUploaded = true;
      };
      img.onerror = () => fault(layer, "the browser cannot decode the image");
      img.src = base + layer.source;
      entry.el = img;
    } else if (layer.kind === "video" || layer.kind === "audio" || layer.kind === "camera") {
      entry.el = mediaElement(layer, entry);
    } else {
      upload(gl, entry.texture, card(layer.name));
      entry.isUploaded = true;
    }
    return entry;
  }

  function mediaElement(layer, entry) {
    const el = document.createElement(layer.kind === "audio" ? "audio" : "video");
    el.preload = "auto";
    el.playsInline = true;
    el.onerror = () => fault(layer, `the browser cannot decode the ${layer.kind}`);
    if (layer.kind === "camera") {
      el.muted = true;
      openCamera(layer).then((stream) => {
        el.srcObject = stream;
        el.play().catch(() => {});
      }, (error) => fault(layer, `the camera cannot be opened: ${error.message}`));
      return el;
    }
    el.src = base + layer.source;
    if (layer.kind === "video") watchFrames(el, entry);
    entry.gain = audio.createGain();
    audio.createMediaElementSource(el).connect(entry.gain);
    entry.gain.connect(master);
    return el;
  }

  function drop(clipId) {
    const entry = media.get(clipId);
    if (!entry) return;
    if (entry.el instanceof HTMLMediaElement) {
      entry.el.pause();
      entry.el.srcObject?.getTracks().forEach((t) => t.stop());
      entry.el.removeAttribute("src");
      entry.el.load();
    }
    entry.gain?.disconnect();
    gl.deleteTexture(entry.texture);
    media.delete(clipId);
  }

  /**
   * Follows the clock with every layer's media and uploads their pictures; drops the media
   * of Clips no longer playing. Returns whether every layer shows its frame, and the
   * largest drift (ms).
   */
  function sync(layers, clock, frameSeconds) {
    let isReady = true;
    let drift = 0;
    for (const layer of layers) {
      const entry = mediaOf(layer);
      if (entry.failed || !(entry.el instanceof HTMLMediaElement)) {
        isReady &&= entry.isUploaded || entry.failed;
        continue;
      }
      if (entry.gain) entry.gain.gain.value = layer.volume;
      if (layer.kind === "camera") {
        isReady &&= entry.el.readyState >= 2;
      } else {
        drift = Math.max(drift, follow(entry.el, layer, clock, frameSeconds));
        const shown = layer.kind === "video" ? entry.presented : entry.el.currentTime;
        const isSettled = isRealtime() ||
          (shown !== null && Math.abs(shown - positionOf(layer, clock)) <= frameSeconds);
        isReady &&= entry.el.readyState >= 2 && !entry.el.seeking && isSettled;
      }
      if (layer.kind !== "audio" && entry.el.readyState >= 2) {
        upload(gl, entry.texture, entry.el);
        entry.isUploaded = true;
      }
    }
    const playing = new Set(layers.map((l) => l.clipId));
    for (const id of [...media.keys()]) if (!playing.has(id)) drop(id);
    return { isReady, drift };
  }

  return { sync };
}

/**
 * The camera a layer names: `default` (or the player's synthetic `test-pattern`, which
 * the browser has not) the default camera; otherwise the device whose id or label is the
 * player's (the player knows Linux device names and labels, the browser its own ids).
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

/** Notes the media time of each frame the video presents: a seek is done when it shows. */
function watchFrames(el, entry) {
  const onFrame = (_now, meta) => {
    entry.presented = meta.mediaTime;
    if (media.get(entry.clipId) === entry) el.requestVideoFrameCallback(onFrame);
  };
  el.requestVideoFrameCallback(onFrame);
}
