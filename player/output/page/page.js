// The output page: draws the render state the player pushes (protocol/output.ts) with
// WebGL2 and plays its sound with WebAudio. It keeps no show logic and no clock of its
// own (clock.js); it answers the player's requests (a picture, a sound level, a recording).
import { clockOffset, onPong, playerNow, setReading } from "./clock.js";
import { createCompositor } from "./compositor.js";
import { createLayers, media } from "./layers.js";
import { createScaleController } from "./render_scale.js";
import { secretProtocols } from "./socket_secret.js";
import {
  analyser,
  measureLevel,
  setLevel,
  startRecording,
  stopRecording,
  syncSong,
} from "./sound.js";

const base = location.pathname.replace(/[^/]*$/, "");
const canvas = document.getElementById("out");
const compositor = createCompositor(canvas);
const gl = compositor?.gl ?? null;
const layers = gl
  ? createLayers(gl, base, (clipId, message) => send({ type: "fault", clipId, message }))
  : null;
if (gl) canvas.addEventListener("webglcontextlost", () => send({ type: "gl-lost" }));

let socket = null;
let state = null;
let drawnSeq = -1;
const stats = { frames: 0, dropped: 0, driftMs: 0, firstFrames: [] };
/** The player's frame budget (`scale`; null: the display's frame period) and its controller. */
let frameBudgetMs = null;
let scaler = null;
let scalerFps = 0;
let scaleReason = null;

/** The render scale controller for the display's rate (a new one when the rate changes). */
function scaleController() {
  const fps = state?.display.fps ?? 30;
  if (!scaler || scalerFps !== fps) {
    scaler = createScaleController({ fps, budgetMs: frameBudgetMs });
    scalerFps = fps;
    scaleReason = null;
  }
  return scaler;
}

/** Follows the clock with the sound and the layers' media; true when every layer is ready. */
function sync(clock) {
  const period = 1 / state.display.fps;
  syncSong(state.song, base, clock, period);
  const { isReady, drift } = layers.sync(state.layers, clock, period);
  stats.driftMs = Math.max(stats.driftMs, drift);
  return isReady;
}

/**
 * Draws the state at `clock` at the render scale, into a canvas of that scale or, for a picture
 * asked for (`isFull`), of the display's size. A recording records the canvas as it is: at a
 * lowered scale its frames are smaller, which keeps the encoder's cost down with the drawing's.
 */
function draw(clock, isFull = false) {
  const scale = scaleController().scale;
  const textureOf = (clipId) => {
    const entry = media.get(clipId);
    return entry?.isUploaded ? entry.texture : null;
  };
  compositor.draw(state, clock, textureOf, analyser, scale, isFull ? 1 : scale);
  if (drawnSeq !== state.seq) {
    drawnSeq = state.seq;
    stats.firstFrames.push({ seq: state.seq, clock });
    if (stats.firstFrames.length > 256) stats.firstFrames.shift();
  }
}

let lastFrameAt = 0;
/** Page time from which frames are judged for the render scale (3 s after the first). */
let judgedFrom = null;
function frame(now) {
  requestAnimationFrame(frame);
  // A lost context draws nothing: its frames are not counted (the player judges GL by them).
  if (!state || !gl || gl.isContextLost()) return;
  const period = 1000 / state.display.fps;
  if (now - lastFrameAt < period - 2) return;
  if (lastFrameAt > 0 && now - lastFrameAt > period * 1.5) {
    stats.dropped += Math.round((now - lastFrameAt) / period) - 1;
  }
  // The time since the frame before is what the render scale follows (not after a pause,
  // nor in the page's first seconds, when its media load and its programs compile).
  judgedFrom ??= now + 3000;
  if (lastFrameAt > 0 && now > judgedFrom) scaleController().frame(now - lastFrameAt);
  lastFrameAt = now;
  const clock = playerNow(now);
  sync(clock);
  draw(clock);
  stats.frames++;
}

// A hidden page gets no animation frames: the time it was hidden is no frame's.
document.addEventListener("visibilitychange", () => lastFrameAt = 0);

// ---- requests from the player ---------------------------------------------------------

