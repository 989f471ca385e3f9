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
import { FramePacing } from "./frame_pacing.js";
import { secretProtocols } from "./socket_secret.js";
import { Recorder, Sound } from "./sound.js";

/** @typedef {import("../../../protocol/output.ts").RenderState} RenderState */
/** @typedef {import("../../../protocol/output.ts").ShaderProgram} ShaderProgram */
/** @typedef {import("../../../protocol/output.ts").ToPage} ToPage */
/** @typedef {import("../../../protocol/output.ts").FromPage} FromPage */

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
  /** Which frames draw, at what scale, and each second's figures. */
  #pacing = new FramePacing();
  /** @type {number | null} */
  #panic = null;
  /** A layer's picture (made once: a frame makes no closure). */
  #textureOf = (/** @type {string} */ clipId) => this.#layers?.textureOf(clipId) ?? null;
  /** The animation frame callback (made once, as `#textureOf`). */
  #onFrame = (/** @type {number} */ t) => this.#frame(t);

  /** The display's frames a second (30 until the first state). */
  #fps() {
    return this.#state?.display.fps ?? 30;
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
    this.#pacing.drift(drift);
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
    const scale = this.#pacing.scale(this.#fps());
    const analyser = this.#sound.analyser;
    compositor.draw(state, clock, this.#textureOf, analyser, scale, isFull ? 1 : scale);
    if (this.#drawnSeq !== state.seq) {
      // A new state's first frame (a change, not every frame) makes its record.
      this.#drawnSeq = state.seq;
      this.#pacing.firstFrame(state.seq, clock);
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
    const fps = this.#state.display.fps;
    if (!this.#pacing.isDue(now, fps)) return;
    const clock = this.#clock.frameTime(now, 1000 / fps);
    this.#sync(clock);
    this.#draw(clock);
    this.#pacing.drawn(this.#clock.frameLagMs, this.#clock.errorMs);
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
        return this.#pacing.setBudget(message.frameBudgetMs);
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
    const isVisible = document.visibilityState === "visible";
    this.#send({
      type: "report",
      seq: this.#drawnSeq,
      offset: this.#clock.offset,
      ...this.#pacing.endSecond(this.#fps(), isVisible),
      visibility: document.visibilityState,
      glObjects: this.#compositor?.objects ?? null,
      isf: this.#compositor?.lastFrame ?? null,
    });
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
    document.addEventListener("visibilitychange", () => this.#pacing.resume());
    setInterval(() => this.#second(), 1000);
    this.#connect();
    requestAnimationFrame(this.#onFrame);
  }
}

new OutputPage().start();
