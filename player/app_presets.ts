/**
 * The presets of the application: the built-in ones and the user's (`presets.json`), with
 * those an import of a Project left pending merged in when it opens (`show/pending_presets.ts`).
 * @module
 */
import type { Preset } from "../protocol/model.ts";
import type { DataProblem } from "../protocol/library.ts";
import type { StateUpdate } from "../protocol/state.ts";
import { BUILT_IN_PRESETS } from "./presets.ts";
import { mergePendingPresets } from "./show/pending_presets.ts";
import type { ProjectStore } from "./store.ts";

/** What the presets need of the application (`PlayerApp`). */
export interface PresetShelfHost {
  readonly store: ProjectStore;
  emit(update: StateUpdate): void;
  warn(message: string): void;
}

/** The built-in presets and the user's. */
export class PresetShelf {
  #host: PresetShelfHost;
  #user: Preset[] = [];

  /** No user presets until `load`. */
  constructor(host: PresetShelfHost) {
    this.#host = host;
  }

  /** Every preset: the built-in ones, then the user's. */
  all(): readonly Preset[] {
    return [...BUILT_IN_PRESETS, ...this.#user];
  }

  /** The user's presets (the editor reads and replaces them). */
  get user(): Preset[] {
    return this.#user;
  }

  set user(presets: Preset[]) {
    this.#user = presets;
  }

  /** Reads the user's presets from `presets.json`: the problem found, if any. */
  async load(): Promise<DataProblem | null> {
    const presets = await this.#host.store.loadUserPresets();
    this.#user = presets.value;
    return presets.problem;
  }

  /** Adds the presets an import of Project `id` left pending: whether any were. */
  async mergePending(id: string): Promise<boolean> {
    const merged = await mergePendingPresets(
      this.#host.store,
      id,
      this.#user,
      BUILT_IN_PRESETS,
      (message) => this.#host.warn(message),
    );
    if (merged) this.#user = merged;
    return merged !== null;
  }

  /** `mergePending` for a Project opened after start: the presets it added are told. */
  async opened(id: string): Promise<void> {
    const before = new Set(this.#user.map((p) => p.id));
    if (!await this.mergePending(id)) return;
    const changed = this.#user.map((p) => p.id).filter((presetId) => !before.has(presetId));
    const data = { event: "presets-changed", changed, presets: [...this.all()] };
    if (changed.length > 0) this.#host.emit({ updateType: "presets", projectId: null, data });
  }
}
