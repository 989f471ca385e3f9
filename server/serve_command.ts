/**
 * `cueport [serve]`: settings, the data dir's lock and the player first,
 * then the service's modules and the service; the ready line once the player
 * is ready; `sd_notify` for systemd; a clean stop on SIGINT and SIGTERM, and when
 * the `deno task` or npx that started it is gone.
 * @module
 */
import { loadSettings, SERVE_USAGE, type Settings, settingsHint } from "./config.ts";
import { createLogger } from "./log.ts";
import { permissionRefusal, reportRefusedPermissions } from "./deploy/permission_refused.ts";
import { InstanceLock, StartupError } from "./startup.ts";
import { notifyTarget, SystemdNotifier } from "./deploy/sd_notify.ts";
import {
  ancestors,
  describeLauncher,
  launchersOf,
  watchLaunchers,
} from "./deploy/launcher_watch.ts";
import {
  adoptEarlyPlayer,
  bundledPlayerFlags,
  forwardPlayerLines,
  launchedEarly,
  playerCommandOf,
  processLauncher,
} from "./player_client/spawn.ts";
import { VERSION } from "./version.ts";

// A permission this build lacks: one log line naming the flag, not a stack trace.
let log = createLogger("info");
reportRefusedPermissions((line) => log("error", line));

/** Runs the service until it is stopped. */
export async function serve(args: string[], earlyPlayer?: Deno.ChildProcess): Promise<void> {
  const loaded = await settingsOrExit(args);
  if (loaded.help) {
    console.log(SERVE_USAGE);
    earlyPlayer?.kill();
    return;
  }
  const { settings } = loaded;
  // Read now, while the launchers are surely there (one may be killed as soon as ready shows).
  const chain = ancestors();
  log = createLogger(settings.logLevel, settings.logFormat);
  const target = notifyTarget((name) => Deno.env.get(name));
  const systemd = target ? new SystemdNotifier(target, (m) => log("warn", m)) : null;
  let service;
  try {
    service = await startWithPlayer(settings, earlyPlayer);
  } catch (error) {
    // One line naming what to change; a stack trace helps nobody at a show.
    const message = error instanceof StartupError
      ? error.message
      : `Cannot start: ${(error as Error).message}`;
    console.error(`cueport: ${message}`);
    await stopEarlyPlayer(earlyPlayer);
    Deno.exit(1);
  }
  // Listening for signals before the ready line: whoever reads it may stop the service at once.
  let isStopping = false;
  const stop = async (signal: string) => {
    if (isStopping) return;
    isStopping = true;
    log("info", `${signal}: shutting down`);
    await systemd?.stopping();
    await service!.shutdown();
    systemd?.close();
    log("info", "Stopped");
    Deno.exit(0);
  };
  Deno.addSignalListener("SIGINT", () => void stop("SIGINT"));
  if (Deno.build.os !== "windows") Deno.addSignalListener("SIGTERM", () => void stop("SIGTERM"));
  const playerReady = await service.supervisor.waitReady(15_000);
  if (!playerReady) log("warn", "Player not ready after 15 s; the API answers 503 until it is");
  const problems = service.problems().length;
  console.log(JSON.stringify({
    event: "ready",
    ports: service.ports,
    version: VERSION,
    pid: Deno.pid,
    dataDir: settings.dataDir,
    playerReady,
    // Files of the data dir found damaged (one log line each; `cueport status` lists them).
    ...(problems > 0 ? { problems } : {}),
  }));
  await systemd?.ready(playerReady ? "Ready" : "Ready; the player is not ready yet");
  // Started through `deno task` or npx: gone with the launcher a script or a terminal stops.
  const launchers = launchersOf(await chain);
  if (launchers.length > 0) {
    watchLaunchers(launchers, (gone) => {
      log("info", `The process that started Cueport is gone: ${describeLauncher(gone)}`);
      void stop("Launcher gone");
    });
  }
}

/** The settings of the command line, or exit 2 with one line saying what is wrong. */
async function settingsOrExit(args: string[]): Promise<Awaited<ReturnType<typeof loadSettings>>> {
  try {
    return await loadSettings(args);
  } catch (error) {
    // A refused permission is told by its own handler, as one line naming the flag.
    if (permissionRefusal(error) !== null) throw error;
    const message = (error as Error).message;
    console.error(`cueport: ${[message, settingsHint(message)].filter(Boolean).join(" ")}`);
    Deno.exit(2);
  }
}

/**
 * Ends the player started before the settings were read, once a start failed: a failure before
 * its supervisor took it left it running, making the data dir's demo after the service had
 * exited. Waits for it (killed outright after `EARLY_PLAYER_STOP_MS`); one already ended is left.
 */
async function stopEarlyPlayer(player: Deno.ChildProcess | undefined): Promise<void> {
  if (!player) return;
  try {
    player.kill("SIGTERM");
  } catch {
    return; // it had ended
  }
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<"late">((resolve) => {
    timer = setTimeout(() => resolve("late"), EARLY_PLAYER_STOP_MS);
  });
  if (await Promise.race([player.status, late]) === "late") {
    try {
      player.kill("SIGKILL");
    } catch { /* it ended meanwhile */ }
    await player.status;
  }
  clearTimeout(timer);
}

/** How long the early player of a failed start may take to end before it is killed, ms. */
const EARLY_PLAYER_STOP_MS = 5000;

/**
 * The data dir's lock, then the player's flags (main.ts started it), before
 * the service's modules load: the player starts (and opens its Project) on
 * the other core meanwhile. Then the service.
 */
async function startWithPlayer(settings: Settings, earlyPlayer?: Deno.ChildProcess) {
  const lock = await InstanceLock.acquire(settings.dataDir, VERSION);
  const logLine = forwardPlayerLines(log);
  // Every player of this service run (restarts too) is told when it started: the trash stays.
  const startedAt = Date.now();
  const launcher = processLauncher(playerCommandOf(settings, startedAt), logLine);
  const isBundled = settings.playerCommand.length === 0;
  if (!isBundled) earlyPlayer?.kill(); // the settings name a player of their own
  const first = earlyPlayer && isBundled
    ? adoptEarlyPlayer(earlyPlayer, bundledPlayerFlags(settings, startedAt), logLine)
    : launcher.launch();
  const { startService } = await import("./service.ts");
  return await startService(settings, log, { lock, launcher: launchedEarly(first, launcher) });
}
