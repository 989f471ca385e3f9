// @ts-check
// The editor window's page: the preset open in the editor (editor_ui.js) and a live preview
// of it over the output's picture, drawn by the output page's own modules (compositor, layers,
// clock, sound: silent here) from the state the player sends. Its edits go to the player,
// which runs them as every client's edits (protocol/editor_page.ts).
import { PlayerClock } from "./clock.js";
import { Compositor } from "./compositor.js";
import { EditorUi } from "./editor_ui.js";
import { Layers } from "./layers.js";
import { secretProtocols } from "./socket_secret.js";
import { Sound } from "./sound.js";

/** @typedef {import("../../../protocol/output.ts").RenderState} RenderState */
/** @typedef {import("../../../protocol/output.ts").ShaderProgram} ShaderProgram */
/** @typedef {import("../../../protocol/editor_page.ts").ToEditor} ToEditor */
/** @typedef {import("../../../protocol/editor_page.ts").FromEditor} FromEditor */
/** @typedef {import("./editor_ui.js").Edit} Edit */

/**
 * The preview's frames a second at most: it draws the show's picture a second time in the same
 * browser, which took the output from 29 to 20 fps at the display's rate on software GL
 * (`bench/editor_bench.ts`); a preview needs less.
 */
const PREVIEW_FPS = 10;

