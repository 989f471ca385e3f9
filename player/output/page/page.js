// The output page: draws the render state the player pushes (protocol/output.ts) with
// WebGL2 and plays its sound with WebAudio. It keeps no show logic and no clock of its
// own: positions come from the player's clock, mapped onto this page's by ping/pong.
import { compile, pass, quad, target, texture, upload, uploadRow } from "./gl.js";

const base = location.pathname.replace(/[^/]*$/, "");
const canvas = document.getElementById("out");

const COMPOSITE = `#version 300 es
precision highp float;
in vec2 v_uv; out vec4 outColor;
uniform sampler2D u_image; uniform float opacity;
void main() { vec4 c = texture(u_image, v_uv); outColor = vec4(c.rgb, c.a * opacity); }`;
const PRESENT = `#version 300 es
precision highp float;
in vec2 v_uv; out vec4 outColor;
uniform sampler2D u_image; uniform float zoom;
void main() { outColor = texture(u_image, (v_uv - 0.5) / zoom + 0.5); }`;

/**
 * WebGL2 that compiles: without it (no context, or a GPU that fails every shader) the page
 * still connects and says so, and the player starts the browser again with software GL.
 */
function openGl() {
  const context = canvas.getContext("webgl2", {
    // Not kept between frames (a copy less a frame): a picture is read in the task that drew it.
    preserveDrawingBuffer: false,
    alpha: false,
    antialias: false,
  });
  if (!context) return { gl: null, internal: null };
  try {
    const internal = { composite: compile(context, COMPOSITE), present: compile(context, PRESENT) };
    quad(context);
    return { gl: context, internal };
  } catch {
    return { gl: null, internal: null };
  }
}
const { gl, internal } = openGl();
canvas.addEventListener("webglcontextlost", () => send({ type: "gl-lost" }));
const programs = new Map();

let socket = null;
let state = null;
let stateAt = 0;
let drawnSeq = -1;
/** Player clock minus page clock, from the ping with the shortest round trip lately. */
let offset = null;
let samples = [];
const media = new Map();
const faults = new Set();
const stats = { frames: 0, dropped: 0, driftMs: 0, firstFrames: [] };
let targets = null;
const spectrum = gl ? { texture: texture(gl), wave: texture(gl) } : null;

// ---- clock ---------------------------------------------------------------------------

function playerNow(t = performance.now()) {
  const clock = state.clock;
  if (clock.rate === 0) return clock.now;
  return offset === null ? clock.now + (t - stateAt) : t + offset;
}

function positionOf(item, clock) {
  const p = item.position + item.rate * (clock - item.at) / 1000;
  if (item.loop && item.duration > 0) return ((p % item.duration) + item.duration) % item.duration;
  return Math.min(item.duration ?? Infinity, Math.max(0, p));
}

function onPong(message) {
  const t1 = performance.now();
  samples.push({ rtt: t1 - message.t0, offset: message.now - (message.t0 + t1) / 2 });
  samples = samples.slice(-8);
  offset = samples.reduce((a, b) => (b.rtt < a.rtt ? b : a)).offset;
}

// ---- sound ---------------------------------------------------------------------------

const audio = new AudioContext();
const master = audio.createGain();
const analyser = audio.createAnalyser();
const recordDestination = audio.createMediaStreamDestination();
const levelMeter = audio.createAnalyser();
master.connect(audio.destination);
master.connect(recordDestination);
master.connect(levelMeter);
analyser.fftSize = 512;
const songGain = audio.createGain();
songGain.connect(analyser);
songGain.connect(master);
let song = null;

function resumeAudio() {
  if (audio.state !== "running") audio.resume().catch(() => {});
}

