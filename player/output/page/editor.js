// The editor window's page: the preset open in the editor (editor_ui.js) and a live preview
// of it over the output's picture, drawn by the output page's own modules (compositor, layers,
// clock, sound: silent here) from the state the player sends. Its edits go to the player,
// which runs them as every client's edits (protocol/editor_page.ts).
import { onPong, playerNow, setReading } from "./clock.js";
import { createCompositor } from "./compositor.js";
import { createLayers, media } from "./layers.js";
import { analyser, setLevel, syncSong } from "./sound.js";
import { secretProtocols } from "./socket_secret.js";
import {
  codeAnswered,
  setPreviewNote,
  setStatus,
  showPreset,
  showProblems,
  wire,
} from "./editor_ui.js";

const base = location.pathname.replace(/[^/]*$/, "");
const canvas = document.getElementById("preview");
const compositor = createCompositor(canvas);
const gl = compositor?.gl ?? null;
const layers = gl ? createLayers(gl, base, () => {}) : null;
setLevel(0);

let socket = null;
let state = null;
let nextId = 1;
/** The code of each edit of the code sent and not answered yet, by its id. */
const applying = new Map();

function send(message) {
  if (socket?.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

/** Sends an edit (`edit`, `param`, `history`); its answer shows in the status line. */
function sendEdit(message) {
  const id = nextId++;
  setStatus("busy", "Checking...");
  if (message.type === "edit") applying.set(id, message.code);
  send({ ...message, id });
}

function onEdited(answer) {
  const applied = applying.get(answer.id);
  applying.delete(answer.id);
  if (applied !== undefined) codeAnswered(applied, answer.ok);
  if (answer.ok) {
    setStatus("done", `${answer.message} (revision ${answer.revision})`);
    showProblems([]);
  } else {
    setStatus("refused", `Refused: ${answer.message}`);
    showProblems(answer.problems, answer.message);
  }
}

function onPrograms(programs, drop = []) {
  for (const name of gl ? drop : []) compositor.dropProgram(name);
  for (const p of gl ? programs : []) {
    try {
      compositor.addProgram(p);
    } catch (error) {
      if (gl.isContextLost()) return;
      send({ type: "compile-error", program: p.name, log: error.message });
    }
  }
}

function onState(next) {
  state = next;
  setReading(next.clock);
  if (gl) layers.sync(state.layers, playerNow(), 1 / state.display.fps);
}

/**
 * The preview's frames a second at most: it draws the show's picture a second time in the same
 * browser, which took the output from 29 to 20 fps at the display's rate on software GL
 * (`bench/editor_bench.ts`); a preview needs less.
 */
const PREVIEW_FPS = 10;

let lastFrameAt = 0;
/** The preview's frames drawn (`bench/editor_bench.ts` reads them). */
let previewFrames = 0;
function frame(now) {
  requestAnimationFrame(frame);
  // A hidden window (minimized, or behind another on a screen that says so) draws nothing.
  if (!state || !gl || document.visibilityState === "hidden") return;
  const period = 1000 / Math.min(state.display.fps, PREVIEW_FPS);
  if (now - lastFrameAt < period - 2) return;
  lastFrameAt = now;
  const clock = playerNow(now);
  syncSong(state.song, base, clock, period / 1000);
  layers.sync(state.layers, clock, period / 1000);
  compositor.draw(state, clock, (clipId) => {
    const entry = media.get(clipId);
    return entry?.isUploaded ? entry.texture : null;
  }, analyser);
  document.body.dataset.drawnSeq = String(state.seq);
  document.body.dataset.previewFrames = String(++previewFrames);
}

function onEditor({ preset, openedAt }) {
  showPreset(preset, sendEdit);
  // An editor opened again while this page stayed is shown once this page shows it.
  send({ type: "shown", openedAt });
  const isDrawn = preset.type === "isf" || preset.builtIn;
  setPreviewNote(
    isDrawn ? "" : `No preview: a preset of type "${preset.type}" has no shader code to draw`,
  );
}

/** What each message from the player does. */
const HANDLERS = {
  editor: onEditor,
  edited: onEdited,
  "preview-refused": (m) => setPreviewNote(m.message),
  programs: (m) => onPrograms(m.programs, m.drop),
  state: (m) => onState(m.state),
  pong: (m) => onPong(m.t0, m.now),
};

/** Waits before trying again to connect after a refusal (doubling, at most 30 s). */
let retryMs = 1000;

function connect() {
  let isOpen = false;
  socket = new WebSocket(`ws://${location.host}${base}editor-ws`, secretProtocols());
  socket.onopen = () => {
    isOpen = true;
    retryMs = 1000;
    send({ type: "hello", gl: gl ? "webgl2" : "unavailable" });
    send({ type: "ping", t0: performance.now() });
  };
  socket.onmessage = (event) => {
    const message = JSON.parse(event.data);
    HANDLERS[message.type]?.(message);
  };
  // A page while another has the editor (code 4000: both connected at once), or whose editor
  // closed (4001), stays as it is; one closed for what it sent (1008, 1009: a bug of this page)
  // says so. The player went away (it restarts with the service): reload once it is back. A
  // socket refused (no editor open, another page has it, no player yet, not this browser's
  // secret yet) is tried again later and later.
  socket.onclose = (event) => {
    if (event.code === 4000) setStatus("refused", "The editor is open in another window");
    else if (event.code === 4001) setStatus("refused", "The editor was closed");
    else if (event.code === 1008 || event.code === 1009) {
      setStatus("refused", `The player closed this page's connection: ${event.reason}`);
    } else if (isOpen) setTimeout(() => location.reload(), 1000);
    else {
      setStatus("refused", "The editor is closed, or open in another window");
      setTimeout(connect, retryMs);
      retryMs = Math.min(retryMs * 2, 30_000);
    }
  };
}

if (!gl) setPreviewNote("No preview: this browser gives the page no WebGL2");
wire(sendEdit);
setInterval(() => send({ type: "ping", t0: performance.now() }), 1000);
connect();
requestAnimationFrame(frame);
