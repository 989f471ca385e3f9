/**
 * The library's open Projects: one engine each, which one is active, and the live state
 * carried for those that are not open. Opening and taking one out of play tell every client.
 * @module
 */
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { LibraryEntry } from "../../protocol/library.ts";
import type { ActionOutcome, MediaLocateResult } from "../../protocol/methods.ts";
import type { Project } from "../../protocol/model.ts";
import type { StateUpdate } from "../../protocol/state.ts";
import { type ProjectLive, restoreEngine } from "../engine/live_snapshot.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { quoted, Refusal } from "../errors.ts";
import { ensureControls } from "../project_defaults.ts";
import type { AppliedKey } from "../applied_keys.ts";
import { DamagedProjectError, type ProjectStore } from "../store.ts";
import { NotOpenProjects } from "./not_open.ts";

/** What the open Projects need from the application (`PlayerApp`). */
export interface OpenProjectsHost {
  readonly store: ProjectStore;
  /** A new engine for `project`. */
  createEngine(project: Project): ProjectEngine;
  /** Readies what a Project opened after start brings (its pending presets, its retry keys). */
  beforeOpen(id: string, appliedKeys: AppliedKey[]): Promise<void>;
  /** Forgets an open Project's history and retry keys (`Editor.forget`). */
  forget(id: string): void;
  emit(update: StateUpdate): void;
  /** Saves the settings (the active Project, the closed ones) soon. */
  saveSettings(): void;
  /** Logs a problem found in the data dir. */
  warn(message: string): void;
}

/** The open Projects and the active one, beside those that are not open. */
export class OpenProjects {
  /** One engine per open Project, by id. */
  readonly engines = new Map<string, ProjectEngine>();
  /** The Projects that are not open, and the problems found. */
  readonly notOpen: NotOpenProjects;
  #activeId: string | null = null;
  /**
   * The Projects' entries of the last live state read or written: those of Projects not
   * open are written again from here (never dropped), and restored when one is opened.
   */
  #lastLive: Record<string, ProjectLive> = {};
  #host: OpenProjectsHost;

  /** None open yet; `load` opens those on disk. */
  constructor(host: OpenProjectsHost) {
    this.#host = host;
    this.notOpen = new NotOpenProjects((message) => host.warn(message));
  }

  /** The active Project's id: actions and queries without a `projectID` go to it. */
  get activeId(): string | null {
    return this.#activeId;
  }

  /** The engine of open Project `id` (null: the active one), or undefined. */
  get(id: string | null): ProjectEngine | undefined {
    const wanted = id ?? this.#activeId;
    return wanted ? this.engines.get(wanted) : undefined;
  }

  /**
   * The engine of open Project `id` (null: the active one).
   * @throws {Refusal} naming why it is not there (damaged, closed, deleted, unknown)
   */
  engine(id: string | null): ProjectEngine {
    const engine = this.get(id);
    if (engine) return engine;
    throw this.notOpen.missingRefusal(id ?? this.#activeId);
  }

  /** Every Project of the library: the open ones, then those that are not, by name. */
  library(): LibraryEntry[] {
    const open = [...this.engines.values()].map(({ project }): LibraryEntry => ({
      projectId: project.id,
      name: project.name,
      state: "open",
      songCount: project.songs.length,
      clipCount: project.clips.length,
      problem: this.notOpen.problemOf(project.id),
    }));
    return [...open, ...this.notOpen.entries];
  }

  /**
   * Opens the Projects loaded at start (those closed are listed, not opened) and makes
   * `activeId` the active one when it opened, else the first open one.
   */
  load(projects: Project[], closedIds: readonly string[], activeId: string | null): void {
    for (const doc of this.notOpen.leaveClosed(projects, closedIds)) {
      const project = ensureControls(doc);
      this.engines.set(project.id, this.#host.createEngine(project));
    }
    this.#activeId = activeId && this.engines.has(activeId)
      ? activeId
      : this.engines.keys().next().value ?? null;
    this.notOpen.wantActive(activeId);
  }

  /** Disposes every engine; `clear` forgets them too (a reload opens them again). */
  disposeAll(clear: boolean): void {
    for (const engine of this.engines.values()) engine.dispose();
    if (clear) this.engines.clear();
  }

  /**
   * Opens the Project whose folder `projects/<id>` was just put in place (created,
   * duplicated, imported, restored or reopened): loads it, gives it an engine, and tells
   * every client (`project-opened` with the library after it). When no Project was active,
   * it becomes the active one (`active-project-changed`).
   * @throws {Refusal} when a Project of that id is open already
   * @throws {Error} when its file cannot be read (`ProjectStore.readProject`)
   */
  async adopt(
    id: string,
    reason: "created" | "duplicated" | "imported" | "restored" | "opened",
  ): Promise<Project> {
    if (this.engines.has(id)) throw new Refusal(`Project "${id}" is open already`);
    const { project: doc, appliedKeys, problem } = await this.#readProject(id);
    if (this.engines.has(id)) throw new Refusal(`Project "${id}" is open already`);
    if (problem) this.notOpen.noteProblems([problem]);
    const project = ensureControls(doc);
    await this.#host.beforeOpen(id, appliedKeys);
    const engine = this.#host.createEngine(project);
    this.engines.set(id, engine);
    // Its live state, carried while it was not open (`live_state.ts`); no time passed for it.
    const live = this.#lastLive[id];
    if (live && (reason === "opened" || reason === "restored")) restoreEngine(engine, live, 0);
    const wasClosed = this.notOpen.isClosed(id);
    this.notOpen.forget(id);
    if (wasClosed) this.#host.saveSettings();
    this.#host.emit({
      updateType: "project",
      projectId: id,
      data: {
        event: "project-opened",
        reason,
        project,
        playstate: engine.playState(),
        live: engine.live,
        library: this.library(),
      },
    });
    if (this.#activeId === null) this.#moveActive(id);
    return project;
  }

  /** Reads Project `id`'s folder; one that does not read is listed damaged (a restore of one). */
  async #readProject(id: string): ReturnType<ProjectStore["readProject"]> {
    try {
      return await this.#host.store.readProject(id);
    } catch (error) {
      if (error instanceof DamagedProjectError) this.notOpen.noteProblems([error.problem]);
      throw error;
    }
  }