/** Waits until every layer shows its frame; false when `deadlineMs` passed first. */
async function whenReady(deadlineMs) {
  const end = performance.now() + deadlineMs;
  while (performance.now() < end) {
    if (sync(playerNow())) return true;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  return false;
}

async function answerFrame(id) {
  // Without working GL the player starts another browser, which answers instead.
  if (!gl || gl.isContextLost()) {
    send({ type: "gl-lost" });
    return;
  }
  let isComplete = false;
  if (state) {
    isComplete = await whenReady(5000);
    // The picture at the display's size, drawn at the render scale of now.
    draw(playerNow(), true);
  }
  send({
    type: "frame",
    id,
    png: canvas.toDataURL("image/png"),
    seq: drawnSeq,
    isComplete,
    visibility: document.visibilityState,
    fullScreen: document.body.dataset.fullscreen === "true",
  });
}

let panic = null;
function onState(next) {
  if (panic !== null && next.panic !== panic) {
    // PANIC reloads the window: silent at once, then a fresh page takes up the show.
    setLevel(0);
    socket.onclose = null;
    location.reload();
    return;
  }
  panic = next.panic;
  state = next;
  setReading(next.clock);
  setLevel(next.level);
  // The window is the player's to size (DevTools); the page shows what the state says.
  document.body.dataset.fullscreen = String(next.fullScreen);
  // Seeks, pauses and sound follow at once, not at the next animation frame (which a
  // covered window may not get soon).
  if (gl) sync(playerNow());
}

function onPrograms(programs, drop = []) {
  for (const name of gl ? drop : []) compositor.dropProgram(name);
  for (const p of gl ? programs : []) {
    try {
      compositor.addProgram(p);
    } catch (error) {
      if (gl.isContextLost()) return;
      if (p.vertex) send({ type: "compile-error", program: p.name, log: error.message });
      else send({ type: "fault", clipId: "", message: `shader ${p.name}: ${error.message}` });
    }
  }
}

function onMessage(message) {
  switch (message.type) {
    case "programs":
      onPrograms(message.programs, message.drop);
      break;
    case "state":
      onState(message.state);
      break;
    case "pong":
      onPong(message.t0, message.now);
      break;
    case "scale":
      frameBudgetMs = message.frameBudgetMs;
      scaler = null;
      break;
    case "frame":
      answerFrame(message.id);
      break;
    case "level":
      measureLevel(message.ms).then((rms) => send({ type: "level", id: message.id, rms }));
      break;
    case "record-start":
      startRecording(canvas, state?.display.fps ?? 30, (bytes) => socket?.send(bytes));
      break;
    case "record-stop":
      stopRecording().then((done) => send({ type: "recorded", id: message.id, ...done }));
      break;
  }
}

function send(message) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function rendererName() {
  // A context lost before the socket opened could not say so then.
  if (!gl || gl.isContextLost()) return "unavailable";
  const info = gl.getExtension("WEBGL_debug_renderer_info");
  return String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : "webgl2");
}

function connect() {
  socket = new WebSocket(`ws://${location.host}${base}ws`, secretProtocols());
  socket.onopen = () => {
    send({ type: "hello", userAgent: navigator.userAgent, gl: rendererName() });
    send({ type: "ping", t0: performance.now() });
  };
  socket.onmessage = (event) => onMessage(JSON.parse(event.data));
  // The player went away (it restarts with the service): reload once it is back.
  socket.onclose = () => setTimeout(() => location.reload(), 1000);
}

setInterval(() => {
  send({ type: "ping", t0: performance.now() });
  // A second of drawing ends: the scale follows it (a hidden page's seconds are not judged).
  const { scale, reason } = document.visibilityState === "visible"
    ? scaleController().second()
    : { scale: scaleController().scale, reason: scaleReason };
  scaleReason = reason;
  send({
    type: "report",
    seq: drawnSeq,
    frames: stats.frames,
    dropped: stats.dropped,
    offset: clockOffset(),
    driftMs: stats.driftMs,
    firstFrames: stats.firstFrames,
    visibility: document.visibilityState,
    renderScale: scale,
    scaleReason,
  });
  stats.frames = 0;
  stats.dropped = 0;
  stats.driftMs = 0;
  stats.firstFrames = [];
}, 1000);

connect();
requestAnimationFrame(frame);