/** Keeps a media element on the clock: plays and nudges forward, seeks otherwise. */
function follow(el, item, clock, frameSeconds) {
  const want = positionOf(item, clock);
  const isRealtime = state.clock.rate !== 0 && item.rate > 0;
  const drift = el.currentTime - want;
  if (isRealtime) {
    if (el.paused) el.play().catch(() => {});
    if (Math.abs(drift) > 0.5) el.currentTime = want;
    else if (Math.abs(drift) > frameSeconds) {
      el.playbackRate = item.rate * (1 - Math.max(-0.2, Math.min(0.2, drift)));
    } else el.playbackRate = item.rate;
  } else {
    if (!el.paused) el.pause();
    if (Math.abs(drift) > frameSeconds / 2 && !el.seeking) el.currentTime = want;
  }
  return Math.abs(drift) * 1000;
}

function syncSong(clock, frameSeconds) {
  const wanted = state.song;
  if (!wanted) {
    if (song) song.el.pause();
    return;
  }
  if (!song || song.source !== wanted.source) {
    if (song) song.el.pause();
    const el = new Audio(base + wanted.source);
    el.preload = "auto";
    const node = audio.createMediaElementSource(el);
    node.connect(songGain);
    song = { el, source: wanted.source };
  }
  songGain.gain.value = wanted.volume;
  follow(
    song.el,
    { ...wanted, loop: false, duration: song.el.duration || Infinity },
    clock,
    frameSeconds,
  );
}

// ---- media of the layers -------------------------------------------------------------

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
  send({ type: "fault", clipId: layer.clipId, message });
}

function mediaOf(layer) {
  const key = `${layer.kind} ${layer.source}`;
  let entry = media.get(layer.clipId);
  if (entry && entry.key === key) return entry;
  if (entry) dropMedia(layer.clipId);
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
    } else {
      el.src = base + layer.source;
      if (layer.kind === "video") watchFrames(el, entry);
      entry.gain = audio.createGain();
      audio.createMediaElementSource(el).connect(entry.gain);
      entry.gain.connect(master);
    }
    entry.el = el;
  } else {
    upload(gl, entry.texture, card(layer.name));
    entry.isUploaded = true;
  }
  return entry;
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
  entry.presented = null;
  const onFrame = (_now, meta) => {
    entry.presented = meta.mediaTime;
    if (media.get(entry.clipId) === entry) el.requestVideoFrameCallback(onFrame);
  };
  el.requestVideoFrameCallback(onFrame);
}

function dropMedia(clipId) {
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

/** Follows the clock with every layer's media; true when all show the wanted frame. */
function syncLayers(clock, frameSeconds) {
  let isReady = true;
  let drift = 0;
  for (const layer of state.layers) {
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
      const isSettled = state.clock.rate !== 0 ||
        (shown !== null && Math.abs(shown - positionOf(layer, clock)) <= frameSeconds);
      isReady &&= entry.el.readyState >= 2 && !entry.el.seeking && isSettled;
    }
    if (layer.kind !== "audio" && entry.el.readyState >= 2) {
      upload(gl, entry.texture, entry.el);
      entry.isUploaded = true;
    }
  }
  const playing = new Set(state.layers.map((l) => l.clipId));
  for (const id of [...media.keys()]) if (!playing.has(id)) dropMedia(id);
  stats.driftMs = Math.max(stats.driftMs, drift);
  return isReady;
}

// ---- drawing -------------------------------------------------------------------------

function ensureTargets(width, height) {
  if (targets && targets.width === width && targets.height === height) return;
  canvas.width = width;
  canvas.height = height;
  targets = { width, height, a: target(gl, width, height), b: target(gl, width, height) };
  targets.out = target(gl, width, height);
  targets.spare = target(gl, width, height);
}

function parseColor(text) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(text);
  return m ? [1, 2, 3].map((i) => parseInt(m[i], 16) / 255) : [0, 0, 0];
}

function runPasses(passes, source, time, size, extra = {}) {
  let input = source;
  let flip = targets.a;
  for (const p of passes) {
    const compiled = programs.get(p.program);
    if (!compiled) continue;
    const values = { u_resolution: [size.width, size.height], u_time: time / 1000, ...p.uniforms };
    pass(gl, compiled, flip, { u_image: input, ...extra }, values, size);
    input = flip.texture;
    flip = flip === targets.a ? targets.b : targets.a;
  }
  return input;
}

