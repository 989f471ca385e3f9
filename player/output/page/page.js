// @ts-check
// The output page: draws the render state the player pushes (protocol/output.ts) with
// WebGL2 and plays its sound with WebAudio. It keeps no show logic and no clock of its
// own (clock.js); it answers the player's requests (a picture, a sound level, a recording).
import { PlayerClock } from "./clock.js";
import { Previews } from "./previews.js";
import { Compositor } from "./compositor.js";
import { forgetObjects } from "./gl.js";
import { Layers } from "./layers.js";
import { PageMidi } from "./midi.js";
import { JUDGED_AFTER_MS, ScaleController } from "./render_scale.js";
import { secretProtocols } from "./socket_secret.js";
import { Recorder, Sound } from "./sound.js";

/** @typedef {import("../../../protocol/output.ts").RenderState} RenderState */
/** @typedef {import("../../../protocol/output.ts").ShaderProgram} ShaderProgram */
/** @typedef {import("../../../protocol/output.ts").ToPage} ToPage */
/** @typedef {import("../../../protocol/output.ts").FromPage} FromPage */
/** @typedef {Extract<FromPage, {type: "report"}>["firstFrames"]} FirstFrames */

/** The output page: its socket to the player, the state it draws, and what draws it. */
class OutputPage {
  #base = location.pathname.replace(/[^/]*$/, "");
  #canvas = /** @type {HTMLCanvasElement} */ (document.getElementById("out"));
  #previews = new Previews(this.#canvas);
  #clock = new PlayerClock();
  #sound = new Sound(this.#clock);
  #recorder = new Recorder(this.#sound);
  #compositor = Compositor.create(this.#canvas);
  #layers = this.#compositor
    ? new Layers(this.#compositor.gl, {
      base: this.#base,
      clock: this.#clock,
      sound: this.#sound,
      report: (clipId, message) => this.#send({ type: "fault", clipId, message }),
    })
    : null;
  /** @type {WebSocket | null} */
  #socket = null;
  /** The machine's MIDI ports through Web MIDI (`midi.js`). */
  #midi = new PageMidi((message) => this.#send(message));
  /** @type {RenderState | null} */
  #state = null;
  #drawnSeq = -1;
  #stats = freshStats();
  /**
   * The player's frame budget (`scale`; null: the display's frame period).
   * @type {number | null}
   */
  #frameBudgetMs = null;
  /** @type {ScaleController | null} */
  #scaler = null;
  #scalerFps = 0;
  /** @type {string | null} */
  #scaleReason = null;
  #lastFrameAt = 0;
  /**
   * Page time from which frames are judged for the render scale (`JUDGED_AFTER_MS` after the first).
   * @type {number | null}
   */
  #judgedFrom = null;
  /** @type {number | null} */
  #panic = null;
  /** A layer's picture (made once: a frame makes no closure). */
  #textureOf = (/** @type {string} */ clipId) => this.#layers?.textureOf(clipId) ?? null;
  /** The animation frame callback (made once, as `#textureOf`). */
  #onFrame = (/** @type {number} */ t) => this.#frame(t);

  /** The render scale controller for the display's rate (a new one when the rate changes). */
  #scaleController() {
    const fps = this.#state?.display.fps ?? 30;
    if (!this.#scaler || this.#scalerFps !== fps) {
      this.#scaler = new ScaleController({ fps, budgetMs: this.#frameBudgetMs });
      this.#scalerFps = fps;
      this.#scaleReason = null;
    }
    return this.#scaler;
  }

  /**
   * Follows the clock with the sound and the layers' media; true when every layer is ready.
   * @param {number} clock
   */
  #sync(clock) {
    const state = this.#state, layers = this.#layers;
    if (!state || !layers) return false;
    const period = 1 / state.display.fps;
    this.#sound.syncSong(state.song, this.#base, clock, period);
    // `sync` answers one record it reuses: read here, before the next call.
    const { isReady, drift } = layers.sync(state.layers, clock, period);
    this.#stats.driftMs = Math.max(this.#stats.driftMs, drift);
    return isReady;
  }

  /**
   * Draws the state at `clock` at the render scale, into a canvas of that scale or, for a
   * picture asked for (`isFull`), of the display's size. A recording records the canvas as it
   * is: at a lowered scale its frames are smaller, which keeps the encoder's cost down with
   * the drawing's.
   * @param {number} clock
   */
  #draw(clock, isFull = false) {
    const state = this.#state, layers = this.#layers, compositor = this.#compositor;
    if (!state || !layers || !compositor) return;
    const scale = this.#scaleController().scale;
    const analyser = this.#sound.analyser;
    compositor.draw(state, clock, this.#textureOf, analyser, scale, isFull ? 1 : scale);
    if (this.#drawnSeq !== state.seq) {
      // A new state's first frame (a change, not every frame) makes its record.
      this.#drawnSeq = state.seq;
      this.#stats.firstFrames.push({ seq: state.seq, clock });
      if (this.#stats.firstFrames.length > 256) this.#stats.firstFrames.shift();
    }
  }

  /**
   * An animation frame at page time `now`: drawn when a display frame is due.
   * @param {number} now
   */
  #frame(now) {
    requestAnimationFrame(this.#onFrame);
    const gl = this.#compositor?.gl;
    // A lost context draws nothing: its frames are not counted (the player judges GL by them).
    if (!this.#state || !gl || gl.isContextLost()) return;
    const period = 1000 / this.#state.display.fps;
    const since = now - this.#lastFrameAt;
    if (since < period - 2) return;
    if (this.#lastFrameAt > 0 && since > period * 1.5) {
      this.#stats.dropped += Math.round(since / period) - 1;
    }
    // The time since the frame before is what the render scale follows (not after a pause,
    // nor in the page's first seconds, when its media load and its programs compile).
    this.#judgedFrom ??= now + JUDGED_AFTER_MS;
    if (this.#lastFrameAt > 0 && now > this.#judgedFrom) this.#scaleController().frame(since);
    this.#lastFrameAt = now;
    const clock = this.#clock.frameTime(now, period);
    this.#sync(clock);
    this.#draw(clock);
    this.#stats.frames++;
    addLag(this.#stats, this.#clock.frameLagMs, this.#clock.errorMs);
    this.#previews.drawn();
  }

  /**
   * Waits until every layer shows its frame; false when `deadlineMs` passed first.
   * @param {number} deadlineMs
   */
  async #whenReady(deadlineMs) {
    const end = performance.now() + deadlineMs;
    while (performance.now() < end) {
      if (this.#sync(this.#clock.now())) return true;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    return false;
  }

  /**
   * @param {number} id
   * @param {import("./previews.js").Asked} asked
   */
  async #answerFrame(id, asked) {
    // Without working GL the player starts another browser, which answers instead.
    const gl = this.#compositor?.gl;
    if (!gl || gl.isContextLost()) {
      this.#send({ type: "gl-lost" });
      return;
    }
    let isComplete = false, png = "";
    if (this.#state) {
      isComplete = await this.#whenReady(5000);
      if (asked.size !== undefined) {
        png = await this.#previews.next(asked, () => this.#draw(this.#clock.now()));
      } else {
        // The picture at the display's size, drawn at the render scale of now.
        this.#draw(this.#clock.now(), true);
      }
    }
    this.#send({
      type: "frame",
      id,
      png: png || this.#previews.picture(asked),
      seq: this.#drawnSeq,
      isComplete,
      visibility: document.visibilityState,
      fullScreen: document.body.dataset.fullscreen === "true",
    });
  }

  /** @param {RenderState} next */
  #onState(next) {
    if (this.#panic !== null && next.panic !== this.#panic) {
      // PANIC reloads the window: silent at once, then a fresh page takes up the show.
      this.#sound.setLevel(0);
      if (this.#socket) this.#socket.onclose = null;
      location.reload();
      return;
    }
    this.#panic = next.panic;
    this.#state = next;
    this.#clock.setReading(next.clock);
    this.#sound.setLevel(next.level);
    // The window is the player's to size (DevTools); the page shows what the state says.
    document.body.dataset.fullscreen = String(next.fullScreen);
    // Seeks, pauses and sound follow at once, not at the next animation frame (which a
    // covered window may not get soon).
    if (this.#compositor) this.#sync(this.#clock.now());
  }

  /**
   * @param {ShaderProgram[]} programs
   * @param {string[]} drop
   */
  #onPrograms(programs, drop = []) {
    this.#compositor?.takePrograms(programs, drop, (p, log) => {
      if (p.vertex) this.#send({ type: "compile-error", program: p.name, log });
      else this.#send({ type: "fault", clipId: "", message: `shader ${p.name}: ${log}` });
    });
  }

  /** @param {ToPage} message */
  #onMessage(message) {
    switch (message.type) {
      case "programs":
        return this.#onPrograms(message.programs, message.drop);
      case "state":
        return this.#onState(message.state);
      case "pong":
        return this.#clock.onPong(message.t0, message.now);
      case "scale":
        this.#frameBudgetMs = message.frameBudgetMs;
        this.#scaler = null;
        return;
      case "frame":
        return void this.#answerFrame(message.id, message);
      case "level":
        return void this.#sound.measureLevel(message.ms)
          .then((rms) => this.#send({ type: "level", id: message.id, rms }));
      case "record-start": {
        const fps = this.#state?.display.fps ?? 30;
        return this.#recorder.start(this.#canvas, fps, (bytes) => this.#socket?.send(bytes));
      }
      case "record-stop":
        return void this.#recorder.stop()
          .then((done) => this.#send({ type: "recorded", id: message.id, ...done }));
      case "midi":
        return message.open ? this.#midi.start(message.ports ?? null) : undefined;
      case "midi-send":
        return this.#midi.play(message.messages);
    }
  }

  /** @param {FromPage} message */
  #send(message) {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }

  #rendererName() {
    // A context lost before the socket opened could not say so then.
    const gl = this.#compositor?.gl;
    if (!gl || gl.isContextLost()) return "unavailable";
    const info = gl.getExtension("WEBGL_debug_renderer_info");
    return String(info ? gl.getParameter(info.UNMASKED_RENDERER_WEBGL) : "webgl2");
  }

  #connect() {
    const socket = new WebSocket(`ws://${location.host}${this.#base}ws`, secretProtocols());
    this.#socket = socket;
    socket.onopen = () => {
      this.#send({ type: "hello", userAgent: navigator.userAgent, gl: this.#rendererName() });
      this.#send({ type: "ping", t0: performance.now() });
      this.#midi.sayPorts();
    };
    socket.onmessage = (event) => this.#onMessage(JSON.parse(event.data));
    // The player went away (it restarts with the service): reload once it is back.
    socket.onclose = () => setTimeout(() => location.reload(), 1000);
  }

  /** A second ends: a ping, the render scale judged, and the second's report. */
  #second() {
    this.#send({ type: "ping", t0: performance.now() });
    // A second of drawing ends: the scale follows it (a hidden page's seconds are not judged).
    const { scale, reason } = document.visibilityState === "visible"
      ? this.#scaleController().second()
      : { scale: this.#scaleController().scale, reason: this.#scaleReason };
    this.#scaleReason = reason;
    const stats = this.#stats;
    this.#send({
      type: "report",
      seq: this.#drawnSeq,
      frames: stats.frames,
      dropped: stats.dropped,
      offset: this.#clock.offset,
      driftMs: stats.driftMs,
      ...lagFigures(stats),
      firstFrames: stats.firstFrames,
      visibility: document.visibilityState,
      renderScale: scale,
      scaleReason: this.#scaleReason,
      glObjects: this.#compositor?.objects ?? null,
      isf: this.#compositor?.lastFrame ?? null,
    });
    this.#stats = freshStats();
  }

  /** Starts the page: its socket, its frames, its seconds. */
  start() {
    const gl = this.#compositor?.gl;
    if (gl) {
      this.#canvas.addEventListener("webglcontextlost", () => {
        // The context's objects are gone with it: none is live (the player starts a new page).
        forgetObjects(gl);
        this.#send({ type: "gl-lost" });
      });
    }
    // A hidden page gets no animation frames: the time it was hidden is no frame's.
    document.addEventListener("visibilitychange", () => this.#lastFrameAt = 0);
    setInterval(() => this.#second(), 1000);
    this.#connect();
    requestAnimationFrame(this.#onFrame);
  }
}

/**
 * Counts a frame's lag from the player's clock: |lag|, so frames ahead and behind do not cancel;
 * and the error of the clock estimate it was measured against (the worst of the second kept).
 * @param {{lagMs: number, lagMaxMs: number, clockErrorMs: number}} stats
 * @param {number} lagMs
 * @param {number} clockErrorMs
 */
function addLag(stats, lagMs, clockErrorMs) {
  stats.lagMs += Math.abs(lagMs);
  stats.lagMaxMs = Math.max(stats.lagMaxMs, Math.abs(lagMs));
  stats.clockErrorMs = Math.max(stats.clockErrorMs, clockErrorMs);
}

/**
 * A second's frame lag as reported: the mean of |lag| and the worst, and the clock estimate's
 * error, ms (null with no frame; the error null too while the estimate had no pong yet).
 * @param {{frames: number, lagMs: number, lagMaxMs: number, clockErrorMs: number}} stats
 */
function lagFigures(stats) {
  const round = (/** @type {number} */ ms) =>
    stats.frames > 0 && Number.isFinite(ms) ? Math.round(ms * 100) / 100 : null;
  return {
    frameLagMs: round(stats.lagMs / stats.frames),
    frameLagMaxMs: round(stats.lagMaxMs),
    clockErrorMs: round(stats.clockErrorMs),
  };
}

/**
 * A second's figures, none yet (`lagMs`: the frames' lags from the player's clock, |lag| summed;
 * `lagMaxMs`: the worst; `clockErrorMs`: the worst error of the clock estimate they lag).
 * @returns {{frames: number, dropped: number, driftMs: number, lagMs: number, lagMaxMs: number, clockErrorMs: number, firstFrames: FirstFrames}}
 */
function freshStats() {
  return {
    frames: 0,
    dropped: 0,
    driftMs: 0,
    lagMs: 0,
    lagMaxMs: 0,
    clockErrorMs: 0,
    firstFrames: [],
  };
}

new OutputPage().start();
