/**
 * The server's copy of the player's state, built from the snapshot and kept
 * current by applying each state update. Queries read it without crossing
 * the process boundary.
 * @module
 */
import type { Clip, Preset, Project, Song } from "../../protocol/model.ts";
import type {
  AppState,
  LiveValues,
  PlayState,
  Snapshot,
  StateUpdate,
} from "../../protocol/state.ts";
import { playStateAt } from "../../protocol/positions.ts";
import { applyPatch, type ProjectPatch } from "../../protocol/patch.ts";
import type { DataProblem, LibraryEntry } from "../../protocol/library.ts";
import { ImportJobs, type ImportJobView } from "./imports.ts";

interface ProjectEntry {
  project: Project;
  clipIndex: Map<string, number>;
  songIndex: Map<string, number>;
}

function entryOf(project: Project): ProjectEntry {
  return {
    project,
    clipIndex: new Map(project.clips.map((c, i) => [c.id, i])),
    songIndex: new Map(project.songs.map((s, i) => [s.id, i])),
  };
}

/**
 * The read model. Empty until `load`. It replaces the objects it hands out
 * and never mutates them (the HTTP layer caches their JSON by identity);
 * only the live-value maps change in place, and they are never handed out
 * as an answer of their own.
 */
export class ReadModel {
  #snapshot: Snapshot | null = null;
  #projects = new Map<string, ProjectEntry>();
  #playstates = new Map<string, PlayState>();
  #live = new Map<string, LiveValues>();
  #jobs = new ImportJobs();
  /** The player's clock as last reported, and this process's clock then. */
  #clock = { player: 0, local: 0, isVirtual: false };
  #clockListeners = new Set<() => void>();

  /** Whether a snapshot was loaded. */
  get isLoaded(): boolean {
    return this.#snapshot !== null;
  }

  /**
   * Anchors the player's clock: `now` is its reading (ms). A virtual clock
   * stands still between readings; a real one runs with ours.
   */
  setClock(now: number, isVirtual = this.#clock.isVirtual): void {
    this.#clock = { player: now, local: performance.now(), isVirtual };
    for (const listener of this.#clockListeners) listener();
  }

  /** Whether the player's clock is virtual: it moves only when read again. */
  get isClockVirtual(): boolean {
    return this.#clock.isVirtual;
  }

  /**
   * Calls `listener` after each new reading of the player's clock (what runs
   * at a player time, such as an OSC bundle's timetag, looks then).
   * @returns the function that stops it
   */
  watchClock(listener: () => void): () => void {
    this.#clockListeners.add(listener);
    return () => this.#clockListeners.delete(listener);
  }

  /** The player's clock now, as best known. */
  playerNow(): number {
    const c = this.#clock;
    return c.isVirtual ? c.player : c.player + (performance.now() - c.local);
  }

  /** Replaces everything with a snapshot; the player's copies in progress are forgotten. */
  load(snapshot: Snapshot): void {
    this.#jobs.dropCopies();
    this.#snapshot = structuredClone(snapshot);
    this.#projects = new Map(this.#snapshot.projects.map((p) => [p.id, entryOf(p)]));
    this.#playstates = new Map(this.#snapshot.playstates.map((p) => [p.projectId, p]));
    this.#live = new Map(Object.entries(this.#snapshot.live));
  }

  /** Applies one update from the player. Unknown events are ignored. */
  apply(update: StateUpdate): void {
    const s = this.#snapshot;
    if (!s) return;
    const { data } = update;
    const pid = update.projectId;
    switch (update.updateType) {
      case "full":
        if (data.state) this.load(data.state as Snapshot);
        return;
      case "appState":
        if (data.appState) s.appState = data.appState as AppState;
        return;
      case "volume":
        s.appState = { ...s.appState, volume: data.level as number, muted: data.muted as boolean };
        return;
      case "presets":
        if (data.presets) s.presets = data.presets as Preset[];
        return;
      case "project":
        if (this.#jobs.apply(update)) return;
        if (data.project) this.#putProject(data.project as Project);
        if (data.event === "project-edited" && pid) {
          const project = this.project(pid);
          if (project) {
            this.#putProject({
              ...applyPatch(project, data.patch as ProjectPatch),
              revision: data.revision as number,
            });
          }
        }
        if (data.event === "active-project-changed") {
          s.activeProjectId = data.activeProjectId as string | null;
        }
        if (data.event === "project-opened") this.#opened(data);
        if (data.event === "project-closed" && pid) {
          this.#projects.delete(pid);
          this.#playstates.delete(pid);
          this.#live.delete(pid);
        }
        if (data.library) s.library = data.library as LibraryEntry[];
        return;
      case "playstate":
        if (!pid) return;
        if (data.playstate) this.#playstates.set(pid, data.playstate as PlayState);
        if (data.event === "control-changed") {
          this.#liveOf(pid).controls[data.controlID as string] = data.value as number;
        }
        return;
      case "clip":
        if (!pid) return;
        if (data.event === "param-changed") {
          const params = this.#liveOf(pid).params;
          (params[data.clipID as string] ??= {})[data.parameter as string] = data.value as number;
        } else if (data.clip) this.#putItem(pid, "clips", data.clip as Clip, data.revision);
        return;
      case "song":
        if (pid && data.song) this.#putItem(pid, "songs", data.song as Song, data.revision);
        return;
    }
  }

