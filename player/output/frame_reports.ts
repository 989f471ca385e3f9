/**
 * What the page tells of its frames: its reports (newest last, ten minutes of them), the
 * frames drawn, the scale it draws at (said once per change), and the files it could not
 * decode (said once each, whatever the page's reloads).
 * @module
 */
import type { GlObjects, OutputStats } from "../../protocol/output.ts";
import type { OutputDrawing } from "../../protocol/state.ts";
import type { Report } from "./page_socket.ts";

/** A frame report of the page, with the player clock it arrived at. */
export type PageReport = Report & { receivedAt: number };

/** Reports kept: one a second, ten minutes. */
const REPORTS_KEPT = 600;

/** Faults kept, the oldest forgotten past it. */
const FAULTS_KEPT = 256;

/** Options of `FrameReports`. */
export interface FrameReportsOptions {
  log: (level: "info" | "warn" | "error", message: string) => void;
  /** The page's render scale changed (said once per change, and logged). */
  scaleChanged?: (drawing: OutputDrawing) => void;
}

/** The page's frame reports and faults, kept and said. */
export class FrameReports {
  /** The page's frame reports, newest last. */
  readonly reports: PageReport[] = [];
  /** Files the page could not decode, logged once each. */
  readonly faults: string[] = [];
  #options: FrameReportsOptions;
  /** Frames the pages reported drawn, every report summed. */
  #framesDrawn = 0;
  /** The scale the page last reported drawing at. */
  #renderScale = 1;
  /** The page's live GL objects, as its last report said. */
  #glObjects: GlObjects | null = null;

  /** No report yet; the page draws at scale 1. */
  constructor(options: FrameReportsOptions) {
    this.#options = options;
  }

  /** Frames the pages reported drawn, every report summed. */
  get framesDrawn(): number {
    return this.#framesDrawn;
  }

  /** The scale the page last reported drawing at. */
  get renderScale(): number {
    return this.#renderScale;
  }

  /** The page's live GL objects by kind, as its last report said (null: none yet). */
  get glObjects(): GlObjects | null {
    return this.#glObjects;
  }

  /**
   * The output's figures the reports tell (`OutputStats`): frames drawn, in the last report, the
   * scale, the GL objects, and how far the frames lagged the player's clock (the last report's).
   */
  get figures(): Pick<
    OutputStats,
    "framesDrawn" | "framesPerSecond" | "renderScale" | "glObjects" | "frameLagMs" | "frameLagMaxMs"
  > {
    const last = this.reports.at(-1);
    return {
      framesDrawn: this.#framesDrawn,
      framesPerSecond: last?.frames ?? 0,
      renderScale: this.#renderScale,
      glObjects: this.#glObjects,
      frameLagMs: last?.frameLagMs ?? null,
      frameLagMaxMs: last?.frameLagMaxMs ?? null,
    };
  }

  /** Keeps a report that arrived at `receivedAt` (player clock). */
  take(report: Report, receivedAt: number): void {
    this.reports.push({ ...report, receivedAt });
    if (report.glObjects) this.#glObjects = report.glObjects;
    this.#framesDrawn += report.frames;
    if (this.reports.length > REPORTS_KEPT) this.reports.shift();
  }

  /** Says a new render scale once: one log line, and `scaleChanged` (`appState.output`). */
  scale(renderScale: number, reason: string | null): void {
    if (renderScale === this.#renderScale) return;
    const from = this.#renderScale;
    this.#renderScale = renderScale;
    this.#options.log(
      renderScale < from ? "warn" : "info",
      `Output: drawing at scale ${renderScale} (was ${from})${reason ? `: ${reason}` : ""}`,
    );
    this.#options.scaleChanged?.({ renderScale, reason });
  }

  /** A Clip shows its card (or, without a Clip, the page failed): said once per file and reason. */
  fault(clipId: string, message: string): void {
    const key = `${clipId}: ${message}`;
    if (this.faults.includes(key)) return;
    if (this.faults.length >= FAULTS_KEPT) this.faults.shift();
    this.faults.push(key);
    this.#options.log(
      "warn",
      clipId ? `Output: Clip "${clipId}" shows its card: ${message}` : `Output: ${message}`,
    );
  }
}
