/**
 * The output window of the application (`output/`): what it draws (the active Project as
 * it plays now) and what the window tells the app (the editor page shown, hidden or
 * closed, its edits, a preset to quarantine, a smaller drawing, a recording lost).
 * @module
 */
import type { EditApplyParams, EditApplyResult } from "../protocol/edits/mod.ts";
import { RpcErrorCode } from "../protocol/jsonrpc.ts";
import type { MidiLocalParams, OutputFrameAsk, OutputFrameResult } from "../protocol/methods.ts";
import type { Preset } from "../protocol/model.ts";
import { imageSize } from "image-size";
import { presetImagePath, presetImageType } from "./output/imported_images.ts";
import { writeFileAtomic } from "../lib/atomic_write.ts";
import { Refusal } from "./errors.ts";
import type { OutputMode } from "../protocol/output.ts";
import type { AppState, Camera } from "../protocol/state.ts";
import { type Clock, VirtualClock } from "./clock.ts";
import type { OpenProjects } from "./library/open_projects.ts";
import type { EditorForward } from "./output/editor_forward.ts";
import type { EditorHooks } from "./output/editor_page.ts";
import { type Output, startOutput } from "./output/mod.ts";
import type { Recorder } from "./recorder.ts";
import type { ProjectStore } from "./store.ts";

export { EditorForward } from "./output/editor_forward.ts";

/** What the output needs from the application (`PlayerApp`). */
export interface AppOutputHost {
  readonly clock: Clock;
  readonly store: ProjectStore;
  readonly appState: AppState;
  presets(): readonly Preset[];
  changeAppState(event: string, change: Partial<AppState>): void;
  applyBuiltEdits(build: () => EditApplyParams): Promise<EditApplyResult>;
  /** Where the editor page's edits go instead, in a rig group (protocol 1.17). */
  readonly editorForward: EditorForward;
  quarantinePreset(presetId: string, reason: string): Promise<boolean>;
  /** The output's local MIDI ports and their input, for the service (`midi.local`). */
  onMidi(event: MidiLocalParams): void;
}

/** The application's parts the output reads, and how it was asked to show (`PlayerOptions`). */
export interface AppOutputParts {
  projects: OpenProjects;
  cameras: () => Camera[];
  recorder: Recorder;
  output:
    | {
      mode: OutputMode;
      browser: string | null;
      frameBudgetMs?: number;
      midi?: boolean | readonly string[];
    }
    | undefined;
  log: ((level: "info" | "warn" | "error", message: string) => void) | undefined;
}

/** Starts the output of `app` (null when the show is not shown, mode `none`). */
export function startAppOutput(app: AppOutputHost, parts: AppOutputParts): Output | null {
  const { projects, output, log } = parts;
  return startOutput({
    mode: output?.mode ?? "none",
    browser: output?.browser ?? null,
    clock: app.clock,
    clockRate: app.clock instanceof VirtualClock ? 0 : 1,
    source: () => {
      const engine = projects.get(null);
      if (!engine) return null;
      return {
        project: engine.project,
        playState: engine.playState(),
        crossing: engine.crossing(),
        live: engine.live,
        appState: app.appState,
        presets: app.presets(),
        cameras: parts.cameras(),
      };
    },
    media: (projectId, fileId) => {
      const file = projects.engines.get(projectId)?.project.files.find((f) => f.id === fileId);
      return file
        ? { path: app.store.filePath(projectId, file.path), mimeType: file.mimeType }
        : null;
    },
    presetImage: (file) => {
      const path = presetImagePath(app.store.dataDir, file);
      return path ? { path, mimeType: presetImageType(file) } : null;
    },
    log: (level, message) => log?.(level, message),
    editor: editorHooks(app),
    ...(output?.frameBudgetMs ? { frameBudgetMs: output.frameBudgetMs } : {}),
    quarantine: (presetId, reason) => {
      app.quarantinePreset(presetId, reason).catch((error) =>
        log?.("error", `Cannot write the quarantine of preset "${presetId}": ${error.message}`)
      );
    },
    midi: (event) => app.onMidi(event),
    midiPorts: output?.midi ?? true,
    scaleChanged: (drawing) => app.changeAppState("output-scale-changed", { output: drawing }),
    // The recorder reports its state itself (`changed`).
    recordingLost: (outcome) => parts.recorder.lost(outcome),
  });
}

