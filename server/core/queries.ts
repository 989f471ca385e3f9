/**
 * Every read of the API, answered from the read model (never crossing the
 * process boundary). Transports call these; they throw NOT_READY while the
 * player is down and NOT_FOUND naming what is missing.
 * @module
 */
import { projectMissing } from "./project_missing.ts";
import { PresetKind, type Project } from "../../protocol/model.ts";
import type { AppState, Camera } from "../../protocol/state.ts";
import { CueportError } from "./errors.ts";
import { stableAnswer } from "./views.ts";
import type { ReadModel } from "./read_model.ts";
import type { ImportJobView } from "./imports.ts";
import {
  type ClipDetailView,
  clipPlaces,
  clipView,
  type EffectView,
  effectView,
  fileView,
  type PlayStateView,
  playStateView,
  type PresetView,
  presetView,
  type ProjectListItemView,
  type ProjectSummaryView,
  type ProjectView,
  projectView,
  type SongDetailView,
  type SongView,
  songView,
  type VisualizerView,
  visualizerView,
} from "./views.ts";

/** The read side of the core. */
export class Queries {
  #model: ReadModel;
  #isReady: () => boolean;
  /** Full views by document; a changed project is a new object, so entries never go stale. */
  #views = new WeakMap<Project, { isActive: boolean; view: ProjectView }>();

  /** Reads `model`; `isReady` says whether the player is up. */
  constructor(model: ReadModel, isReady: () => boolean) {
    this.#model = model;
    this.#isReady = isReady;
  }

