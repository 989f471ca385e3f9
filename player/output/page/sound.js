// @ts-check
// The output's sound: the Song's audio and each Clip's through the master level, a meter
// of what leaves it, the spectrum the visualizers read, and the recording of the output (the
// canvas and the master sound, one recording at a time). One of each per page, owned by its
// entry.

/** @typedef {import("./clock.js").PlayerClock} PlayerClock */
/** @typedef {NonNullable<import("../../../protocol/output.ts").RenderState["song"]>} Song */

/** The page's audio graph: every sound through the master level, the meter and the analyser. */
export class Sound {
  audio = new AudioContext();
  /** Every sound goes through here: the output level after mute. */
  master = this.audio.createGain();
  /** The Song's audio, for the visualizers (spectrum, waveform). */
  analyser = this.audio.createAnalyser();
  /** What the recording takes: the master's sound. */
  recordDestination = this.audio.createMediaStreamDestination();
  #levelMeter = this.audio.createAnalyser();
  #songGain = this.audio.createGain();
  /** @type {{el: HTMLAudioElement, source: string} | null} */
  #song = null;
  /**
   * The Song as the clock follows it (never looped, bounded by its file), set in place each
   * frame: a frame allocates no record.
   * @type {import("./clock.js").Timed}
   */
  #timed = { position: 0, at: 0, rate: 0, loop: false, duration: Infinity };
  #clock;

  /** @param {PlayerClock} clock the clock the Song follows */
  constructor(clock) {
    this.#clock = clock;
    this.master.connect(this.audio.destination);
    this.master.connect(this.recordDestination);
    this.master.connect(this.#levelMeter);
    this.analyser.fftSize = 512;
    this.#songGain.connect(this.analyser);
    this.#songGain.connect(this.master);
  }

  /** Starts the sound where a browser held it until a gesture (the player allows autoplay). */
  resume() {
    if (this.audio.state !== "running") this.audio.resume().catch(() => {});
  }

  /**
   * The output level, at once.
   * @param {number} level
   */
  setLevel(level) {
    this.master.gain.setValueAtTime(level, this.audio.currentTime);
  }

  /**
   * Plays the Song's audio (`wanted`, or null: none) on the clock, its file under `base`.
   * @param {Song | null} wanted
   * @param {string} base
   * @param {number} clock
   * @param {number} frameSeconds
   */
  syncSong(wanted, base, clock, frameSeconds) {
    if (!wanted) {
      this.#song?.el.pause();
      return;
    }
    if (!this.#song || this.#song.source !== wanted.source) {
      this.#song?.el.pause();
      const el = new Audio(base + wanted.source);
      el.preload = "auto";
      this.audio.createMediaElementSource(el).connect(this.#songGain);
      this.#song = { el, source: wanted.source };
    }
    this.#songGain.gain.value = wanted.volume;
    const item = this.#timed;
    item.position = wanted.position;
    item.at = wanted.at;
    item.rate = wanted.rate;
    item.duration = this.#song.el.duration || Infinity;
    this.#clock.follow(this.#song.el, item, clock, frameSeconds);
  }

  /**
   * The RMS level (0-1) of what leaves the output over `ms` milliseconds.
   * @param {number} ms
   */
  async measureLevel(ms) {
    this.resume();
    const meter = this.#levelMeter;
    const buf = new Float32Array(meter.fftSize);
    let sum = 0, n = 0;
    // The meter holds the last fftSize samples: those from before the request are skipped.
    const windowMs = (1000 * meter.fftSize) / this.audio.sampleRate;
    await new Promise((resolve) => setTimeout(resolve, windowMs + 10));
    const end = performance.now() + ms;
    while (performance.now() < end) {
      meter.getFloatTimeDomainData(buf);
      for (const v of buf) sum += v * v;
      n += buf.length;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return Math.sqrt(sum / Math.max(1, n));
  }
}

/** @typedef {{durationMs: number, mimeType: string}} Recorded */

/** The output page's recorder. */
export class Recorder {
  #sound;
  /** @type {MediaRecorder | null} */
  #recorder = null;
  /**
   * The recorder each `stop` waits for, and what it resolves.
   * @type {Map<MediaRecorder, (done: Recorded) => void>}
   */
  #whenStopped = new Map();
  /** @type {Promise<unknown>} */
  #chunks = Promise.resolve();

  /** @param {Sound} sound whose master sound is recorded */
  constructor(sound) {
    this.#sound = sound;
  }

  /**
   * Records `canvas` at `fps` and the master sound, each chunk given to `onChunk` in order. A
   * recording still running is stopped first: one at a time, so the player's file gets one
   * stream.
   * @param {HTMLCanvasElement} canvas
   * @param {number} fps
   * @param {(bytes: ArrayBuffer) => void} onChunk
   */
  start(canvas, fps, onChunk) {
    this.#sound.resume();
    if (this.#recorder?.state === "recording") this.#recorder.stop();
    const stream = canvas.captureStream(fps);
    for (const track of this.#sound.recordDestination.stream.getAudioTracks()) {
      stream.addTrack(track);
    }
    // This recorder's own, not the page's: a later one must not take its stop.
    const mine = new MediaRecorder(stream, { mimeType: "video/webm;codecs=vp8,opus" });
    const startedAt = performance.now();
    mine.ondataavailable = (event) => {
      this.#chunks = this.#chunks.then(() => event.data.arrayBuffer()).then(onChunk);
    };
    mine.onstop = () => {
      const durationMs = performance.now() - startedAt;
      this.#chunks = this.#chunks.then(() => {
        this.#whenStopped.get(mine)?.({ durationMs, mimeType: mine.mimeType });
        this.#whenStopped.delete(mine);
      });
    };
    mine.start(500);
    this.#recorder = mine;
  }

  /**
   * Stops the recording; resolves once its last chunk went out, with its duration.
   * @returns {Promise<Recorded>}
   */
  stop() {
    const mine = this.#recorder;
    if (!mine || mine.state === "inactive") {
      return Promise.resolve({ durationMs: 0, mimeType: "" });
    }
    return new Promise((resolve) => {
      this.#whenStopped.set(mine, resolve);
      mine.stop();
    });
  }
}
