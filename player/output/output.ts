/**
 * The output: the player's picture and sound, shown by a page in a browser
 * the player supervises. It pushes the render state whenever the show
 * changes (one push per burst), answers the page's clock pings, keeps its
 * frame reports, and asks it for pictures, sound levels and recordings.
 * @module
 */
import { FromPage, type OutputMode, type ToPage } from "../../protocol/output.ts";
import type { Clock } from "../clock.ts";
import { findBrowser, hasDisplay } from "./browser.ts";
import { buildRenderState, type RenderSource } from "./render_state.ts";
import { type MediaPath, type OutputServer, serveOutput } from "./server.ts";
import { BUILT_IN_PROGRAMS } from "./shaders.ts";
import { BrowserSupervisor } from "./supervisor.ts";
import { setWebmDuration } from "./webm_duration.ts";
import { DevTools } from "./devtools.ts";

/** Where the output's messages go. */
export type OutputLog = (level: "info" | "warn" | "error", message: string) => void;

/** Options of `startOutput`. */
export interface OutputOptions {
  mode: OutputMode;
  /** The browser to use (a path); null: look for one. */
  browser: string | null;
  clock: Clock;
  /** 1 when the clock is real time, 0 on a virtual clock. */
  clockRate: number;
  /** The active Project's show, or null when none is open. */
  source(): RenderSource | null;
  media(projectId: string, fileId: string): MediaPath | null;
  log: OutputLog;
}

/** A frame report of the page, with the player clock it arrived at. */
export type PageReport = Extract<FromPage, { type: "report" }> & { receivedAt: number };

interface Pending<T> {
  message: ToPage;
  resolve(value: T): void;
  reject(error: Error): void;
}

/** How long a started browser's page may take to say hello before it is started again. */
const LOAD_TIMEOUT_MS = 8000;

/** How long a request to the page may take, ms (a relaunch of the browser included). */
const REQUEST_TIMEOUT_MS = 20_000;

/**
 * Starts the output `options.mode` asks for; null (with one INFO line) when
 * it is `none` or `auto` finds no display or no browser.
 */
export function startOutput(options: OutputOptions): Output | null {
  const { mode, log } = options;
  if (mode === "none") return null;
  const browser = findBrowser(options.browser);
  if (mode === "auto" && !hasDisplay()) {
    log("info", "Output: none (no display: DISPLAY and WAYLAND_DISPLAY are unset)");
    return null;
  }
  if (!browser) {
    log(
      "info",
      options.browser
        ? `Output: none (the browser ${options.browser} does not exist)`
        : "Output: none (no Chromium, Chrome or Edge found on the PATH or where they install)",
    );
    return null;
  }
  return new Output(options, browser, mode === "auto" ? "window" : mode);
}

/** A running output. */
export class Output {
  readonly #options: OutputOptions;
  readonly #server: OutputServer;
  readonly #supervisor: BrowserSupervisor;
  #socket: WebSocket | null = null;
  #seq = 0;
  #isPushQueued = false;
  #idleSince: number | null = null;
  #nextId = 1;
  #pending = new Map<number, Pending<unknown>>();
  #recording: { file: Deno.FsFile; path: string } | null = null;
  /** DevTools of the browser running now, and the window state last set through it. */
  #devtools: { profile: string; client: Promise<DevTools> } | null = null;
  #windowFullScreen: boolean;
  readonly #mode: "window" | "fullscreen" | "headless";
  #windowChange: Promise<void> = Promise.resolve();
  #loadTimer: ReturnType<typeof setTimeout> | undefined;
  #isClosed = false;
  /** Pages loaded before the browser was started with software GL. */
  #loadsBeforeSoftwareGl = 0;
  /** The states sent (sequence and player clock), newest last (at most 1024). */
  readonly pushes: { seq: number; at: number }[] = [];
  /** The page's frame reports, newest last (at most 600: ten minutes). */
  readonly reports: PageReport[] = [];
  /** Files the page could not decode, logged once each. */
  readonly faults: string[] = [];
  /** How many times a page said hello (a browser start, a reload). */
  pageLoads = 0;
  /** Whether the page showed the full-screen state at its last picture (`frame`). */
  pageFullScreen = false;
  /** The last recovery after the browser exited, ms from exit to the page's hello. */
  lastRecoveryMs: number | null = null;