  /**
   * Every open Project and every damaged one; with `all`, the closed and deleted ones of the
   * library too. Open ones first, then the others, each by name then id (as the player's store
   * reads them at start): the same order before and after a restart.
   */
  projects(all = false): ProjectListItemView[] {
    this.#ready();
    const active = this.#model.activeProjectId;
    const library = this.#model.library;
    const open = this.#model.projects().map((p): ProjectListItemView => ({
      projectId: p.id,
      name: p.name,
      songCount: p.songs.length,
      clipCount: p.clips.length,
      active: p.id === active,
      state: "open",
      problem: library.find((e) => e.projectId === p.id)?.problem ?? null,
    }));
    const others = library
      .filter((e) => e.state !== "open" && (all || e.state === "damaged"))
      .map(({ projectId, name, state, songCount, clipCount, problem }) => ({
        projectId,
        name,
        songCount,
        clipCount,
        active: false,
        state,
        problem,
      }));
    return [...open.sort(byNameThenId), ...others.sort(byNameThenId)];
  }

  /** One Project in full; the same object until the project changes. */
  project(projectId: string): ProjectView {
    const p = this.#project(projectId);
    const isActive = p.id === this.#model.activeProjectId;
    const cached = this.#views.get(p);
    if (cached?.isActive === isActive) return cached.view;
    const view = stableAnswer(projectView(p, isActive));
    this.#views.set(p, { isActive, view });
    return view;
  }

  /** Names and counts only. */
  summary(projectId: string): ProjectSummaryView {
    const p = this.#project(projectId);
    return {
      projectId: p.id,
      name: p.name,
      active: p.id === this.#model.activeProjectId,
      counts: {
        songs: p.songs.length,
        clips: p.clips.length,
        files: p.files.length,
        effects: p.effects.length,
        visualizers: p.visualizers.length,
      },
      songs: p.songs.map((s, i) => ({
        songID: s.id,
        title: s.title,
        position: i,
        clipCount: s.clips.length,
      })),
    };
  }

  /** What plays in a Project. */
  playstate(projectId: string): PlayStateView {
    this.#project(projectId);
    const ps = this.#model.playstate(projectId);
    if (!ps) throw new CueportError("NOT_FOUND", `Project "${projectId}" has no play state`);
    return playStateView(ps, this.#model.live(projectId).controls);
  }

  /** The active Project and its play state together. */
  active(): { project: ProjectView; playstate: PlayStateView } {
    this.#ready();
    const id = this.#model.activeProjectId;
    if (!id) throw new CueportError("NOT_FOUND", "No Project is active");
    return { project: this.project(id), playstate: this.playstate(id) };
  }

  /** Full screen, mute, volume, recording, editor. */
  appState(): AppState {
    this.#ready();
    return stableAnswer(this.#model.appState!);
  }

  /** The Songs of a Project. */
  songs(projectId: string): SongView[] {
    return this.project(projectId).songs;
  }

  /** One Song with its Clips in full. */
  song(projectId: string, songId: string): SongDetailView {
    const p = this.#project(projectId);
    const index = p.songs.findIndex((s) => s.id === songId);
    if (index < 0) {
      throw new CueportError(
        "NOT_FOUND",
        `Song "${songId}" does not exist in project "${projectId}"`,
      );
    }
    const song = p.songs[index]!;
    const files = new Map(p.files.map((f) => [f.id, f]));
    return { ...songView(song, index, files), clips: this.clips(projectId, song.clips) };
  }

  /**
   * Clips by id, in the order asked, with file and current state.
   * @throws {CueportError} NOT_FOUND listing every missing id
   */
  clips(projectId: string, ids: readonly string[]): ClipDetailView[] {
    const p = this.#project(projectId);
    const missing = ids.filter((id) => !this.#model.clip(projectId, id));
    if (missing.length > 0) {
      throw new CueportError(
        "NOT_FOUND",
        `Clip(s) not found in project "${projectId}": ${missing.join(", ")}`,
        { missing },
      );
    }
    const places = clipPlaces(p);
    const playing = new Map(
      (this.#model.playstate(projectId)?.clips ?? []).map((c) => [c.clipID, c]),
    );
    const live = this.#model.live(projectId).params;
    return ids.map((id) => {
      const clip = this.#model.clip(projectId, id)!;
      const file = clip.fileId ? p.files.find((f) => f.id === clip.fileId) : undefined;
      const play = playing.get(id);
      return {
        ...clipView(clip, places.get(id)),
        file: file ? fileView(file) : null,
        current: {
          state: play?.state ?? "stopped",
          position: play?.position ?? null,
          held: play?.held ?? false,
          velocity: play?.velocity ?? null,
          gain: play?.gain ?? null,
          live: live[id] ?? {},
        },
      };
    });
  }

  /** Effects of a Project. */
  effects(projectId: string): EffectView[] {
    return this.#project(projectId).effects.map(effectView);
  }

  /** Visualizers of a Project. */
  visualizers(projectId: string): VisualizerView[] {
    return this.#project(projectId).visualizers.map(visualizerView);
  }

  /** Every Effect and Visualizer preset. */
  presets(): PresetView[] {
    this.#ready();
    return this.#model.presets.map(presetView);
  }

  /** One preset by kind and id. */
  preset(kind: string, presetId: string): PresetView {
    if (!(PresetKind.options as readonly string[]).includes(kind)) {
      throw new CueportError(
        "INVALID_MESSAGE",
        `Invalid kind: must be ${PresetKind.options.join(", ")}, got "${kind}"`,
        {
          field: "kind",
          value: kind,
        },
      );
    }
    this.#ready();
    const preset = this.#model.presets.find((p) => p.id === presetId && p.kind === kind);
    if (!preset) {
      throw new CueportError("NOT_FOUND", `The ${kind} preset "${presetId}" does not exist`);
    }
    return presetView(preset);
  }

  /** Imports and uploads under way, with their bytes so far, oldest first. */
  imports(): ImportJobView[] {
    this.#ready();
    return this.#model.imports();
  }

  /** Cameras. */
  cameras(): Camera[] {
    this.#ready();
    return this.#model.cameras;
  }

  #ready(): void {
    if (!this.#isReady()) {
      throw new CueportError("NOT_READY", "The player is not ready; try again shortly");
    }
  }

  /**
   * The stored Project, for reads that need more than its view (its files' paths).
   * @throws {CueportError} NOT_READY, NOT_FOUND
   */
  projectModel(projectId: string): Project {
    return this.#project(projectId);
  }

  #project(projectId: string): Project {
    this.#ready();
    const p = this.#model.project(projectId);
    if (!p) throw projectMissing(this.#model.library, projectId, "projectId");
    return p;
  }
}

/** The order of the Project list: by name, then id. */
function byNameThenId(
  a: { name: string; projectId: string },
  b: { name: string; projectId: string },
): number {
  return a.name.localeCompare(b.name) || a.projectId.localeCompare(b.projectId);
}
