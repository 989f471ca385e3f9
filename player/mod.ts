/**
 * The bundled player: the show application, headless. `runPlayerStdio` is
 * what `cueport player` runs; `startPlayer` runs it on any transport (tests
 * use an in-memory pair).
 * @module
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import {
  isSwitch,
  PLAYER_SETTINGS,
  type PlayerSettingValues,
  SETTING_DEFAULTS,
  settingIssueMessage,
  type SettingName,
  SETTINGS,
  type SettingSpec,
} from "../protocol/settings.ts";
import { stdioPipe, takeFirstLine } from "./stdio_pipe.ts";
import type { Transport } from "../protocol/transport.ts";
import { PlayerApp } from "./app.ts";
import { type Clock, FollowingClock, MonotonicClock, VirtualClock } from "./clock.ts";
import { RequestTransport } from "./request_transport.ts";
import { servePlayer } from "./rpc_server.ts";
import type { PlayerOptions } from "./app.ts";

export { PLAYER_INFO, PlayerApp, type PlayerOptions } from "./app.ts";
export { type Clock, MonotonicClock, VirtualClock } from "./clock.ts";

/**
 * Options of `startPlayer`. The settings among them, left out, are their
 * schemas' defaults (`protocol/settings.ts`); but a player started in process
 * (tests, benches) runs no ffmpeg and shows no output unless given them:
 * `cueport player` gives the settings' (`ffmpeg`, `output`).
 */
export interface StartPlayerOptions {
  dataDir: string;
  transport: Transport;
  clock?: Clock;
  plan?: PlayerSettingValues["plan"];
  positionIntervalMs?: number;
  historyLimit?: number;
  /** The output's texture budget, MB (`outputTextureBudgetMb`). */
  textureBudgetMb?: number;
  approval?: PlayerSettingValues["approval"];
  /** The ffmpeg command that captures camera devices; null (or absent): none. */
  ffmpeg?: string | null;
  /** How the show is shown (`docs/output.md`); absent: `none`. */
  output?: PlayerOptions["output"];
  /** When the service started, ms since the epoch (`PlayerOptions.serviceStartedAt`). */
  serviceStartedAt?: number;
  /** Where the player's messages go; absent: stderr, as `[player] <level>: <message>`. */
  log?: (level: "info" | "warn" | "error", message: string) => void;
  onShutdown?: () => void;
}

/** A running player. */
export interface RunningPlayer {
  app: PlayerApp;
  /** Resolves when the transport has closed and the app has flushed. */
  done: Promise<void>;
}

/** Opens the app on `dataDir` and serves it on `transport`. */
export async function startPlayer(options: StartPlayerOptions): Promise<RunningPlayer> {
  const given = options.clock ?? new MonotonicClock();
  // A real-time clock follows the rig group's show clock (`clock.shift`); a virtual one is the tests'.
  const clock = given instanceof VirtualClock ? given : new FollowingClock(given);
  const app = await PlayerApp.open({
    dataDir: options.dataDir,
    clock,
    plan: options.plan ?? SETTING_DEFAULTS.plan,
    positionIntervalMs: options.positionIntervalMs ?? SETTING_DEFAULTS.positionIntervalMs,
    historyLimit: options.historyLimit ?? SETTING_DEFAULTS.historyLimit,
    textureBudgetMb: options.textureBudgetMb ?? SETTING_DEFAULTS.outputTextureBudgetMb,
    ffmpeg: options.ffmpeg ?? null,
    output: options.output ?? { mode: "none", browser: null },
    ...(options.serviceStartedAt !== undefined
      ? { serviceStartedAt: options.serviceStartedAt }
      : {}),
    log: options.log ?? ((level, message) => console.error(`[player] ${level}: ${message}`)),
  });
  const serveOptions = {
    ...(clock instanceof VirtualClock ? { virtualClock: clock } : { followingClock: clock }),
    ...(options.approval ? { approval: options.approval } : {}),
    ...(options.onShutdown ? { onShutdown: options.onShutdown } : {}),
  };
  const done = servePlayer(app, options.transport, serveOptions).then(() => app.close());
  return { app, done };
}

const PLAYER_SPECS = PLAYER_SETTINGS.map((name) => [name, SETTINGS[name] as SettingSpec] as const);

/** Usage of `cueport player`. */
export const PLAYER_USAGE = [
  "Usage: cueport player [options]",
  "Runs the bundled player on stdin/stdout (newline-delimited JSON-RPC 2.0).",
  "  --flags-on-stdin         alone: the flags come as the first line of stdin, a JSON array",
  "  --service-started-at MS  when the service started: the trash keeps what was deleted since",
  ...PLAYER_SPECS.map(([name, spec]) =>
    `${`  --${spec.flag}${isSwitch(spec) ? "" : ` ${spec.value}`}`.padEnd(26)} ${
      name === "dataDir" ? "projects, media and settings (required)" : spec.help
    }`
  ),
].join("\n");

