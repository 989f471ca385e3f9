/**
 * The browser of the output and its lifecycle: the supervised process (`supervisor.ts`), the
 * watch that starts it again when it makes no progress (`page_health.ts`), the watch that
 * quarantines a preset whose shader stopped the page's frames (`quarantine.ts`), and its two
 * windows, the output's (`window_state.ts`) and the preset editor's (`editor_window.ts`).
 * @module
 */
import { hasGpuDevice } from "./browser.ts";
import type { IsfPrograms } from "./isf_programs.ts";
import { EditorWindow } from "./editor_window.ts";
import { PageHealth } from "./page_health.ts";
import { OutputQuarantine } from "./quarantine.ts";
import { BrowserSupervisor, type SupervisorOptions } from "./supervisor.ts";
import { OutputWindow } from "./window_state.ts";

/** Options of `OutputBrowser`: the supervisor's, and what its watches and windows tell. */
export interface OutputBrowserOptions
  extends Pick<SupervisorOptions, "program" | "mode" | "url" | "width" | "height" | "log"> {
  /** The script each page runs first, asked at each browser start (the sockets' secret). */
  initScript(): string;
  /** The programs of isf presets the quarantine watches. */
  programs: IsfPrograms;
  /** A preset's shader stopped the picture: the player quarantines it. */
  quarantine(presetId: string, reason: string): void;
  /** The editor's window was closed (by its user). */
  editorClosed(): void;
  /** Whether the output's page is connected (its socket open): the quarantine judges only then. */
  isPageOpen(): boolean;
  /** The display asked for now (`appState.outputDisplay`): a new browser opens on it. */
  outputDisplay?: () => string | null | undefined;
}

/** The output's browser, its watches and its windows. */
export class OutputBrowser {
  readonly supervisor: BrowserSupervisor;
  readonly health: PageHealth;
  readonly quarantine: OutputQuarantine;
  /** The output page's window (full screen as the show says). */
  readonly window: OutputWindow;
  /** The preset editor's window, open while the editor is. */
  readonly editorWindow: EditorWindow;

  /** Made, not started (`start`). */
  constructor(options: OutputBrowserOptions) {
    const { program, url, mode, width, height, log } = options;
    const warn = (message: string) => log("warn", message);
    // No GPU device: the GPU's try would only lose the page's first WebGL2 context (`browser.ts`).
    const isSoftwareGl = mode !== "headless" && !hasGpuDevice();
    if (isSoftwareGl) {
      log(
        "info",
        "Output: no GPU device on this machine (/dev/dri, /dev/nvidia0): the browser starts with software GL",
      );
    }
    this.supervisor = new BrowserSupervisor({
      isSoftwareGl,
      program,
      mode,
      url,
      width,
      height,
      log,
      onStart: () => {
        this.health.browserStarted();
        this.quarantine.browserStarted();
      },
      // Each browser start: a new secret, the old one refused from now on.
      initScript: () => options.initScript(),
      // On its display from the first paint (the window is made below, before any start).
      windowRect: () => this.window.startRect(),
    });
    this.health = new PageHealth(this.supervisor, { log });
    this.quarantine = new OutputQuarantine({
      programs: options.programs,
      quarantine: (id, reason) => options.quarantine(id, reason),
      restart: () => this.supervisor.restart(),
      pid: () => this.supervisor.pid,
      isPageOpen: () => options.isPageOpen(),
      log,
    });
    this.window = new OutputWindow(this.supervisor, {
      url,
      mode,
      log: warn,
      ...(options.outputDisplay ? { asked: options.outputDisplay } : {}),
    });
    this.editorWindow = new EditorWindow(this.supervisor, {
      url: `${url}editor.html`,
      outputUrl: url,
      closed: () => options.editorClosed(),
      log: warn,
    });
  }

  /** Starts the browser once the displays are listed: it opens on its display. */
  start(): void {
    void this.window.listed().then(() => this.supervisor.start());
  }

  /** Stops the watches, forgets the windows and stops the browser. */
  async close(): Promise<void> {
    this.health.close();
    this.quarantine.close();
    this.window.close();
    this.editorWindow.close();
    await this.supervisor.close();
  }
}