function draw(clock) {
  const { display } = state;
  ensureTargets(display.width, display.height);
  const size = { width: display.width, height: display.height };
  const [r, g, b] = parseColor(display.backgroundColor);
  gl.bindFramebuffer(gl.FRAMEBUFFER, targets.out.fb);
  gl.viewport(0, 0, size.width, size.height);
  gl.clearColor(r, g, b, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  for (const layer of state.layers) {
    const entry = media.get(layer.clipId);
    if (!entry?.isUploaded || layer.kind === "audio") continue;
    // Neutral filters cost nothing: a full-screen pass less per layer on software GL.
    const f = layer.filters;
    const isNeutral = f.brightness === 0 && f.contrast === 1 && f.saturation === 1 &&
      f.hue === 0 && f.blur === 0;
    const passes = isNeutral
      ? layer.effects
      : [{ program: "layer", uniforms: f }, ...layer.effects];
    const result = runPasses(passes, entry.texture, clock, size);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    pass(
      gl,
      internal.composite,
      targets.out,
      { u_image: result },
      { opacity: layer.opacity },
      size,
    );
    gl.disable(gl.BLEND);
  }
  let picture = targets.out.texture;
  if (state.visualizers.length > 0) {
    const bins = new Uint8Array(analyser.frequencyBinCount);
    analyser.getByteFrequencyData(bins);
    uploadRow(gl, spectrum.texture, bins);
    analyser.getByteTimeDomainData(bins);
    uploadRow(gl, spectrum.wave, bins);
    const extra = { u_spectrum: spectrum.texture, u_wave: spectrum.wave };
    picture = runPasses(state.visualizers, picture, clock, size, extra);
  }
  pass(gl, internal.present, null, { u_image: picture }, { zoom: display.zoom }, size);
  if (drawnSeq !== state.seq) {
    drawnSeq = state.seq;
    stats.firstFrames.push({ seq: state.seq, clock });
    if (stats.firstFrames.length > 256) stats.firstFrames.shift();
  }
}

let lastFrameAt = 0;
function frame(now) {
  requestAnimationFrame(frame);
  if (!state || !gl) return;
  const period = 1000 / state.display.fps;
  if (now - lastFrameAt < period - 2) return;
  if (lastFrameAt > 0 && now - lastFrameAt > period * 1.5) {
    stats.dropped += Math.round((now - lastFrameAt) / period) - 1;
  }
  lastFrameAt = now;
  const clock = playerNow(now);
  syncSong(clock, period / 1000);
  syncLayers(clock, period / 1000);
  draw(clock);
  stats.frames++;
}

// ---- requests from the player ---------------------------------------------------------

/** Waits until every layer shows its frame; false when `deadlineMs` passed first. */
async function whenReady(deadlineMs) {
  const end = performance.now() + deadlineMs;
  while (performance.now() < end) {
    const period = 1 / state.display.fps;
    if (syncLayers(playerNow(), period)) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

async function answerFrame(id) {
  // Without working GL the player starts another browser, which answers instead.
  if (!gl || gl.isContextLost()) return;
  let isComplete = false;
  if (state && gl) {
    isComplete = await whenReady(5000);
    draw(playerNow());
  }
  const png = canvas.toDataURL("image/png");
  send({
    type: "frame",
    id,
    png,
    seq: drawnSeq,
    isComplete,
    visibility: document.visibilityState,
    fullScreen: document.body.dataset.fullscreen === "true",
  });
}

async function answerLevel(id, ms) {
  resumeAudio();
  const buf = new Float32Array(levelMeter.fftSize);
  let sum = 0, n = 0;
  // The meter holds the last fftSize samples: those from before the request are skipped.
  const windowMs = (1000 * levelMeter.fftSize) / audio.sampleRate;
  await new Promise((resolve) => setTimeout(resolve, windowMs + 10));
  const end = performance.now() + ms;
  while (performance.now() < end) {
    levelMeter.getFloatTimeDomainData(buf);
    for (const v of buf) sum += v * v;
    n += buf.length;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  send({ type: "level", id, rms: Math.sqrt(sum / Math.max(1, n)) });
}

let recorder = null;
let chunks = Promise.resolve();
function startRecording() {
  resumeAudio();
  const stream = canvas.captureStream(state?.display.fps ?? 30);
  for (const track of recordDestination.stream.getAudioTracks()) stream.addTrack(track);
  recorder = new MediaRecorder(stream, { mimeType: "video/webm;codecs=vp8,opus" });
  const startedAt = performance.now();
  recorder.ondataavailable = (event) => {
    chunks = chunks.then(() => event.data.arrayBuffer()).then((bytes) => socket?.send(bytes));
  };
  recorder.onstop = () => {
    const durationMs = performance.now() - startedAt;
    chunks = chunks.then(() =>
      send({
        type: "recorded",
        id: recorder.id,
        durationMs,
        mimeType: recorder.mimeType,
      })
    );
  };
  recorder.start(500);
}

function stopRecording(id) {
  if (!recorder || recorder.state === "inactive") {
    send({ type: "recorded", id, durationMs: 0, mimeType: "" });
    return;
  }
  recorder.id = id;
  recorder.stop();
}

let panic = null;
function onState(next) {
  if (panic !== null && next.panic !== panic) {
    // PANIC reloads the window: silent at once, then a fresh page takes up the show.
    master.gain.value = 0;
    socket.onclose = null;
    location.reload();
    return;
  }
  panic = next.panic;
  state = next;
  master.gain.setValueAtTime(next.level, audio.currentTime);
  stateAt = performance.now();
  // The window is the player's to size (DevTools); the page shows what the state says.
  document.body.dataset.fullscreen = String(next.fullScreen);
  // Seeks, pauses and sound follow at once, not at the next animation frame (which a
  // covered window may not get soon).
  if (gl) {
    const period = 1 / next.display.fps;
    syncSong(playerNow(), period);
    syncLayers(playerNow(), period);
  }
}

function onMessage(message) {
  switch (message.type) {
    case "programs":
      for (const p of gl ? message.programs : []) {
        try {
          programs.set(p.name, compile(gl, p.source));
        } catch (error) {
          if (gl.isContextLost()) break;
          send({ type: "fault", clipId: "", message: `shader ${p.name}: ${error.message}` });
        }
      }
      break;
    case "state":
      onState(message.state);
      break;
    case "pong":
      onPong(message);
      break;
    case "frame":
      answerFrame(message.id);
      break;
    case "level":
      answerLevel(message.id, message.ms);
      break;
    case "record-start":
      startRecording();
      break;
    case "record-stop":
      stopRecording(message.id);
      break;
  }
}

function send(message) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  socket = new WebSocket(`ws://${location.host}${base}ws`);
  socket.onopen = () => {
    const info = gl?.getExtension("WEBGL_debug_renderer_info");
    const renderer = !gl
      ? "unavailable"
      : info
      ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL)
      : "webgl2";
    send({ type: "hello", userAgent: navigator.userAgent, gl: String(renderer) });
    send({ type: "ping", t0: performance.now() });
  };
  socket.onmessage = (event) => onMessage(JSON.parse(event.data));
  // The player went away (it restarts with the service): reload once it is back.
  socket.onclose = () => setTimeout(() => location.reload(), 1000);
}

setInterval(() => {
  send({ type: "ping", t0: performance.now() });
  send({
    type: "report",
    seq: drawnSeq,
    frames: stats.frames,
    dropped: stats.dropped,
    offset: offset ?? 0,
    driftMs: stats.driftMs,
    firstFrames: stats.firstFrames,
    visibility: document.visibilityState,
  });
  stats.frames = 0;
  stats.dropped = 0;
  stats.driftMs = 0;
  stats.firstFrames = [];
}, 1000);

connect();
requestAnimationFrame(frame);