/** The player's settings from its flags, checked by the same schemas as the service's. */
const PlayerSettings = z.object(
  Object.fromEntries(PLAYER_SPECS.map(([name, spec]) => [name, spec.schema])),
) as unknown as z.ZodType<PlayerSettingValues>;

/** What the player's command line asks: its usage, or to run with these settings. */
export type PlayerFlags =
  | { help: true }
  | { help: false; settings: PlayerSettingValues; serviceStartedAt?: number };

/**
 * The player's settings from its flags, checked by the settings' schemas;
 * a flag left out is its schema's default.
 * @throws {Error} naming the bad flag (with the usage, for a flag it does not know)
 */
export function readPlayerFlags(args: string[]): PlayerFlags {
  const options: Record<string, { type: "string" | "boolean" }> = {
    help: { type: "boolean" },
    "service-started-at": { type: "string" },
  };
  for (const [, spec] of PLAYER_SPECS) {
    options[spec.flag] = { type: isSwitch(spec) ? "boolean" : "string" };
  }
  let values;
  try {
    values = parseArgs({ args, options }).values;
  } catch (error) {
    throw new Error(`${(error as Error).message}\n\n${PLAYER_USAGE}`);
  }
  if (values.help) return { help: true };
  const raw = Object.fromEntries(
    PLAYER_SPECS.map(([name, spec]) => [name, values[spec.flag]]).filter(([, v]) =>
      v !== undefined
    ),
  );
  const parsed = PlayerSettings.safeParse(raw);
  if (parsed.success) {
    return { help: false, settings: parsed.data, ...startedAt(values["service-started-at"]) };
  }
  const issue = parsed.error.issues[0]!;
  const name = String(issue.path[0]) as SettingName;
  throw new Error(`invalid --${SETTINGS[name].flag}: ${settingIssueMessage(issue)}`);
}

/** The `--service-started-at` flag's value, checked. @throws {Error} naming the flag */
function startedAt(value: unknown): { serviceStartedAt?: number } {
  if (value === undefined) return {};
  const ms = Number(value);
  if (typeof value === "string" && /^\d+$/.test(value) && Number.isSafeInteger(ms)) {
    return { serviceStartedAt: ms };
  }
  throw new Error(`invalid --service-started-at: ${value} is no time in ms since the epoch`);
}

/**
 * Entry of `cueport player`: serves stdin/stdout until stdin closes or
 * `shutdown`. With `--flags-on-stdin` alone, the flags come as the first line
 * of stdin (a JSON array of strings): the service starts the player before it
 * has read its own settings, so the player's start overlaps the service's.
 */
export async function runPlayerStdio(args: string[]): Promise<void> {
  let pipe = stdioPipe();
  if (args.length === 1 && args[0] === "--flags-on-stdin") {
    try {
      const first = await takeFirstLine(pipe);
      const flags: unknown = JSON.parse(first.line);
      if (!Array.isArray(flags) || !flags.every((f) => typeof f === "string")) {
        throw new Error("the flags line must be a JSON array of strings");
      }
      args = flags;
      pipe = first.rest;
    } catch (error) {
      console.error(`cueport player: ${(error as Error).message}`);
      Deno.exit(2);
    }
  }
  let read: PlayerFlags;
  try {
    read = readPlayerFlags(args);
  } catch (error) {
    console.error(`cueport player: ${(error as Error).message}`);
    Deno.exit(2);
  }
  if (read.help) {
    // On stdout, as every command's usage: --help ends the player before any protocol starts.
    console.log(PLAYER_USAGE);
    Deno.exit(0);
  }
  const { settings, serviceStartedAt } = read;
  // The service owns the player's life (shutdown, or stdin closing). A Ctrl-C in a
  // terminal reaches the whole process group; the player lets the service stop it.
  Deno.addSignalListener("SIGINT", () => {});
  // Bounded request lines: 16 MiB, 1,000 levels deep (request_transport.ts).
  const transport = new RequestTransport(pipe);
  const running = await startPlayer({
    dataDir: settings.dataDir,
    transport,
    clock: settings.virtualClock ? new VirtualClock() : new MonotonicClock(),
    plan: settings.plan,
    positionIntervalMs: settings.positionIntervalMs,
    historyLimit: settings.historyLimit,
    textureBudgetMb: settings.outputTextureBudgetMb,
    ffmpeg: settings.ffmpeg === "off" ? null : settings.ffmpeg,
    approval: settings.approval,
    ...(serviceStartedAt !== undefined ? { serviceStartedAt } : {}),
    output: {
      mode: settings.output,
      browser: settings.outputBrowser === "auto" ? null : settings.outputBrowser,
      display: settings.outputDisplay,
      region: settings.outputRegion,
      midi: settings.midiLocal,
    },
  });
  await running.done;
  // Everything is written (stdout writes are synchronous); a stdin read still
  // waiting on its thread must not keep the process alive.
  Deno.exit(0);
}
