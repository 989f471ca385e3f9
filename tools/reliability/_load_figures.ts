/**
 * The `load` probe's figures and targets, from what it read: `GET /health` and
 * `appState.output` each second under load, `appState.recording` after the
 * stop, ffprobe's count, the edits' audit, the shaders' verdicts. Each
 * function returns the notes to print and the shortfalls (missed targets); a
 * figure the service does not report is a shortfall naming it, never a pass.
 * @module
 */
import type { Audit } from "./_edit_load.ts";
import { percentile } from "./_tally.ts";

/** The `load` probe's targets (issue 39, "Must show"). */
export const LOAD_TARGETS = {
  /**
   * Mean frames drawn a second by the output under load at the scale it settled at (from its
   * last change of scale to the end of the load).
   */
  minFramesPerSecond: 5,
  /** Seconds at the settled scale needed for that figure. */
  minSettledSeconds: 5,
  /** Video frames in the recording, as a share of the frames the page drew while recording. */
  minRecordedShare: 0.8,
} as const;

/** Notes and missed targets of one part of the probe. */
export interface Findings {
  notes: string[];
  shortfalls: string[];
}

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === "object" && v !== null;
const round = (n: number, digits = 1) => Math.round(n * 10 ** digits) / 10 ** digits;
const numbers = (values: unknown[]) => values.filter((v): v is number => typeof v === "number");

/**
 * The output's figures from the `/health` answers sampled under load (`holdsFramesTarget`
 * false: the frames a second are a note, not a target): frames drawn a second
 * (mean and min), render scale, browser restarts (`browserStarts` - 1), and the player's
 * restarts as `/health` counts them.
 */
export function outputFindings(
  health: readonly unknown[],
  appOutput: readonly unknown[],
  options: { holdsFramesTarget?: boolean } = {},
): Findings {
  const notes: string[] = [];
  const shortfalls: string[] = [];
  const bodies = health.filter(isObject);
  if (bodies.length === 0) return { notes, shortfalls: ["no GET /health answered under load"] };
  if (!bodies.some((b) => "playerRestarts" in b)) {
    shortfalls.push("GET /health has no `playerRestarts`: player restarts not read from it");
  } else {
    const restarts = Math.max(0, ...numbers(bodies.map((b) => b.playerRestarts)));
    notes.push(`/health playerRestarts: ${restarts}`);
    if (restarts > 0) shortfalls.push(`GET /health counts ${restarts} player restart(s)`);
  }
  if (!bodies.some((b) => "output" in b)) {
    shortfalls.push(
      "GET /health has no `output`: frames drawn a second, render scale and browser restarts not measured",
    );
  } else {
    const missed = drawing(bodies.map((b) => b.output), notes);
    const isFrames = (s: string) =>
      s.startsWith("the output drew ") || s.includes("only: no figure");
    shortfalls.push(...missed.filter((s) => options.holdsFramesTarget !== false || !isFrames(s)));
    for (const s of missed.filter((s) => options.holdsFramesTarget === false && isFrames(s))) {
      notes.push(`${s} (no target in the short run: its 30 s of load are a third ramp)`);
    }
  }
  shortfalls.push(...scaleState(appOutput, notes));
  return { notes, shortfalls };
}

/** Frames a second and browser starts from `/health`'s `output` (null while none runs). */
function drawing(outputs: unknown[], notes: string[]): string[] {
  const running = outputs.filter(isObject);
  const absent = outputs.length - running.length;
  if (running.length === 0) return ["GET /health `output` was null throughout: no output ran"];
  const shortfalls: string[] = [];
  if (absent > 0) {
    shortfalls.push(`GET /health \`output\` null in ${absent} of ${outputs.length} s`);
  }
  const scales = numbers(running.map((o) => o.renderScale));
  const starts = numbers(running.map((o) => o.browserStarts));
  const fps = numbers(running.map((o) => o.framesPerSecond));
  if (fps.length === 0) shortfalls.push("GET /health `output` has no `framesPerSecond`");
  else shortfalls.push(...framesAtScale(running, fps, notes));
  if (scales.length > 0) {
    notes.push(`render scale: min ${Math.min(...scales)}, last ${scales.at(-1)}`);
  } else shortfalls.push("GET /health `output` has no `renderScale`");
  if (starts.length === 0) shortfalls.push("GET /health `output` has no `browserStarts`");
  else {
    const restarts = Math.max(...starts) - 1;
    notes.push(`browser restarts (/health browserStarts - 1): ${restarts}`);
    if (restarts > 0) shortfalls.push(`${restarts} browser restart(s)`);
  }
  return shortfalls;
}