/** The editor page: its socket to the player, the controls, and the preview. */
class EditorPage {
  #base = location.pathname.replace(/[^/]*$/, "");
  #canvas = /** @type {HTMLCanvasElement} */ (document.getElementById("preview"));
  #ui = new EditorUi();
  #clock = new PlayerClock();
  #sound = new Sound(this.#clock);
  #compositor = Compositor.create(this.#canvas);
  #layers = this.#compositor
    ? new Layers(this.#compositor.gl, {
      base: this.#base,
      clock: this.#clock,
      sound: this.#sound,
      report: () => {},
    })
    : null;
  /** @type {WebSocket | null} */
  #socket = null;
  /** @type {RenderState | null} */
  #state = null;
  #nextId = 1;
  /**
   * The code and vertex shader of each edit of the code sent and not answered yet, by its id.
   * @type {Map<number, {code: string, vertex: string}>}
   */
  #applying = new Map();
  #lastFrameAt = 0;
  /** The programs the player sent this page (compiled, or refused). */
  #programsTaken = 0;
  /** The programs this page's GL refused (did not compile or link). */
  #compileErrors = 0;
  /** The preview's frames drawn (`bench/editor_bench.ts` reads them). */
  #previewFrames = 0;
  /** Waits before trying again to connect after a refusal (doubling, at most 30 s). */
  #retryMs = 1000;
  /** A layer's picture (made once: a frame makes no closure). */
  #textureOf = (/** @type {string} */ clipId) => this.#layers?.textureOf(clipId) ?? null;
  /** The animation frame callback (made once, as `#textureOf`). */
  #onFrame = (/** @type {number} */ t) => this.#frame(t);

  /** @param {FromEditor} message */
  #send(message) {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }

  /**
   * Sends an edit (`edit`, `param`, `history`); its answer shows in the status line.
   * @param {Edit} message
   */
  #sendEdit(message) {
    const id = this.#nextId++;
    this.#ui.setStatus("busy", "Checking...");
    if (message.type === "edit") {
      this.#applying.set(id, { code: message.code, vertex: message.vertexCode ?? "" });
    }
    this.#send({ ...message, id });
  }

  /** @param {Extract<ToEditor, {type: "edited"}>} answer */
  #onEdited(answer) {
    const applied = this.#applying.get(answer.id);
    this.#applying.delete(answer.id);
    if (applied !== undefined) this.#ui.codeAnswered(applied, answer.ok);
    if (answer.ok) {
      this.#ui.setStatus("done", `${answer.message} (revision ${answer.revision})`);
      this.#ui.showProblems([]);
    } else {
      this.#ui.setStatus("refused", `Refused: ${answer.message}`);
      this.#ui.showProblems(answer.problems, answer.message);
    }
  }

  /**
   * @param {ShaderProgram[]} programs
   * @param {string[]} drop
   */
  #onPrograms(programs, drop = []) {
    this.#programsTaken += programs.length;
    this.#compositor?.takePrograms(programs, drop, (p, log) => {
      this.#compileErrors++;
      this.#send({ type: "compile-error", program: p.name, log });
    });
    this.#showObjects();
  }

  /** @param {RenderState} next */
  #onState(next) {
    this.#state = next;
    this.#clock.setReading(next.clock);
    this.#layers?.sync(next.layers, this.#clock.now(), 1 / next.display.fps);
  }

  /** @param {number} now */
  #frame(now) {
    requestAnimationFrame(this.#onFrame);
    const state = this.#state, layers = this.#layers, compositor = this.#compositor;
    // A hidden window (minimized, or behind another on a screen that says so) draws nothing.
    if (!state || !layers || !compositor || document.visibilityState === "hidden") return;
    const period = 1000 / Math.min(state.display.fps, PREVIEW_FPS);
    if (now - this.#lastFrameAt < period - 2) return;
    this.#lastFrameAt = now;
    const clock = this.#clock.now(now);
    this.#sound.syncSong(state.song, this.#base, clock, period / 1000);
    layers.sync(state.layers, clock, period / 1000);
    compositor.draw(state, clock, this.#textureOf, this.#sound.analyser);
    document.body.dataset.drawnSeq = String(state.seq);
    document.body.dataset.previewFrames = String(++this.#previewFrames);
  }

  /**
   * The page's live GL objects by kind, the programs it was sent and those its GL refused, in
   * its DOM (`data-gl-objects`, `data-programs-taken`, `data-compile-errors`: what a test reads
   * over DevTools) and, every second, to the player (`/health` `output.editor`).
   */
  #showObjects(isReport = false) {
    const objects = this.#compositor?.objects ?? null;
    if (objects) document.body.dataset.glObjects = JSON.stringify(objects);
    document.body.dataset.programsTaken = String(this.#programsTaken);
    document.body.dataset.compileErrors = String(this.#compileErrors);
    if (isReport) {
      this.#send({
        type: "report",
        glObjects: objects,
        compileErrors: this.#compileErrors,
      });
    }
  }

  /** @param {Extract<ToEditor, {type: "editor"}>} message */
  #onEditor({ preset, openedAt }) {
    this.#ui.showPreset(preset, (edit) => this.#sendEdit(edit));
    // An editor opened again while this page stayed is shown once this page shows it.
    this.#send({ type: "shown", openedAt });
    const isDrawn = preset.type === "isf" || preset.builtIn;
    this.#ui.setPreviewNote(
      isDrawn ? "" : `No preview: a preset of type "${preset.type}" has no shader code to draw`,
    );
  }

  /**
   * What each message from the player does.
   * @param {ToEditor} message
   */
  #onMessage(message) {
    switch (message.type) {
      case "editor":
        return this.#onEditor(message);
      case "edited":
        return this.#onEdited(message);
      case "preview-refused":
        return this.#ui.setPreviewNote(message.message);
      case "programs":
        return this.#onPrograms(message.programs, message.drop);
      case "state":
        return this.#onState(message.state);
      case "pong":
        return this.#clock.onPong(message.t0, message.now);
    }
  }

  #connect() {
    let isOpen = false;
    const socket = new WebSocket(`ws://${location.host}${this.#base}editor-ws`, secretProtocols());
    this.#socket = socket;
    socket.onopen = () => {
      isOpen = true;
      this.#retryMs = 1000;
      this.#send({ type: "hello", gl: this.#compositor ? "webgl2" : "unavailable" });
      this.#send({ type: "ping", t0: performance.now() });
    };
    socket.onmessage = (event) => this.#onMessage(JSON.parse(event.data));
    socket.onclose = (event) => this.#closed(event, isOpen);
  }

  /**
   * A page while another has the editor (code 4000: both connected at once), or whose editor
   * closed (4001), stays as it is; one closed for what it sent (1008, 1009: a bug of this page)
   * says so. The player went away (it restarts with the service): reload once it is back. A
   * socket refused (no editor open, another page has it, no player yet, not this browser's
   * secret yet) is tried again later and later.
   * @param {CloseEvent} event
   * @param {boolean} wasOpen
   */
  #closed(event, wasOpen) {
    const ui = this.#ui;
    if (event.code === 4000) ui.setStatus("refused", "The editor is open in another window");
    else if (event.code === 4001) ui.setStatus("refused", "The editor was closed");
    else if (event.code === 1008 || event.code === 1009) {
      ui.setStatus("refused", `The player closed this page's connection: ${event.reason}`);
    } else if (wasOpen) setTimeout(() => location.reload(), 1000);
    else {
      ui.setStatus("refused", "The editor is closed, or open in another window");
      setTimeout(() => this.#connect(), this.#retryMs);
      this.#retryMs = Math.min(this.#retryMs * 2, 30_000);
    }
  }

  /** Starts the page: silent, its controls wired, its socket, its frames. */
  start() {
    this.#sound.setLevel(0);
    if (!this.#compositor) {
      this.#ui.setPreviewNote("No preview: this browser gives the page no WebGL2");
    }
    this.#ui.wire((edit) => this.#sendEdit(edit));
    setInterval(() => {
      this.#send({ type: "ping", t0: performance.now() });
      this.#showObjects(true);
    }, 1000);
    this.#connect();
    requestAnimationFrame(this.#onFrame);
  }
}

new EditorPage().start();
