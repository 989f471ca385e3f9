/**
 * The output: the player's picture and sound, shown by a page in a browser
 * the player supervises. It pushes the render state whenever the show
 * changes (one push per burst), answers the page's clock pings, keeps its
 * frame reports, and asks it for pictures, sound levels and recordings.
 * @module
 */
import {
  type FromPage,
  type OutputMode,
  type OutputStats,
  type RenderState,
  type ToPage,
} from "../../protocol/output.ts";
import type { OutputDrawing } from "../../protocol/state.ts";
import { PagePrograms } from "./page_programs.ts";
import type { Clock } from "../clock.ts";
import { findBrowser, hasDisplay } from "./browser.ts";
import { buildRenderState, type RenderSource } from "./render_state.ts";
import { type MediaPath, type OutputServer, pageSecretScript, serveOutput } from "./server.ts";
import { BUILT_IN_PROGRAMS } from "./shaders.ts";
import { BrowserSupervisor } from "./supervisor.ts";
import { OutputRecording, type RecordingFigures, type RecordingOutcome } from "./recording.ts";
import { PageRequests } from "./page_requests.ts";
import { PageHealth } from "./page_health.ts";
import { OutputQuarantine } from "./quarantine.ts";
import { OutputWindow } from "./window_state.ts";
import { type EditorHooks, EditorPage } from "./editor_page.ts";
import { EditorWindow } from "./editor_window.ts";
import { PageSocket, type PageSocketHost } from "./page_socket.ts";
import { SocketFaultLog } from "./socket_log.ts";
import type { DevTools } from "./devtools.ts";

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
  /** The page's render scale changed (said once per change, and logged). */
  scaleChanged?: (drawing: OutputDrawing) => void;
  /** The time a frame may take before the page draws smaller, ms; absent: the frame period. */
  frameBudgetMs?: number;
  /** A recording ended because the browser that recorded it went away. */
  recordingLost?: (outcome: RecordingOutcome) => void;
  /** A preset's shader stopped the picture: the player quarantines it (`quarantine.ts`). */
  quarantine?: (presetId: string, reason: string) => void;
  /** The preset editor (`appState.editor`): its window follows it; absent, none opens. */
  editor?: EditorHooks;
}

/** No editor: its state is always closed. */
const NO_EDITOR: EditorHooks = {
  state: () => null,
  shown: () => {},
  closed: () => {},
  edit: () => Promise.reject(new Error("No editor")),
};