  constructor(options: OutputOptions, browser: string, mode: "window" | "fullscreen" | "headless") {
    this.#options = options;
    this.#mode = mode;
    this.#windowFullScreen = mode === "fullscreen";
    this.#server = serveOutput({
      media: options.media,
      connected: (socket) => this.#connected(socket),
    });
    const display = options.source()?.project.display ?? { width: 1280, height: 720 };
    this.#supervisor = new BrowserSupervisor({
      program: browser,
      mode,
      url: this.#server.url,
      width: display.width,
      height: display.height,
      log: options.log,
      onStart: () => this.#watchLoad(),
    });
    this.#supervisor.start();
    options.log("info", `Output: ${mode} in ${browser}`);
  }

  /** The browser's process id while it runs (tests kill it). */
  get browserPid(): number | null {
    return this.#supervisor.pid;
  }

  /** The page's address (loopback, with its secret path). */
  get url(): string {
    return this.#server.url;
  }

  /** The show changed: the page gets the new state once this burst of changes is over. */
  changed(): void {
    if (this.#isPushQueued) return;
    this.#isPushQueued = true;
    queueMicrotask(() => this.#flushState());
  }

  /** Sends the queued state now: a request to the page must see every change made before it. */
  #flushState(): void {
    if (!this.#isPushQueued) return;
    this.#isPushQueued = false;
    this.#pushState();
  }

  /** The picture as the page draws it now, once every layer shows its frame: PNG bytes. */
  async frame(): Promise<Uint8Array> {
    const { png, isComplete, visibility, fullScreen } = await this.#request<
      { png: string; isComplete: boolean; visibility: string; fullScreen: boolean }
    >((id) => ({ type: "frame", id }));
    this.pageFullScreen = fullScreen;
    if (!isComplete) {
      this.#options.log(
        "warn",
        `Output: a layer was not ready for the picture (page ${visibility})`,
      );
    }
    return Uint8Array.from(atob(png.slice(png.indexOf(",") + 1)), (c) => c.charCodeAt(0));
  }

  /** The output's sound level (RMS, 0-1) over `ms` milliseconds. */
  async level(ms: number): Promise<number> {
    const { rms } = await this.#request<{ rms: number }>((id) => ({ type: "level", id, ms }));
    return rms;
  }

  /** Starts recording the page's picture and sound into `path` (WebM). */
  startRecording(path: string): void {
    const file = Deno.openSync(path, { create: true, write: true, truncate: true });
    this.#recording = { file, path };
    this.#send({ type: "record-start", id: 0 });
  }

  /** Ends the recording: the page's last chunk is written and the duration set. */
  async stopRecording(): Promise<void> {
    const recording = this.#recording;
    if (!recording) return;
    let durationMs = 0;
    try {
      const answer = await this.#request<{ durationMs: number }>((id) => ({
        type: "record-stop",
        id,
      }));
      durationMs = answer.durationMs;
    } finally {
      this.#recording = null;
      recording.file.close();
    }
    if (durationMs > 0) {
      const bytes = await Deno.readFile(recording.path);
      await Deno.writeFile(recording.path, setWebmDuration(bytes, durationMs));
    }
  }

  /** Stops the browser and the server; pending requests fail. */
  async close(): Promise<void> {
    this.#isClosed = true;
    clearTimeout(this.#loadTimer);
    for (const pending of this.#pending.values()) pending.reject(new Error("The output closed"));
    this.#pending.clear();
    this.#recording?.file.close();
    this.#recording = null;
    this.#devtools?.client.then((c) => c.close(), () => {});
    await this.#supervisor.close();
    this.#socket?.close();
    await this.#server.close();
  }

  #pushState(): void {
    const source = this.#options.source();
    if (!source || !this.#socket) return;
    const now = this.#options.clock.now();
    const isIdle = source.playState.clips.length === 0;
    if (!isIdle) this.#idleSince = null;
    else this.#idleSince ??= now;
    const state = buildRenderState(source, {
      seq: ++this.#seq,
      clock: { now, rate: this.#options.clockRate },
      idleSince: this.#idleSince ?? now,
    });
    this.#send({ type: "state", state });
    this.pushes.push({ seq: state.seq, at: now });
    if (this.pushes.length > 1024) this.pushes.shift();
    // Headless has no screen to fill (and leaving full screen there hides the page):
    // the page shows the state, the window stays as it is.
    if (this.#mode !== "headless" && state.fullScreen !== this.#windowFullScreen) {
      this.#setWindow(state.fullScreen);
    }
  }

  /** The state of the browser's window (`normal`, `fullscreen`...), through DevTools. */
  async windowState(): Promise<string> {
    await this.#windowChange;
    return (await this.#browserDevTools()).windowState(this.#server.url);
  }

  /** Puts the window in full screen or back; a failure is logged, the show goes on. */
  #setWindow(isFullScreen: boolean): void {
    this.#windowFullScreen = isFullScreen;
    this.#windowChange = this.#windowChange
      .then(() => this.#browserDevTools())
      .then((devtools) => devtools.setFullScreen(this.#server.url, isFullScreen))
      .catch((error) => this.#options.log("warn", `Output: full screen: ${error.message}`));
  }

  #browserDevTools(): Promise<DevTools> {
    const profile = this.#supervisor.profileDir;
    if (!profile) return Promise.reject(new Error("the browser is not running"));
    if (this.#devtools?.profile !== profile) {
      this.#devtools?.client.then((c) => c.close(), () => {});
      this.#devtools = { profile, client: DevTools.connect(profile) };
    }
    return this.#devtools.client;
  }

  #connected(socket: WebSocket): void {
    const previous = this.#socket;
    this.#socket = socket;
    if (previous && previous !== socket) previous.close();
    socket.binaryType = "arraybuffer";
    socket.onopen = () => {
      this.#send({ type: "programs", programs: [...BUILT_IN_PROGRAMS] });
      this.#pushState();
      for (const pending of this.#pending.values()) this.#send(pending.message);
      if (this.#recording) this.#send({ type: "record-start", id: 0 });
    };
    socket.onmessage = (event) => this.#onMessage(event.data);
    socket.onclose = () => {
      if (this.#socket === socket) this.#socket = null;
    };
  }

  #onMessage(data: unknown): void {
    if (data instanceof ArrayBuffer) {
      this.#recording?.file.writeSync(new Uint8Array(data));
      return;
    }
    let message: FromPage;
    try {
      message = FromPage.parse(JSON.parse(String(data)));
    } catch (error) {
      // The page is ours: a message it cannot have sent is a bug, logged and ignored.
      this.#options.log("error", `Output: a message from the page is not valid: ${error}`);
      return;
    }
    const now = this.#options.clock.now();
    switch (message.type) {
      case "hello":
        this.#hello(message.gl);
        break;
      case "ping":
        this.#send({ type: "pong", t0: message.t0, now });
        break;
      case "report":
        this.reports.push({ ...message, receivedAt: now });
        if (this.reports.length > 600) this.reports.shift();
        break;
      case "fault":
        // Once per file and reason, whatever the page's reloads.
        if (this.faults.includes(`${message.clipId}: ${message.message}`)) break;
        if (this.faults.length >= 256) this.faults.shift();
        this.faults.push(`${message.clipId}: ${message.message}`);
        this.#options.log(
          "warn",
          message.clipId
            ? `Output: Clip "${message.clipId}" shows its card: ${message.message}`
            : `Output: ${message.message}`,
        );
        break;
      case "gl-lost":
        this.#glLost();
        break;
      default:
        this.#settle(message.id, message);
    }
  }

  #hello(gl: string): void {
    this.pageLoads++;
    if (gl === "unavailable") {
      this.#glLost();
      return;
    }
    // A new page may be a new browser, whose window starts as the mode says.
    this.#windowFullScreen = this.#mode === "fullscreen";
    const fullScreen = this.#options.source()?.appState.fullScreen;
    if (
      this.#mode !== "headless" && fullScreen !== undefined && fullScreen !== this.#windowFullScreen
    ) {
      this.#setWindow(fullScreen);
    }
    const exitedAt = this.#supervisor.exitedAt;
    if (exitedAt === null) {
      this.#options.log("info", `Output page connected (${gl})`);
      return;
    }
    this.lastRecoveryMs = Math.round(performance.now() - exitedAt);
    this.#supervisor.exitedAt = null;
    this.#options.log("info", `Output back ${this.lastRecoveryMs} ms after the browser exited`);
  }

  /**
   * A started browser whose page does not say hello within `LOAD_TIMEOUT_MS` is stuck (a
   * GPU that hangs its renderer, measured under Xvfb): it starts again, with software GL.
   */
  #watchLoad(): void {
    clearTimeout(this.#loadTimer);
    const loads = this.pageLoads;
    this.#loadTimer = setTimeout(() => {
      if (this.pageLoads > loads || this.#isClosed) return;
      this.#options.log("warn", `Output: the page did not load within ${LOAD_TIMEOUT_MS} ms`);
      if (this.#supervisor.isSoftwareGl) this.#supervisor.restart();
      else this.#glLost();
    }, LOAD_TIMEOUT_MS);
  }

  /** The GPU gave the page no working WebGL2: the browser starts again with software GL. */
  #glLost(): void {
    if (this.#supervisor.isSoftwareGl) {
      // Only a page of the software-GL browser says so of it (the old one may still talk).
      if (this.pageLoads > this.#loadsBeforeSoftwareGl) {
        this.#options.log("error", "Output: WebGL2 fails even with software GL: nothing is drawn");
      }
      return;
    }
    this.#loadsBeforeSoftwareGl = this.pageLoads;
    this.#options.log(
      "warn",
      "Output: the GPU gives no working WebGL2; starting the browser with software GL",
    );
    this.#supervisor.isSoftwareGl = true;
    this.#supervisor.restart();
  }

  #request<T>(build: (id: number) => ToPage): Promise<T> {
    this.#flushState();
    const id = this.#nextId++;
    const message = build(id);
    return new Promise<T>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`The output page did not answer "${message.type}" within 20 s`));
      }, REQUEST_TIMEOUT_MS);
      this.#pending.set(id, {
        message,
        resolve: (value) => {
          clearTimeout(timer);
          resolve(value as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      });
      this.#send(message);
    });
  }

  #settle(id: number, value: unknown): void {
    const pending = this.#pending.get(id);
    this.#pending.delete(id);
    pending?.resolve(value);
  }

  #send(message: ToPage): void {
    if (this.#socket?.readyState === WebSocket.OPEN) this.#socket.send(JSON.stringify(message));
  }
}
