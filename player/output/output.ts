/**
 * The output: the player's picture and sound, shown by a page in a browser
 * the player supervises. It pushes the render state whenever the show
 * changes (one push per burst), answers the page's clock pings, keeps its
 * frame reports, and asks it for pictures, sound levels and recordings.
 * @module
 */
import type { OutputMode, OutputStats, RenderState, ToPage } from "../../protocol/output.ts";
import type { OutputDrawing } from "../../protocol/state.ts";
import { PagePrograms } from "./page_programs.ts";
import { warmBuiltInChecks } from "./isf_programs.ts";
import type { Clock } from "../clock.ts";
import { findBrowser, hasDisplay } from "./browser.ts";
import type { RenderSource } from "./render_state.ts";
import { RenderStates } from "./render_states.ts";
import { type MediaPath, type OutputServer, pageSecretScript, serveOutput } from "./server.ts";
import { BUILT_IN_PROGRAMS } from "./shaders.ts";
import type { RecordingFigures, RecordingOutcome } from "./recording.ts";
import { PageRequests } from "./page_requests.ts";
import { type EditorHooks, EditorPage } from "./editor_page.ts";
import { PageSocket, type PageSocketHost } from "./page_socket.ts";
import { SocketFaultLog } from "./socket_log.ts";
import type { DevTools } from "./devtools.ts";
import type { OutputWindow } from "./window_state.ts";
import { OutputBrowser } from "./output_browser.ts";
import { FrameReports, type PageReport } from "./frame_reports.ts";
import { RecordingSlot } from "./recording_slot.ts";
import { type MidiLocalEvent, MidiPorts } from "./midi_ports.ts";
import type { PictureFormat } from "../../protocol/pictures.ts";

export type { PageReport } from "./frame_reports.ts";

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
  /** A preset's stored `IMPORTED` image by its file name (`imported_images.ts`), or null. */
  presetImage?(file: string): MediaPath | null;
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
  /** The page's local MIDI ports and their input, for the service (`midi_ports.ts`). */
  midi?: (event: MidiLocalEvent) => void;
  /** The MIDI ports the page opens (setting midiLocal): every one, none, or those named. */
  midiPorts?: boolean | readonly string[];
}

/** No editor: its state is always closed. */
const NO_EDITOR: EditorHooks = {
  state: () => null,
  shown: () => {},
  closed: () => {},
  edit: () => Promise.reject(new Error("No editor")),
};

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

/**
 * A picture asked of the page: `size` its longer side (absent: the display's size), `format`
 * (absent: PNG), JPEG `quality` 1 to 100. A preview: no full-size PNG crosses the socket.
 */
export interface FrameAsk {
  size?: number | undefined;
  format?: PictureFormat | undefined;
  quality?: number | undefined;
}

/** The page's `frame` message for `asked`. */
function frameRequest(id: number, asked: FrameAsk): ToPage {
  return {
    type: "frame",
    id,
    ...(asked.size !== undefined ? { size: asked.size } : {}),
    ...(asked.format ? { format: asked.format } : {}),
    ...(asked.quality !== undefined ? { quality: asked.quality / 100 } : {}),
  };
}

/**
 * A running output: the loopback page server and its sockets (the output page's and the
 * editor's), the browser (`output_browser.ts`), the render state pushed to the page, and what
 * the page reports (`frame_reports.ts`) and records (`recording_slot.ts`).
 */