/** A frame report of the page, with the player clock it arrived at. */
export type PageReport = Extract<FromPage, { type: "report" }> & { receivedAt: number };

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
  readonly #requests: PageRequests;
  readonly #health: PageHealth;
  readonly #quarantine: OutputQuarantine;
  readonly #window: OutputWindow;
  readonly #editorWindow: EditorWindow;
  readonly #editorPage: EditorPage;
  readonly #page: PageSocket;
  /** Sockets closed or refused, said in one line a minute at most. */
  readonly #socketFaults: SocketFaultLog;
  /** The preset programs of the page (`programs.pushes`: each one's first state, for the bench). */
  readonly programs: PagePrograms = new PagePrograms();
  #seq = 0;
  #isPushQueued = false;
  #idleSince: number | null = null;
  /** The recording being written (`recording.ts`). */
  #recording: OutputRecording | null = null;
  /** The page connection that records it (`PageSocket.connection`), null until one does. */
  #recordingOwner: number | null = null;
  /** The states sent (sequence and player clock), newest last (at most 1024). */
  readonly pushes: { seq: number; at: number }[] = [];
  /** The page's frame reports, newest last (at most 600: ten minutes). */
  readonly reports: PageReport[] = [];
  /** Frames the pages reported drawn, every report summed. */
  #framesDrawn = 0;
  /** The scale the page last reported drawing at, and the frame budget it is given. */
  #renderScale = 1;
  #frameBudgetMs: number | null;
  /** Files the page could not decode, logged once each. */
  readonly faults: string[] = [];
  /** Whether the page showed the full-screen state at its last picture (`frame`). */
  pageFullScreen = false;

  constructor(options: OutputOptions, browser: string, mode: "window" | "fullscreen" | "headless") {
    this.#options = options;
    this.#frameBudgetMs = options.frameBudgetMs ?? null;
    this.#socketFaults = new SocketFaultLog(
      (message) => options.log("warn", message),
      () => performance.now(),
    );
    this.#page = new PageSocket(this.#pageHost(), { faults: this.#socketFaults });
    this.#server = this.#serve(options);
    this.#requests = new PageRequests((message) => this.#send(message), {
      lastProgressAt: () => this.#health.lastProgressAt,
    });
    const { width, height } = options.source()?.project.display ?? { width: 1280, height: 720 };
    const supervised = {
      program: browser,
      mode,
      url: this.#server.url,
      width,
      height,
      log: options.log,
      onStart: () => {
        this.#health.browserStarted();
        this.#quarantine.browserStarted();
      },
      // Each browser start: a new secret, the old one refused from now on.
      initScript: () => pageSecretScript(this.#server.rotateSecret()),
    };
    this.#supervisor = new BrowserSupervisor(supervised);
    this.#health = new PageHealth(this.#supervisor, { log: options.log });
    this.#quarantine = this.#stallWatch(options);
    this.#window = new OutputWindow(this.#supervisor, {
      url: this.#server.url,
      mode,
      log: (message) => options.log("warn", message),
    });
    const editor = options.editor ?? NO_EDITOR;
    this.#editorWindow = new EditorWindow(this.#supervisor, {
      url: `${this.#server.url}editor.html`,
      outputUrl: this.#server.url,
      closed: () => editor.closed(),
      log: (message) => options.log("warn", message),
    });
    this.#editorPage = new EditorPage({
      hooks: editor,
      programs: this.programs.programs,
      now: () => options.clock.now(),
      refresh: () => this.changed(),
      faults: this.#socketFaults,
    });
    this.#hearChecks(options);
    this.#supervisor.start();
    options.log("info", `Output: ${mode} in ${browser}`);
  }

  /**
   * A preset's program is drawn once its bounded check ended (`isf_programs.ts`); a stored
   * preset whose code no longer passes draws nothing, said once per code.
   */
  #hearChecks(options: OutputOptions): void {
    this.programs.programs.onChecked = () => this.changed();
    this.programs.programs.onRefused = (preset, problem) =>
      options.log(
        "warn",
        `Output: preset "${preset.name}" (${preset.id}) does not pass its checks (${problem}): its Effect or Visualizer draws nothing until its code is edited`,
      );
  }

  /** The page server, its sockets handed to the page's and the editor's. */
  #serve(options: OutputOptions): OutputServer {
    return serveOutput({
      media: options.media,
      connected: (socket) => this.#page.connected(socket),
      editorConnected: (socket) => this.#editorPage.connected(socket),
      isEditorOpen: () => !!options.editor?.state(),
      requested: () => this.#health.progress(),
      isTaken: (path) => path === "ws" ? this.#page.isTaken : this.#editorPage.isTaken,
      refused: (kind, reason) => this.#socketFaults.note(kind, reason),
    });
  }

  /** The browser's process id while it runs (tests kill it). */
  get browserPid(): number | null {
    return this.#supervisor.pid;
  }

  /** The page's address (loopback, with its secret path). */
  get url(): string {
    return this.#server.url;
  }

  /** The editor window's page address (loopback, with the same secret path). */
  get editorUrl(): string {
    return this.#editorWindow.url;
  }

  /** The profile of the browser running now (tests count the processes that name it). */
  get browserProfileDir(): string | null {
    return this.#supervisor.profileDir;
  }

  /** DevTools of the browser running now, over its pipe (tests look at its windows). */
  get browserDevTools(): DevTools | null {
    return this.#supervisor.devtools;
  }

  /** When the browser or its page last showed progress (performance.now): tests wait on it. */
  get lastProgressAt(): number {
    return this.#health.lastProgressAt;
  }

  /** How many times a page said hello (a browser start, a reload). */
  get pageLoads(): number {
    return this.#health.pageLoads;
  }

  /** The last recovery after the browser exited, ms from exit to the page's hello. */
  get lastRecoveryMs(): number | null {
    return this.#health.lastRecoveryMs;
  }

  /** How the output draws: frames, the scale it draws at, browser launches (`OutputStats`). */
  get stats(): OutputStats {
    return {
      framesDrawn: this.#framesDrawn,
      framesPerSecond: this.reports.at(-1)?.frames ?? 0,
      renderScale: this.#renderScale,
      browserStarts: this.#supervisor.starts,
      pageLoads: this.#health.pageLoads,
    };
  }

  /** Page sockets closed or refused since the output started, by kind (`socket_log.ts`). */
  get socketFaults(): ReadonlyMap<string, number> {
    return this.#socketFaults.totals;
  }

  /**
   * The time a frame may take before the page draws at a lower scale, ms (null: the display's
   * frame period): told to the page now and to every page that connects.
   */
  setFrameBudget(ms: number | null): void {
    this.#frameBudgetMs = ms;
    this.#send({ type: "scale", frameBudgetMs: ms });
  }

  /** The show changed: the page gets the new state once this burst of changes is over. */
  changed(): void {
    if (this.#isPushQueued) return;
    this.#isPushQueued = true;
    queueMicrotask(() => this.#flushState());
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

  /** The state of the browser's window (`normal`, `fullscreen`...), through DevTools. */
  windowState(): Promise<string> {
    return this.#window.state();
  }

  /** Starts recording the page's picture and sound into `path` (WebM, `recording.ts`). */
  startRecording(path: string, changed: (figures: RecordingFigures) => void): void {
    const recording: OutputRecording = new OutputRecording({
      path,
      page: {
        isOpen: () => this.#page.isOpen,
        send: (message) => this.#send(message),
        request: (build) => this.#request(build),
      },
      log: this.#options.log,
      changed,
      lost: (outcome) => {
        if (this.#recording === recording) this.#recording = null;
        this.#options.recordingLost?.(outcome);
      },
    });
    this.#recording = recording;
    // Started in the page connected now, if one is (`OutputRecording` asks it at once).
    this.#recordingOwner = this.#page.connection;
  }

  /** Ends the recording once the page's last chunk is written: what it holds. */
  async stopRecording(): Promise<RecordingOutcome | null> {
    const recording = this.#recording;
    if (!recording) return null;
    try {
      return await recording.stop();
    } finally {
      if (this.#recording === recording) this.#recording = null;
    }
  }

  /** Stops the browser and the server; pending requests fail. */
  async close(): Promise<void> {
    this.#health.close();
    this.#quarantine.close();
    this.#requests.rejectAll(new Error("The output closed"));
    this.#recording?.close();
    this.#recording = null;
    this.#window.close();
    this.#editorWindow.close();
    this.#editorPage.close();
    await this.#supervisor.close();
    this.#page.close();
    this.#socketFaults.close();
    await this.#server.close();
  }

  /** Sends the queued state now: a request to the page must see every change made before it. */
  #flushState(): void {
    if (!this.#isPushQueued) return;
    this.#isPushQueued = false;
    this.#pushState();
  }

  #pushState(): void {
    this.#editorWindow.follow(this.#options.editor?.state()?.openedAt ?? null);
    const state = this.#buildState();
    if (state && this.#page.isOpen) this.#sendState(state);
    this.#editorPage.push(state);
  }

  /** The render state now, or null when no Project is open. */
  #buildState(): RenderState | null {
    const source = this.#options.source();
    if (!source) return null;
    const now = this.#options.clock.now();
    const isIdle = source.playState.clips.length === 0;
    if (!isIdle) this.#idleSince = null;
    else this.#idleSince ??= now;
    return buildRenderState({ ...source, programs: this.programs.programs }, {
      seq: ++this.#seq,
      clock: { now, rate: this.#options.clockRate },
      idleSince: this.#idleSince ?? now,
    });
  }

  #sendState(state: RenderState): void {
    const now = state.clock.now;
    const { programs, drop } = this.programs.prepare(state, now);
    this.#quarantine.statePushed(state, this.#options.editor?.state()?.preset ?? null);
    if (programs.length > 0 || drop.length > 0) {
      this.#send({ type: "programs", programs, ...(drop.length > 0 ? { drop } : {}) });
    }
    this.#send({ type: "state", state });
    this.pushes.push({ seq: state.seq, at: now });
    if (this.pushes.length > 1024) this.pushes.shift();
    this.#window.follow(state.fullScreen);
  }

  /** The watch that quarantines a preset whose shader stopped the page's frames. */
  #stallWatch(options: OutputOptions): OutputQuarantine {
    return new OutputQuarantine({
      programs: this.programs.programs,
      quarantine: (id, reason) => options.quarantine?.(id, reason),
      restart: () => this.#supervisor.restart(),
      pid: () => this.#supervisor.pid,
      log: options.log,
    });
  }

  /** What the page's messages do here (`page_socket.ts` checks them first). */
  #pageHost(): PageSocketHost {
    return {
      opened: (connection) => {
        this.programs.pageConnected();
        this.#send({ type: "scale", frameBudgetMs: this.#frameBudgetMs });
        this.#send({ type: "programs", programs: [...BUILT_IN_PROGRAMS] });
        this.#pushState();
        this.#requests.resend();
        this.#recordingPageOpened(connection);
      },
      progress: () => {
        this.#health.progress();
        this.#quarantine.message();
      },
      hello: (gl) => {
        this.#quarantine.pageLoaded(gl);
        if (this.#health.hello(gl)) {
          this.#window.pageLoaded(this.#options.source()?.appState.fullScreen);
        }
      },
      now: () => this.#options.clock.now(),
      report: (message) => {
        this.reports.push({ ...message, receivedAt: this.#options.clock.now() });
        this.#framesDrawn += message.frames;
        this.#recording?.report(message.frames, message.dropped);
        if (this.reports.length > 600) this.reports.shift();
        this.#health.report(message, this.#options.source()?.project.display.fps ?? 30);
        this.#quarantine.report(message);
        this.#scaleReported(message.renderScale, message.scaleReason);
      },
      fault: (clipId, message) => this.#fault(clipId, message),
      compileError: (program, log) => {
        this.#fault("", this.programs.refused(program, log));
        this.changed();
      },
      // Only the page that records writes its file: another's bytes are not the recording's.
      chunk: (bytes, connection) => {
        if (connection === this.#recordingOwner) this.#recording?.chunk(bytes);
      },
      settle: (id, message) => this.#requests.settle(id, message),
      // A shader suspected of the stall explains a lost GL: the quarantine sees to it.
      glFails: () => this.#health.glLost(this.#quarantine.isSuspecting),
    };
  }

  /**
   * A page connected: a recording waiting for one starts in it; one that another page recorded
   * ended with that page (gone: a page is connected only once the one before closed).
   */
  #recordingPageOpened(connection: number): void {
    const recording = this.#recording;
    if (!recording) return;
    const owner = this.#recordingOwner;
    if (owner !== null && owner !== connection) {
      this.#options.log(
        "warn",
        `Output: the page that recorded (socket #${owner}) is gone; page socket #${connection} connected`,
      );
    }
    this.#recordingOwner = owner ?? connection;
    recording.pageOpened();
  }

  /** Says a new render scale once: one log line, and `scaleChanged` (`appState.output`). */
  #scaleReported(renderScale: number, reason: string | null): void {
    if (renderScale === this.#renderScale) return;
    const from = this.#renderScale;
    this.#renderScale = renderScale;
    this.#options.log(
      renderScale < from ? "warn" : "info",
      `Output: drawing at scale ${renderScale} (was ${from})${reason ? `: ${reason}` : ""}`,
    );
    this.#options.scaleChanged?.({ renderScale, reason });
  }

  /** Once per file and reason, whatever the page's reloads. */
  #fault(clipId: string, message: string): void {
    const key = `${clipId}: ${message}`;
    if (this.faults.includes(key)) return;
    if (this.faults.length >= 256) this.faults.shift();
    this.faults.push(key);
    this.#options.log(
      "warn",
      clipId ? `Output: Clip "${clipId}" shows its card: ${message}` : `Output: ${message}`,
    );
  }

  #request<T>(build: (id: number) => ToPage): Promise<T> {
    this.#flushState();
    return this.#requests.request<T>(build);
  }

  #send(message: ToPage): void {
    this.#page.send(message);
  }
}
