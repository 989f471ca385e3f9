/**
 * The app state (`AppState`: the output's level and mute, full screen, the recording, the
 * preset editor, the output's drawing) and how a change of it is told: an `appState` update
 * (with a `volume` one when asked), and the settings saved soon.
 * @module
 */
import type { ProjectPatch } from "../protocol/patch.ts";
import type { AppState, StateUpdate } from "../protocol/state.ts";
import type { PlayerSettings } from "./store.ts";
import { NO_TIMECODE } from "../protocol/timecode.ts";
import { FULL_REGION, isFullRegion } from "../protocol/region.ts";

/** Where a change of the app state goes (`PlayerApp`). */
export interface AppStatusHost {
  emit(update: StateUpdate): void;
  /** Saves the settings soon (`player.json`: level, mute and full screen are among them). */
  save(): void;
}

/** Options of `AppStatus.change`. */
export interface ChangeOptions {
  /** Tell a `volume` update too (the level or mute changed). */
  isVolume?: boolean;
  /** Nothing to save (the chase's state, told up to once a second). */
  isUnsaved?: boolean;
}

/** The app state: read by actions, the snapshot and the output; changed and told here. */
export class AppStatus {
  #host: AppStatusHost;
  #state!: AppState;

  /** Nothing yet: `reset` gives the state its first value (`PlayerApp` loads it). */
  constructor(host: AppStatusHost) {
    this.#host = host;
  }

  /** The app state now. */
  get state(): AppState {
    return this.#state;
  }

  /** The state of a (re)load: the saved settings, no editor, the output drawing whole. */
  reset(settings: PlayerSettings, recording: AppState["recording"]): void {
    this.#state = {
      fullScreen: settings.fullScreen,
      muted: settings.muted,
      volume: settings.volume,
      recording,
      editor: null,
      windowReloads: 0,
      lastReloadAt: null,
      output: { renderScale: 1, reason: null },
      outputDisplay: settings.outputDisplay,
      outputRegion: settings.outputRegion ?? FULL_REGION,
      timecode: NO_TIMECODE,
    };
  }

  /** Takes `change` without telling anyone: what a restart resumes, before anything is served. */
  resume(change: Partial<AppState>): void {
    this.#state = { ...this.#state, ...change };
  }

  /** Applies `change` and tells it (`appState`, and `volume` when asked); the settings follow. */
  change(event: string, change: Partial<AppState>, options: ChangeOptions = {}): void {
    this.#state = { ...this.#state, ...change };
    if (options.isVolume) {
      this.#host.emit({
        updateType: "volume",
        projectId: null,
        data: { event, level: this.#state.volume, muted: this.#state.muted },
      });
    }
    this.#host.emit({
      updateType: "appState",
      projectId: null,
      data: { event, appState: this.#state },
    });
    if (!options.isUnsaved) this.#host.save();
  }

  /** An open editor shows the preset as it is now, or closes when it is removed. */
  followEditor(patch: ProjectPatch): void {
    const editor = this.#state.editor;
    if (!editor || !patch.presets || !(editor.presetId in patch.presets)) return;
    const preset = patch.presets[editor.presetId];
    if (preset) {
      this.change("editor-preset-changed", {
        editor: { ...editor, preset, updatedAt: new Date().toISOString() },
      });
    } else this.change("editor-closed", { editor: null });
  }

  /** The settings to write now (`player.json`), with the library's part of them. */
  settings(library: Pick<PlayerSettings, "activeProjectId" | "closedProjectIds">): PlayerSettings {
    const { fullScreen, muted, volume, outputDisplay, outputRegion } = this.#state;
    const region = outputRegion && !isFullRegion(outputRegion) ? outputRegion : null;
    return { ...library, fullScreen, muted, volume, outputDisplay, outputRegion: region };
  }
}