/**
 * Frames a second over the whole load (a note) and at the scale the output settled at: the
 * seconds from its last change of scale to the end (the target, "at the lowered scale"; the
 * seconds it took to step down are the ramp, not the figure). Settled for fewer than
 * `minSettledSeconds` is a shortfall: no figure at the lowered scale.
 */
function framesAtScale(running: Json[], fps: number[], notes: string[]): string[] {
  const mean = (values: number[]) => values.reduce((a, b) => a + b, 0) / values.length;
  const target = LOAD_TARGETS.minFramesPerSecond;
  notes.push(
    `frames drawn a second over the load: mean ${round(mean(fps))}, min ${
      round(Math.min(...fps))
    } over ${fps.length} s (${fps.filter((f) => f < target).length} s under ${target})`,
  );
  const last = running.at(-1)!.renderScale;
  let from = running.length;
  while (from > 0 && running[from - 1]!.renderScale === last) from--;
  const settled = numbers(running.slice(from).map((o) => o.framesPerSecond));
  if (settled.length < LOAD_TARGETS.minSettledSeconds) {
    return [
      `the output held its last scale (${last}) for ${settled.length} s only: ` +
      `no figure at the lowered scale (at least ${LOAD_TARGETS.minSettledSeconds} s)`,
    ];
  }
  notes.push(
    `frames drawn a second at scale ${last} (the last ${settled.length} s): mean ${
      round(mean(settled))
    }, min ${round(Math.min(...settled))}`,
  );
  if (mean(settled) >= target) return [];
  return [
    `the output drew ${round(mean(settled))} frames a second at scale ${last} under load ` +
    `(target >= ${target})`,
  ];
}

/** `appState.output` (`{renderScale, reason}`): what the scale was lowered to, and why. */
function scaleState(appOutput: readonly unknown[], notes: string[]): string[] {
  const states = appOutput.filter(isObject);
  if (states.length === 0) return ["appState has no `output` ({renderScale, reason})"];
  const seen = new Set(states.map((s) => `${s.renderScale} (${s.reason ?? "no reason"})`));
  notes.push(`appState.output seen: ${[...seen].join(", ")}`);
  return [];
}

/** The fields `appState.recording` carries about a recording (docs: issue 39). */
export const RECORDING_FIGURES = [
  "bytes",
  "seconds",
  "videoFrames",
  "framesDrawn",
  "framesMissed",
  "noPictureSince",
  "error",
] as const;

/** What the probe knows of the recording once stopped. */
export interface RecordingRead {
  /** `appState.recording` after the stop. */
  recording: unknown;
  /** Video frames ffprobe counted in the file (`-count_frames`), or why it could not. */
  probed: { videoFrames: number } | { error: string };
  /** Frames drawn while recording by `/health` (`output.framesDrawn` at the stop minus at the start), or null. */
  drawnByHealth: number | null;
}

