/**
 * The snapshot of the application (`state.get`, and the `full` update of a reload):
 * everything, at one clock reading.
 * @module
 */
import { SETTING_DEFAULTS } from "../protocol/settings.ts";
import type { Snapshot } from "../protocol/state.ts";
import type { AppParts } from "./app_parts.ts";
import type { PlayerOptions } from "./player_options.ts";

/** Player name and version reported in the handshake and snapshot. */
export const PLAYER_INFO = { name: "cueport-player", version: "0.1.0" } as const;

/** Everything, at the current clock reading of `options.clock`. */
export function appSnapshot(
  parts: Pick<AppParts, "projects" | "status" | "presets" | "media">,
  options: Pick<PlayerOptions, "clock" | "plan">,
): Snapshot {
  const { projects } = parts;
  const engines = [...projects.engines.values()];
  return {
    player: { ...PLAYER_INFO },
    now: options.clock.now(),
    entitlements: { apiAccess: (options.plan ?? SETTING_DEFAULTS.plan) === "pro" },
    activeProjectId: projects.activeId,
    projects: engines.map((e) => e.project),
    playstates: engines.map((e) => e.playState()),
    live: Object.fromEntries(engines.map((e) => [e.project.id, e.live])),
    appState: parts.status.state,
    presets: [...parts.presets.all()],
    cameras: parts.media.cameras,
    library: projects.library(),
    problems: projects.notOpen.problems,
  };
}