export class Output {
  readonly #options: OutputOptions;
  readonly #server: OutputServer;
  readonly #browser: OutputBrowser;
  readonly #requests: PageRequests;
  readonly #editorPage: EditorPage;
  readonly #page: PageSocket;
  /** Sockets closed or refused, said in one line a minute at most. */
  readonly #socketFaults: SocketFaultLog;
  /** The preset programs of the page (`programs.pushes`: each one's first state, for the bench). */
  readonly programs: PagePrograms = new PagePrograms();
  readonly #states: RenderStates;
  readonly #recording: RecordingSlot;
  readonly #reports: FrameReports;
  #frameBudgetMs: number | null;
  /** Whether the page showed the full-screen state at its last picture (`frame`). */
  pageFullScreen = false;
  /** The page's local MIDI ports (Web MIDI): what they receive goes to `options.midi`. */
  readonly midi = new MidiPorts((e) => this.#options.midi?.(e), (m) => this.#send(m));

  constructor(options: OutputOptions, browser: string, mode: "window" | "fullscreen" | "headless") {
    this.#options = options;
    this.#frameBudgetMs = options.frameBudgetMs ?? null;
    this.#socketFaults = new SocketFaultLog(
      (message) => options.log("warn", message),
      () => performance.now(),
    );
    this.#reports = new FrameReports(options);
    this.#states = new RenderStates({
      source: () => options.source(),
      clock: options.clock,
      clockRate: options.clockRate,
      programs: this.programs.programs,
      push: () => this.#pushState(),
    });
    this.#page = new PageSocket(this.#pageHost(), { faults: this.#socketFaults });
    this.#server = this.#serve(options);
    this.#requests = new PageRequests((message) => this.#send(message), {
      lastProgressAt: () => this.#browser.health.lastProgressAt,
    });
    this.#recording = this.#recordingSlot(options);
    const { width, height } = options.source()?.project.display ?? { width: 1280, height: 720 };
    const editor = options.editor ?? NO_EDITOR;
    this.#browser = new OutputBrowser({
      program: browser,
      mode,
      url: this.#server.url,
      width,
      height,
      log: options.log,
      // Each browser start: a new secret, the old one refused from now on.
      initScript: () => pageSecretScript(this.#server.rotateSecret()),
      programs: this.programs.programs,
      quarantine: (id, reason) => options.quarantine?.(id, reason),
      editorClosed: () => editor.closed(),
      isPageOpen: () => this.#page.isOpen,
      outputDisplay: () => options.source()?.appState.outputDisplay,
    });
    this.#editorPage = new EditorPage({
      hooks: editor,
      programs: this.programs.programs,
      now: () => options.clock.now(),
      refresh: () => this.changed(),
      faults: this.#socketFaults,
    });
    this.programs.hearChecks({ changed: () => this.changed(), log: options.log });
    this.#browser.start();
    void warmBuiltInChecks();
    options.log("info", `Output: ${mode} in ${browser}`);
  }

  /** The page server, its sockets handed to the page's and the editor's. */
  #serve(options: OutputOptions): OutputServer {
    return serveOutput({
      ...options, // its media and presetImage; the rest is the server's own, below
      connected: (socket) => this.#page.connected(socket),
      editorConnected: (socket) => this.#editorPage.connected(socket),
      isEditorOpen: () => !!options.editor?.state(),
      requested: () => this.#browser.health.progress(),
      isTaken: (path) => path === "ws" ? this.#page.isTaken : this.#editorPage.isTaken,
      refused: (kind, reason) => this.#socketFaults.note(kind, reason),
    });
  }

  /** The recording, written from the page connected now. */
  #recordingSlot(options: OutputOptions): RecordingSlot {
    return new RecordingSlot({
      page: {
        isOpen: () => this.#page.isOpen,
        connection: () => this.#page.connection,
        lastClose: () => this.#page.lastClose,
        send: (message) => this.#send(message),
        request: (build) => this.#request(build),
      },
      log: options.log,
      ...(options.recordingLost ? { lost: options.recordingLost } : {}),
    });
  }

  /** The browser's process id while it runs (tests kill it). */
  get browserPid(): number | null {
    return this.#browser.supervisor.pid;
  }

  /** The page's address (loopback, with its secret path). */
  get url(): string {
    return this.#server.url;
  }

  /** The editor window's page address (loopback, with the same secret path). */
  get editorUrl(): string {
    return this.#browser.editorWindow.url;
  }

  /** The profile of the browser running now (tests count the processes that name it). */
  get browserProfileDir(): string | null {
    return this.#browser.supervisor.profileDir;
  }

  /** DevTools of the browser running now, over its pipe (tests look at its windows). */
  get browserDevTools(): DevTools | null {
    return this.#browser.supervisor.devtools;
  }

  /** When the browser or its page last showed progress (performance.now): tests wait on it. */
  get lastProgressAt(): number {
    return this.#browser.health.lastProgressAt;
  }

  /** The last recovery after the browser exited, ms from exit to the page's hello. */
  get lastRecoveryMs(): number | null {
    return this.#browser.health.lastRecoveryMs;
  }

  /** The page's frame reports, newest last (at most 600: ten minutes). */
  get reports(): readonly PageReport[] {
    return this.#reports.reports;
  }

  /** The states sent (sequence and player clock), newest last (at most 1024). */
  get pushes(): readonly { seq: number; at: number }[] {
    return this.#states.pushes;
  }

  /** Files the page could not decode, logged once each. */
  get faults(): readonly string[] {
    return this.#reports.faults;
  }

  /** How the output draws: frames, the scale it draws at, browser launches (`OutputStats`). */
  get stats(): OutputStats {
    return {
      ...this.#reports.figures,
      browserStarts: this.#browser.supervisor.starts,
      pageLoads: this.#browser.health.pageLoads,
      editor: this.#editorPage.stats,
    };
  }

  /** Page sockets closed or refused since the output started, by kind (`socket_log.ts`). */
  get socketFaults(): ReadonlyMap<string, number> {
    return this.#socketFaults.totals;
  }

  /** A frame's time before the page draws smaller, ms (null: a frame period); to every page. */
  setFrameBudget(ms: number | null): void {
    this.#frameBudgetMs = ms;
    this.#send({ type: "scale", frameBudgetMs: ms });
  }

  /** The show changed: the page gets the new state once this burst of changes is over. */
  changed(): void {
    this.#states.changed();
  }

  /**
   * The picture as the page draws it now, once every layer shows its frame: a PNG at the
   * display's size, or the size and format asked, scaled and encoded by the page (`FrameAsk`).
   */
  async frame(asked: FrameAsk = {}): Promise<Uint8Array> {
    const { png, isComplete, visibility, fullScreen } = await this.#request<
      { png: string; isComplete: boolean; visibility: string; fullScreen: boolean }
    >((id) => frameRequest(id, asked));
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

  /** The output's window: its display, its full-screen state (`window_state.ts`). */
  get window(): OutputWindow {
    return this.#browser.window;
  }

  /** Starts recording the page's picture and sound into `path` (WebM, `recording.ts`). */
  startRecording(path: string, changed: (figures: RecordingFigures) => void): void {
    this.#recording.start(path, changed);
  }

  /** Ends the recording once the page's last chunk is written: what it holds. */
  stopRecording(): Promise<RecordingOutcome | null> {
    return this.#recording.stop();
  }

  /** Stops the browser and the server; pending requests fail. */
  async close(): Promise<void> {
    this.#requests.rejectAll(new Error("The output closed"));
    this.midi.pageGone();
    this.#recording.close();
    this.#editorPage.close();
    await this.#browser.close();
    this.#page.close();
    this.#socketFaults.close();
    await this.#server.close();
  }

  #pushState(): void {
    this.#browser.editorWindow.follow(this.#options.editor?.state()?.openedAt ?? null);
    const state = this.#states.build();
    if (state && this.#page.isOpen) this.#sendState(state);
    this.#editorPage.push(state);
  }

  #sendState(state: RenderState): void {
    const now = state.clock.now;
    const { programs, drop } = this.programs.prepare(state, now);
    this.#browser.quarantine.statePushed(state, this.#options.editor?.state()?.preset ?? null);
    if (programs.length > 0 || drop.length > 0) {
      this.#send({ type: "programs", programs, ...(drop.length > 0 ? { drop } : {}) });
    }
    this.#send({ type: "state", state });
    this.#states.sent(state);
    this.#browser.window.follow(state.fullScreen, this.#options.source()?.appState.outputDisplay);
  }

  /** What the page's messages do here (`page_socket.ts` checks them first). */
  #pageHost(): PageSocketHost {
    return {
      opened: (connection) => {
        this.programs.pageConnected();
        this.#send({ type: "scale", frameBudgetMs: this.#frameBudgetMs });
        this.midi.pageOpened(this.#options.midiPorts ?? true);
        this.#send({ type: "programs", programs: [...BUILT_IN_PROGRAMS] });
        this.#pushState();
        this.#requests.resend();
        this.#recording.pageOpened(connection);
      },
      progress: () => {
        this.#browser.health.progress();
        this.#browser.quarantine.message();
      },
      hello: (gl) => {
        this.#browser.quarantine.pageLoaded(gl);
        if (this.#browser.health.hello(gl)) {
          this.#browser.window.pageLoaded(this.#options.source()?.appState.fullScreen);
        }
      },
      now: () => this.#options.clock.now(),
      report: (message) => {
        this.#reports.take(message, this.#options.clock.now());
        this.#recording.report(message.frames, message.dropped);
        this.#browser.health.report(message, this.#options.source()?.project.display.fps ?? 30);
        this.#browser.quarantine.report(message);
        this.#reports.scale(message.renderScale, message.scaleReason);
      },
      fault: (clipId, message) => this.#reports.fault(clipId, message),
      compileError: (program, log) => {
        this.#reports.fault("", this.programs.refused(program, log));
        this.changed();
      },
      // Only the page that records writes its file: another's bytes are not the recording's.
      chunk: (bytes, connection) => this.#recording.chunk(bytes, connection),
      settle: (id, message) => this.#requests.settle(id, message),
      // A shader suspected of the stall explains a lost GL: the quarantine sees to it.
      glFails: () => this.#browser.health.glLost(this.#browser.quarantine.isSuspecting),
      ...this.midi.pageHost(),
    };
  }

  #request<T>(build: (id: number) => ToPage): Promise<T> {
    this.#states.flush();
    return this.#requests.request<T>(build);
  }

  #send(message: ToPage): void {
    this.#page.send(message);
  }
}
