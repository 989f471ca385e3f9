/**
 * The output's shader quarantine: follows the page's reports and messages and
 * its browser's CPU time (`quarantine_watch.ts` decides), quarantines the
 * preset whose shader stopped the picture (the player writes it to the
 * preset, and the render state leaves it out), and starts the browser again
 * when its GL stays stuck in the draw once the preset is off. The show's clock
 * never stops: only the page comes back.
 * @module
 */
import type { RenderState } from "../../protocol/output.ts";
import type { Preset } from "../../protocol/model.ts";
import { drawsIsf, type IsfPrograms } from "./isf_programs.ts";
import { loadAverage, processTreeCpuMs } from "./process_cpu.ts";
import { QuarantineWatch } from "./quarantine_watch.ts";
import type { Report } from "./page_socket.ts";

/** How often the browser's CPU time is looked at while the page is silent, ms. */
export const QUARANTINE_TICK_MS = 1000;

/** Options of `OutputQuarantine`; tests give the timers and the CPU reader. */
export interface OutputQuarantineOptions {
  /** The programs of isf presets (a state's pass names its preset's program). */
  programs: IsfPrograms;
  /** Quarantines the preset (the player writes `quarantine` and redraws without it). */
  quarantine(presetId: string, reason: string): void;
  /** Starts the browser again (its supervisor). */
  restart(): void;
  /** The browser's process id while it runs. */
  pid(): number | null;
  log(level: "info" | "warn" | "error", message: string): void;
  setInterval?: (fn: () => void, ms: number) => number;
  clearInterval?: (id: number) => void;
  /** CPU ms the browser (`pid`) and its processes used, or null when unknown. */
  cpuMs?: (pid: number) => number | null;
  /** The machine's 1-minute load average, or null when unknown (`process_cpu.ts`'s by default). */
  loadAverage?: () => number | null;
  /**
   * Whether the output's page is connected now (its socket open); by default always. A page
   * gone (its window closed, a reload) is not judged until a page says hello again.
   */
  isPageOpen?: () => boolean;
  /**
   * The cores the browser may use (the CPU bound is per core); by default the player's
   * (`navigator.hardwareConcurrency`: its affinity and cgroup quota, which the browser, its
   * child, shares).
   */
  cores?: number;
}

/** The quarantine of one output (see the module). */
export class OutputQuarantine {
  readonly #options: OutputQuarantineOptions;
  readonly #watch: QuarantineWatch;
  readonly #cpuMs: (pid: number) => number | null;
  readonly #loadAverage: () => number | null;
  readonly #clearInterval: (id: number) => void;
  readonly #timer: number;
  /** The names of the presets the last state drew, for the log. */
  #names = new Map<string, string>();

  constructor(options: OutputQuarantineOptions) {
    this.#options = options;
    this.#watch = new QuarantineWatch(options.cores ?? navigator.hardwareConcurrency);
    this.#cpuMs = options.cpuMs ?? processTreeCpuMs;
    this.#loadAverage = options.loadAverage ?? loadAverage;
    this.#clearInterval = options.clearInterval ?? ((id) => clearInterval(id));
    const every = options.setInterval ?? ((fn, ms) => setInterval(fn, ms) as unknown as number);
    this.#timer = every(() => this.#tick(), QUARANTINE_TICK_MS);
  }

  /** The browser started. */
  browserStarted(): void {
    this.#watch.browserStarted();
  }

  /** The page said hello with its renderer (`unavailable`: no WebGL2, not judged). */
  pageLoaded(gl: string): void {
    this.#watch.pageLoaded(gl);
  }

  /**
   * Whether a shader is suspected of the page's trouble now (one changed since the last frame
   * known drawn, or one just taken off): a GL the page says is lost is then the shader's doing
   * (a GPU's watchdog resets the context of a draw that hangs), not the GPU's.
   */
  get isSuspecting(): boolean {
    return this.#watch.isSuspecting;
  }

  /**
   * A state went to the page: the presets it draws are noted (a change is a suspect), and the
   * preset the editor window previews (`preview`): its page shares the output's GPU process.
   */
  statePushed(state: RenderState, preview: Preset | null = null): void {
    const presets = new Map<string, string>();
    this.#names = new Map();
    // A generator Clip's shader is suspected as an Effect's is.
    const layers = state.layers.flatMap((l) =>
      l.generator ? [l.generator, ...l.effects] : l.effects
    );
    for (const pass of [...layers, ...state.visualizers]) {
      const entry = this.#options.programs.named(pass.program);
      if (!entry) continue;
      presets.set(entry.presetId, pass.program);
      this.#names.set(entry.presetId, entry.presetName);
    }
    const previewed = preview && !preview.quarantine && drawsIsf(preview)
      ? this.#options.programs.of(preview)
      : null;
    if (preview && previewed) {
      presets.set(preview.id, previewed.wire.name);
      this.#names.set(preview.id, preview.name);
    }
    this.#watch.statePushed(presets, state.seq);
  }

  /** The page sent a message. */
  message(): void {
    this.#watch.message();
  }

  /** The page's frame report. */
  report({ frames, visibility, seq }: Pick<Report, "frames" | "visibility" | "seq">): void {
    this.#act(this.#watch.report({ frames, isVisible: visibility === "visible", seq }));
  }

  close(): void {
    this.#clearInterval(this.#timer);
  }

  #tick(): void {
    if (this.#options.isPageOpen?.() === false) this.#watch.pageGone();
    const pid = this.#options.pid();
    this.#act(this.#watch.tick(pid === null ? null : this.#cpuMs(pid), this.#loadAverage()));
  }

  #act(verdict: ReturnType<QuarantineWatch["tick"]>): void {
    if (!verdict) return;
    const { log } = this.#options;
    if (verdict.action === "restart") {
      log(
        "warn",
        `Output: ${verdict.reason} (its GL is stuck in the draw); starting the browser again (${verdict.figures})`,
      );
      this.#options.restart();
      return;
    }
    const name = this.#names.get(verdict.presetId) ?? "";
    log(
      "error",
      `Output: preset "${name}" (${verdict.presetId}) quarantined: ${verdict.reason} after it went on the output; ` +
        "it stays off the output until its code is edited",
    );
    this.#options.quarantine(verdict.presetId, verdict.reason);
    if (!verdict.restart) return;
    log(
      "warn",
      `Output: the page is stuck in the preset's draw; starting the browser again (${verdict.figures})`,
    );
    this.#options.restart();
  }
}
