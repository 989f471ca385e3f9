/**
 * What an action handler works with, and the shapes of its outcome.
 * @module
 */
import type { ActionParams } from "../../protocol/actions.ts";
import type { ActionOutcome } from "../../protocol/methods.ts";
import type { AppState, Preset, Project, StateUpdate } from "../../protocol/mod.ts";
import type { ProjectEngine } from "../engine/project_engine.ts";
import { Refusal } from "../errors.ts";

/** Application-level services an action may use. */
export interface AppServices {
  readonly appState: AppState;
  presets(): readonly Preset[];
  /** Applies a change to app state and reports it (`appState`, plus `volume` when asked). */
  changeAppState(event: string, change: Partial<AppState>, options?: { isVolume?: boolean }): void;
  /**
   * Writes a new revision of the engine's project, which `change` makes in its turn from the
   * project as the commits before it left it (the engine of the same Project then), to disk,
   * then makes it current and reports its `updates`. Nothing changes if the write fails, nor
   * when `change` returns null (nothing left to change).
   * @returns whether a revision was written
   */
  commitProject(
    engine: ProjectEngine,
    change: (project: Project) => { project: Project; updates: StateUpdate[] } | null,
  ): Promise<boolean>;
  /**
   * Makes open Project `projectId` the active one (saved in `player.json`, reported as
   * `active-project-changed`); unchanged when it is already.
   * @throws {Refusal} NOT_FOUND when no such Project is open; ACTION_REFUSED naming why
   *   for one that is closed, damaged or deleted
   */
  selectProject(projectId: string): ActionOutcome;
  /**
   * The refusal of an action that needs a Project while none is open: it names the damaged
   * Project the settings made active, when that is why none is.
   */
  noProjectRefusal(): Refusal;
  /** Starts recording, arms it, or stops it, per the spec's state table. */
  toggleRecording(mode: "now" | "next-trigger"): string | Promise<string>;
}

/** Everything one action runs against. */
export interface ActionContext {
  /** The target Project's engine; reading it refuses when no Project is open. */
  readonly engine: ProjectEngine;
  readonly hasEngine: boolean;
  app: AppServices;
  params: ActionParams;
  /** In `VELOCITY`'s range; its default (full) when the request carried none. */
  velocity: number;
  /**
   * How late the action runs, ms, for what it starts to catch up (`late.ts`): a Clip or Song it
   * starts begins where it would be had it run on time. 0 (or absent) on time.
   */
  lateMs?: number;
}

/** The context of one action run; `engine` refuses when no Project is open. */
export class ActionRun implements ActionContext {
  readonly #engine: ProjectEngine | undefined;

  /** The run of one action with validated `params` on `engine`, if a Project is open. */
  constructor(
    engine: ProjectEngine | undefined,
    readonly app: AppServices,
    public params: ActionParams,
    readonly velocity: number,
    readonly lateMs = 0,
  ) {
    this.#engine = engine;
  }

  get engine(): ProjectEngine {
    if (!this.#engine) throw this.app.noProjectRefusal();
    return this.#engine;
  }

  get hasEngine(): boolean {
    return this.#engine !== undefined;
  }
}

/** An action handler. */
export type ActionHandler = (ctx: ActionContext) => ActionOutcome | Promise<ActionOutcome>;

/** An outcome that changed state. */
export function done(message: string): ActionOutcome {
  return { applied: true, message };
}

/** An outcome that found the state already as asked. */
export function unchanged(message: string): ActionOutcome {
  return { applied: false, message };
}

/** A string param (declared required, so present after validation). */
export function str(ctx: ActionContext, name: string): string {
  return ctx.params[name] as string;
}

/** A numeric param. */
export function num(ctx: ActionContext, name: string): number {
  return ctx.params[name] as number;
}

/** A boolean param (an optional one defaulted as the catalog declares it). */
export function flag(ctx: ActionContext, name: string): boolean {
  return ctx.params[name] === true;
}