/** The capture files kept in each directory: the service reads one just after its answer. */
const KEPT_FRAMES = 8;
/** The files written in each directory, oldest first, and the count of them (for the names). */
const written = new Map<string, Promise<{ paths: string[]; count: number }>>();

/**
 * The output's picture now, as a file under `cache/output/` of `dataDir` (`output.frame`): a
 * PNG at the display's size, or the size and format asked (1.8), which the page makes itself.
 * Each request has its own file (`frame-<n>-<size>.<ext>`), so two captures at once never read
 * each other's; the oldest beyond the last `KEPT_FRAMES` are removed.
 * @throws {Refusal} UNAVAILABLE when no output runs
 */
export async function saveOutputFrame(
  output: Output | null,
  clock: Clock,
  dataDir: string,
  asked: OutputFrameAsk = {},
): Promise<OutputFrameResult> {
  if (!output) {
    throw new Refusal(
      "No output runs (the output setting is none, or no display or browser was found)",
      RpcErrorCode.UNAVAILABLE,
    );
  }
  const at = clock.now();
  const bytes = await output.frame(asked);
  const dir = `${dataDir}/cache/output`;
  const size = imageSize(bytes);
  const format = size.type === "jpg" ? "jpeg" : "png";
  const files = await filesOf(dir);
  const path = `${dir}/frame-${++files.count}-${asked.size ?? "full"}.${
    format === "jpeg" ? "jpg" : "png"
  }`;
  await writeFileAtomic(path, bytes);
  files.paths.push(path);
  for (const old of files.paths.splice(0, Math.max(0, files.paths.length - KEPT_FRAMES))) {
    await Deno.remove(old).catch(() => {});
  }
  return { path, at, width: size.width ?? 1, height: size.height ?? 1, format };
}

/** The files of `dir`, made and emptied of an earlier run's captures at its first use. */
function filesOf(dir: string): Promise<{ paths: string[]; count: number }> {
  let files = written.get(dir);
  if (!files) {
    files = (async () => {
      await Deno.mkdir(dir, { recursive: true });
      for await (const entry of Deno.readDir(dir)) {
        if (entry.isFile && entry.name.startsWith("frame")) {
          await Deno.remove(`${dir}/${entry.name}`).catch(() => {});
        }
      }
      return { paths: [], count: 0 };
    })();
    written.set(dir, files);
    // A failure is not kept: the next capture tries again.
    files.catch(() => written.delete(dir));
  }
  return files;
}

/**
 * What the editor page tells the app: its window shown, hidden or closed, and its edits:
 * applied here alone, sent to the service in a rig group (`editor_forward.ts`), built in
 * their turn either way (forwarded: when the page's edits before them were answered).
 */
export function editorHooks(app: AppOutputHost): EditorHooks {
  return {
    state: () => app.appState.editor,
    shown: () => {
      const editor = app.appState.editor;
      if (editor && !editor.shown) {
        app.changeAppState("editor-shown", { editor: { ...editor, shown: true } });
      }
    },
    hidden: () => {
      const editor = app.appState.editor;
      if (editor?.shown) {
        app.changeAppState("editor-hidden", { editor: { ...editor, shown: false } });
      }
    },
    closed: () => {
      if (app.appState.editor) app.changeAppState("editor-closed", { editor: null });
    },
    edit: (build: () => EditApplyParams) =>
      app.editorForward.isOn ? app.editorForward.forward(build()) : app.applyBuiltEdits(build),
  };
}
