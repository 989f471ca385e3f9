/**
 * The library's Projects that are not open (closed, damaged, deleted), the problems found
 * in the data dir, and the refusals that say why a Project is not there.
 * @module
 */
import { notOpenHint } from "../../protocol/edits/project.ts";
import { RpcErrorCode } from "../../protocol/jsonrpc.ts";
import type { DataProblem, LibraryEntry } from "../../protocol/library.ts";
import type { Project } from "../../protocol/model.ts";
import { damagedEntry, damagedRefusal, damageLine } from "../damage.ts";
import { quoted, Refusal } from "../errors.ts";

/** What makes a Project that is not open selectable (`NotOpenProjects.selectRefusal`). */
const NOT_OPEN_REMEDY: Record<LibraryEntry["state"], string> = {
  open: "",
  closed: "open it first with the edit project.open",
  damaged: "its file cannot be read; repair or replace it (docs/projects.md)",
  deleted: "restore it first with the edit project.restore",
};

/** The entries of the library that are not open, and the problems found, kept until restart. */
export class NotOpenProjects {
  /** The library's Projects that are not open, in the order they went. */
  #entries: LibraryEntry[] = [];
  /** The files of the data dir found damaged (`protocol/library.ts`). */
  #problems: DataProblem[] = [];
  /** The active Project the settings named, when it was found damaged (its refusals name it). */
  #wantedActive: string | null = null;
  #warn: (message: string) => void;

  /** Empty; `warn` logs each problem found, one line. */
  constructor(warn: (message: string) => void) {
    this.#warn = warn;
  }

  /** The entries, closed, damaged and deleted. */
  get entries(): readonly LibraryEntry[] {
    return this.#entries;
  }

  /** Every problem found since start (the snapshot's `problems`). */
  get problems(): DataProblem[] {
    return this.#problems;
  }

  /** The problem found in Project `projectId`'s files, or null. */
  problemOf(projectId: string): DataProblem | null {
    return this.#problems.find((p) => p.projectId === projectId) ?? null;
  }

  /** The ids of the closed Projects (saved in `player.json`). */
  closedIds(): string[] {
    return this.#entries.filter((e) => e.state === "closed").map((e) => e.projectId);
  }

  /** Whether Project `id` is listed as closed. */
  isClosed(id: string): boolean {
    return this.#entries.some((e) => e.projectId === id && e.state === "closed");
  }

  /** Drops the entry of Project `id` (opened, or restored elsewhere). */
  forget(id: string): void {
    this.#entries = this.#entries.filter((e) => e.projectId !== id);
  }

  /** Lists `project` as closed or deleted, in place of any entry it had. */
  list(project: Project, state: "closed" | "deleted"): void {
    this.forget(project.id);
    const { id: projectId, name, songs, clips } = project;
    this.#entries.push({
      projectId,
      name,
      state,
      songCount: songs.length,
      clipCount: clips.length,
      problem: null,
    });
  }

  /** Lists closed or damaged Project `id` as deleted (its folder went to the trash). */
  markDeleted(id: string): void {
    const entry = this.#entries.find((e) => e.projectId === id);
    if (!entry) return;
    this.forget(id);
    this.#entries.push({ ...entry, state: "deleted", problem: null });
  }

  /** The Projects to open: those closed (`project.close`) are listed, not loaded. */
  leaveClosed(projects: Project[], closedIds: readonly string[]): Project[] {
    const closed = new Set(closedIds);
    this.#entries = this.#entries.filter((e) => e.state !== "closed");
    for (const project of projects.filter((p) => closed.has(p.id))) this.list(project, "closed");
    return projects.filter((p) => !closed.has(p.id));
  }

  /** Notes the active Project the settings named: its refusals name it when it is damaged. */
  wantActive(id: string | null): void {
    this.#wantedActive = id && this.#damaged(id) ? id : null;
  }

  /**
   * Logs each problem (one line), keeps it for the snapshot, and lists each Project that
   * could not be loaded as damaged. Problems are kept until the player restarts.
   */
  noteProblems(found: readonly (DataProblem | null)[]): void {
    for (const problem of found) {
      if (!problem) continue;
      // A Project left damaged in place is found again by a reload or an open: told once.
      const isKnown = (p: DataProblem) => p.file === problem.file && p.keptAs === problem.keptAs;
      if (!this.#problems.some(isKnown)) {
        this.#warn(damageLine(problem));
        this.#problems.push(problem);
      }
      const { projectId } = problem;
      if (projectId === null || problem.recoveredFrom !== null) continue;
      if (!problem.file.endsWith("/project.json")) continue;
      this.forget(projectId);
      this.#entries.push(damagedEntry({ ...problem, projectId }));
    }
  }

  /** The refusal of a Project `id` that is not open (null: the active one, when none is). */
  missingRefusal(id: string | null): Refusal {
    const damaged = this.#damaged(id ?? this.#wantedActive);
    if (damaged) return damagedRefusal(damaged);
    const state = this.#entries.find((e) => e.projectId === id)?.state;
    return new Refusal(
      id ? notOpenHint(id, state) ?? `Project "${id}" does not exist` : "No Project is open",
      RpcErrorCode.NOT_FOUND,
    );
  }

  /** The refusal of an action that needs a Project while none is open (`ActionContext.engine`). */
  noProjectRefusal(): Refusal {
    const entry = this.#entries.find((e) => e.projectId === this.#wantedActive);
    return entry?.state === "damaged" ? damagedRefusal(entry) : new Refusal("No Project is open");
  }

  /** The refusal of selecting Project `id`, which is not open (`PlayerApp.selectProject`). */
  selectRefusal(id: string): Refusal {
    const entry = this.#entries.find((e) => e.projectId === id);
    if (!entry) return new Refusal(`Project ${quoted(id)} does not exist`, RpcErrorCode.NOT_FOUND);
    return new Refusal(
      `Project ${quoted(id)} is ${entry.state}: ${NOT_OPEN_REMEDY[entry.state]}` +
        (entry.problem ? ` (${entry.problem.file}: ${entry.problem.problem})` : ""),
    );
  }

  /** The entry of `projectId` when it is a damaged Project. */
  #damaged(projectId: string | null): LibraryEntry | undefined {
    return this.#entries.find((e) => e.projectId === projectId && e.state === "damaged");
  }
}