  /**
   * Takes an open Project out of play (closed, deleted, or about to be replaced by an import
   * of the same id): disposes its engine, forgets its history and retry keys, lists it as
   * `closed` or `deleted` (a replaced one is about to be adopted again), and tells every client
   * (`project-closed` with the library after it). When it was the active one, the first open
   * Project (or none) becomes active and `active-project-changed` says so; a replaced one
   * stays active, as its successor takes its id. The caller moves its folder.
   * @throws {Refusal} NOT_FOUND when no Project of that id is open
   */
  remove(id: string, reason: "closed" | "deleted" | "replaced"): void {
    const engine = this.engines.get(id);
    if (!engine) throw new Refusal(`Project "${id}" is not open`, RpcErrorCode.NOT_FOUND);
    engine.dispose();
    this.engines.delete(id);
    this.#host.forget(id);
    this.notOpen.forget(id);
    if (reason !== "replaced") this.notOpen.list(engine.project, reason);
    this.#host.emit({
      updateType: "project",
      projectId: id,
      data: { event: "project-closed", reason, library: this.library() },
    });
    if (this.#activeId === id && reason !== "replaced") {
      this.#moveActive(this.engines.keys().next().value ?? null);
    }
    this.#host.saveSettings();
  }

  /** Lists closed or damaged Project `id` as deleted and tells every client (`project-closed`). */
  deleteNotOpen(id: string): void {
    this.notOpen.markDeleted(id);
    this.#host.emit({
      updateType: "project",
      projectId: id,
      data: { event: "project-closed", reason: "deleted", library: this.library() },
    });
    this.#host.saveSettings();
  }

  /**
   * Makes open Project `id` the active one: actions and queries without a `projectID` go
   * to it. Saved in `player.json` and reported (`active-project-changed`); a Project that
   * is active already is answered unchanged. `PROJECT_SELECT` runs it.
   * @throws {Refusal} NOT_FOUND when no Project of that id is open; ACTION_REFUSED with the
   *   reason for one that is closed, damaged or deleted
   */
  select(id: string): ActionOutcome {
    if (id === this.#activeId) {
      return { applied: false, message: `Project ${quoted(id)} is the active Project already` };
    }
    if (!this.engines.has(id)) throw this.notOpen.selectRefusal(id);
    this.#moveActive(id);
    return { applied: true, message: `Project ${quoted(id)} is the active Project` };
  }

  /**
   * Where a Project's file is on disk, as it is now (`media.locate`).
   * @throws {Refusal} NOT_FOUND for an unknown Project or file, or a file gone from disk
   */
  async locateFile(projectId: string | null, fileId: string): Promise<MediaLocateResult> {
    const project = this.get(projectId)?.project;
    if (!project) {
      throw new Refusal(
        `Project "${projectId ?? "(active)"}" does not exist`,
        RpcErrorCode.NOT_FOUND,
      );
    }
    const file = project.files.find((f) => f.id === fileId);
    if (!file) {
      throw new Refusal(
        `File "${fileId}" is not in Project "${project.id}"`,
        RpcErrorCode.NOT_FOUND,
      );
    }
    const path = this.#host.store.filePath(project.id, file.path);
    try {
      const stat = await Deno.stat(path);
      return { path, size: stat.size, modifiedAt: stat.mtime?.getTime() ?? 0 };
    } catch {
      throw new Refusal(
        `File "${fileId}" of Project "${project.id}" is missing from disk (${file.path})`,
        RpcErrorCode.NOT_FOUND,
      );
    }
  }

  /** Remembers the Projects' entries of the live state last read or written. */
  keepLive(projects: Record<string, ProjectLive>): void {
    this.#lastLive = projects;
  }

  /** The live state entries of the Projects of the library that are not open, as last known. */
  carriedLive(): Record<string, ProjectLive> {
    const carried: Record<string, ProjectLive> = {};
    for (const { projectId } of this.notOpen.entries) {
      const live = this.#lastLive[projectId];
      if (live && !this.engines.has(projectId)) carried[projectId] = live;
    }
    return carried;
  }

  /** Makes `id` the active Project (null: none) and tells every client. */
  #moveActive(id: string | null): void {
    this.#activeId = id;
    this.#host.emit({
      updateType: "project",
      projectId: id,
      data: { event: "active-project-changed", activeProjectId: id },
    });
    this.#host.saveSettings();
  }
}
