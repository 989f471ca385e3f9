/**
 * How the player is started (`PlayerApp.open`): its data dir, clock and plan, and the
 * options tests and the bundled player set.
 * @module
 */
import type { OutputMode } from "../protocol/output.ts";
import type { PlayerSettingValues } from "../protocol/settings.ts";
import type { Clock } from "./clock.ts";

/** How the player is started. */
export interface PlayerOptions {
  dataDir: string;
  clock: Clock;
  /** `pro` includes API access; `free` does not (the API answers 403). Default: the `plan` setting's. */
  plan?: PlayerSettingValues["plan"];
  /** Interval of position reports while playing, ms; 0 disables. Default: the setting's. */
  positionIntervalMs?: number;
  /** Undo steps kept per Project. Default: the `historyLimit` setting's. */
  historyLimit?: number;
  /** The output's texture budget for all Effects and Visualizers, MB (`outputTextureBudgetMb`). */
  textureBudgetMb?: number;
  /** Where problems go (stderr in the bundled player). */
  log?: (level: "info" | "warn" | "error", message: string) => void;
  /**
   * Wall time (ms since the epoch) for the live state: a restarted player
   * moves what played on by the wall time that passed since the last save.
   * Default `Date.now`; on a `VirtualClock` no time passes unless one is given.
   */
  wallNow?: () => number;
  /**
   * When the service started (ms since the epoch; `--service-started-at`): the trash keeps
   * the Projects deleted since, so a restarted player still restores them. Absent: the
   * trash is emptied at open (a player on its own, a service's first start).
   */
  serviceStartedAt?: number;
  /** The ffmpeg command that captures camera devices; null or absent: none. */
  ffmpeg?: string | null;
  /** How the show is shown (`docs/output.md`); absent: `none`. */
  output?: {
    mode: OutputMode;
    browser: string | null;
    /** The time a frame may take before the page draws smaller (tests); absent: the frame period. */
    frameBudgetMs?: number;
    /** The `outputDisplay` setting: the output's display at start; `primary` or absent: as saved. */
    display?: string;
    /** The `outputRegion` setting: the output's region at start; `full` or absent: as saved. */
    region?: string;
    /** The `midiLocal` setting: the page opens every MIDI port (true), none, or those named. */
    midi?: boolean | readonly string[];
  };
}