/** The recording against the frames the page drew while recording (target: at least 80%). */
export function recordingFindings(read: RecordingRead): Findings {
  const notes: string[] = [];
  const shortfalls: string[] = [];
  const rec = isObject(read.recording) ? read.recording : {};
  const missing = RECORDING_FIGURES.filter((f) => !(f in rec));
  if (missing.length > 0) {
    shortfalls.push(`appState.recording has no ${missing.map((f) => `\`${f}\``).join(", ")}`);
  }
  const shown = ["state", "file", ...RECORDING_FIGURES].filter((f) => f in rec)
    .map((f) => `${f} ${JSON.stringify(rec[f])}`);
  notes.push(`appState.recording after the stop: ${shown.join(", ")}`);
  if (rec.state !== "idle") shortfalls.push(`the recording still ${rec.state} after the stop`);
  if ("error" in read.probed) {
    shortfalls.push(`ffprobe cannot read the recording: ${read.probed.error}`);
    return { notes, shortfalls };
  }
  const drawn = typeof rec.framesDrawn === "number" ? rec.framesDrawn : read.drawnByHealth;
  const from = typeof rec.framesDrawn === "number" ? "appState.recording" : "/health";
  if (drawn === null) {
    shortfalls.push("frames the page drew while recording: not reported (no figure to compare)");
    notes.push(`ffprobe: ${read.probed.videoFrames} video frames`);
    return { notes, shortfalls };
  }
  const share = drawn === 0 ? 0 : read.probed.videoFrames / drawn;
  notes.push(
    `ffprobe: ${read.probed.videoFrames} video frames of ${drawn} drawn while recording (${from}), ` +
      `${Math.round(share * 100)}%`,
  );
  if (drawn === 0) shortfalls.push("the page drew no frame while recording");
  else if (share < LOAD_TARGETS.minRecordedShare) {
    shortfalls.push(
      `the recording holds ${Math.round(share * 100)}% of the frames drawn (target >= ${
        LOAD_TARGETS.minRecordedShare * 100
      }%)`,
    );
  }
  return { notes, shortfalls };
}

/** A refusal for the time a check took (docs/presets.md: "checking the code took more than 3 s"). */
const TIMED_OUT = /took more than/;

/** A shader's verdict: `valid`, `invalid: <problems>`, or how the request failed. */
export type Verdict = string;

/** The verdicts under load against the quiet ones, by file name (target: none differs). */
export function verdictFindings(
  quiet: ReadonlyMap<string, Verdict>,
  loaded: ReadonlyMap<string, Verdict>,
): Findings {
  const differ = [...quiet].filter(([name, v]) => loaded.has(name) && loaded.get(name) !== v);
  const unchecked = [...quiet.keys()].filter((name) => !loaded.has(name));
  const valid = [...quiet.values()].filter((v) => v === "valid").length;
  const notes = [
    `verdicts: ${quiet.size} shaders checked quiet (${valid} valid), ${loaded.size} under load, ${differ.length} differ`,
  ];
  const timed = [...quiet].filter(([, v]) => TIMED_OUT.test(v)).map(([name]) => name);
  if (timed.length > 0) {
    notes.push(
      `${timed.length} quiet verdict(s) refused for time, so the quiet run was not quiet: ${
        timed.slice(0, 3).join(", ")
      }`,
    );
  }
  const shortfalls: string[] = [];
  if (differ.length > 0) {
    const shown = differ.slice(0, 3).map(([name, v]) =>
      `${name}: quiet ${v.slice(0, 80)}, under load ${loaded.get(name)!.slice(0, 120)}`
    );
    shortfalls.push(`${differ.length} verdict(s) differ from the quiet run: ${shown.join(" | ")}`);
  }
  if (unchecked.length > 0) {
    shortfalls.push(`${unchecked.length} shader(s) not checked under load: ${unchecked[0]}...`);
  }
  return { notes, shortfalls };
}

/** p99 and count of round trips, ms, as a note's words. */
export function p99Words(ms: readonly number[]): string {
  return `p99 ${percentile(ms, 0.99) ?? "-"} ms (${ms.length})`;
}

/** What the edit client saw and what the Songs found say (`EditLoad` and its `audit`). */
export interface EditRead {
  sent: number;
  acked: number;
  refused: ReadonlyMap<string, string>;
  unsettled: ReadonlyMap<string, string>;
  retryAnswers: ReadonlyMap<string, number>;
  audit: Audit;
}

/**
 * Edits answered and applied: every one answered OK applied once (lost and `dup` are the row's
 * columns), none answered with an error applied (target: 0).
 */
export function editFindings(read: EditRead): Findings {
  const { audit } = read;
  const retried = [...read.retryAnswers].map(([k, n]) => `${n}x ${k}`).join(", ") || "none";
  const notes = [
    `edits: ${read.sent} sent, ${read.acked} answered OK, ${read.refused.size} answered with an error, ` +
    `${read.unsettled.size} without a definite answer; answers retried: ${retried}`,
    `edits applied: OK-answered lost ${audit.missing.length}, applied twice ${audit.duplicates}, ` +
    `error-answered applied ${audit.refusedApplied.length}, unanswered applied ${audit.unsettledApplied.length}`,
  ];
  const shortfalls: string[] = [];
  if (audit.refusedApplied.length > 0) {
    const shown = audit.refusedApplied.slice(0, 3)
      .map((title) => `"${title}" (${read.refused.get(title)})`);
    shortfalls.push(
      `${audit.refusedApplied.length} edit(s) answered with an error were applied: ${
        shown.join(", ")
      }`,
    );
  }
  return { notes, shortfalls };
}