  /** Player name, version and entitlements. */
  get player(): Snapshot["player"] | null {
    return this.#snapshot?.player ?? null;
  }

  get entitlements(): Snapshot["entitlements"] | null {
    return this.#snapshot?.entitlements ?? null;
  }

  get activeProjectId(): string | null {
    return this.#snapshot?.activeProjectId ?? null;
  }

  get appState(): AppState | null {
    return this.#snapshot?.appState ?? null;
  }

  get presets(): readonly Preset[] {
    return this.#snapshot?.presets ?? [];
  }

  get cameras(): Snapshot["cameras"] {
    return this.#snapshot?.cameras ?? [];
  }

  /** Imports and uploads under way, oldest first. */
  imports(): ImportJobView[] {
    return this.#jobs.list();
  }

  /** All projects, in the player's order. */
  projects(): Project[] {
    return [...this.#projects.values()].map((e) => e.project);
  }

  project(id: string): Project | undefined {
    return this.#projects.get(id)?.project;
  }

  clip(projectId: string, clipId: string): Clip | undefined {
    const entry = this.#projects.get(projectId);
    const i = entry?.clipIndex.get(clipId);
    return i === undefined ? undefined : entry!.project.clips[i];
  }

  song(projectId: string, songId: string): Song | undefined {
    const entry = this.#projects.get(projectId);
    const i = entry?.songIndex.get(songId);
    return i === undefined ? undefined : entry!.project.songs[i];
  }

  /** The play state with positions as they are now (extrapolated on the player's clock). */
  playstate(projectId: string): PlayState | undefined {
    const state = this.#playstates.get(projectId);
    return state && playStateAt(state, this.playerNow());
  }

  live(projectId: string): LiveValues {
    return this.#liveOf(projectId);
  }

  /** The whole state as a snapshot (for `full` updates). */
  snapshot(): Snapshot | null {
    const s = this.#snapshot;
    if (!s) return null;
    return {
      ...s,
      now: this.playerNow(),
      projects: this.projects(),
      playstates: [...this.#playstates.values()],
      live: Object.fromEntries(this.#live),
    };
  }

  /** A Project opened after start: its document, play state and live values. */
  #opened(data: Record<string, unknown>): void {
    const project = data.project as Project;
    this.#putProject(project);
    if (data.playstate) this.#playstates.set(project.id, data.playstate as PlayState);
    this.#live.set(
      project.id,
      (data.live as LiveValues | undefined) ?? { controls: {}, params: {} },
    );
  }

  /** Every Project on disk with its state (`protocol/library.ts`). */
  get library(): readonly LibraryEntry[] {
    return this.#snapshot?.library ?? [];
  }

  /** The files of the data dir the player found damaged at start. */
  get problems(): readonly DataProblem[] {
    return this.#snapshot?.problems ?? [];
  }

  #liveOf(projectId: string): LiveValues {
    let live = this.#live.get(projectId);
    if (!live) this.#live.set(projectId, live = { controls: {}, params: {} });
    return live;
  }

  #putProject(project: Project): void {
    this.#projects.set(project.id, entryOf(project));
  }

  /** Inserts or replaces one Clip or Song of a project, keeping its index current. */
  #putItem<K extends "clips" | "songs">(
    projectId: string,
    key: K,
    item: Project[K][number],
    revision: unknown,
  ): void {
    const entry = this.#projects.get(projectId);
    if (!entry) return;
    const index = key === "clips" ? entry.clipIndex : entry.songIndex;
    const items = [...entry.project[key]] as Project[K][number][];
    const i = index.get(item.id);
    if (i === undefined) {
      index.set(item.id, items.length);
      items.push(item);
    } else items[i] = item;
    entry.project = {
      ...entry.project,
      [key]: items,
      revision: typeof revision === "number" ? revision : entry.project.revision,
    };
  }
}
