/**
 * Starting the player as a subprocess: the bundled player is this same
 * executable with the argument `player` (works compiled and under
 * `deno run`), or an external command that speaks the same protocol.
 * @module
 */
import { LineTransport, streamPipe, type Transport } from "../../protocol/transport.ts";
import { playerFlags, type PlayerFlagValues } from "../../protocol/settings.ts";
import { bundledPlayerPrefix, spawnPlayer } from "./player_command.ts";
import type { LogParams } from "../../protocol/methods.ts";

/** A started player process. */
export interface LaunchedPlayer {
  transport: Transport;
  /** Resolves when the player has exited. */
  exited: Promise<unknown>;
  /** Ends the player at once. */
  kill(): void;
  pid: number | null;
}

/** Starts a player; the supervisor calls it again after each exit. */
export interface PlayerLauncher {
  launch(): Promise<LaunchedPlayer>;
}

/** Options for the bundled player's command line (`protocol/settings.ts`, `PLAYER_SETTINGS`). */
export type BundledPlayerOptions = PlayerFlagValues;

/**
 * The command line that starts the bundled player; `serviceStartedAt` (ms since the epoch)
 * tells it when the service started (`--service-started-at`: the trash keeps what was
 * deleted since, so a player restarted after a crash still restores it).
 */
export function bundledPlayerCommand(
  options: BundledPlayerOptions,
  serviceStartedAt?: number,
): string[] {
  return [...bundledPlayerPrefix(), ...bundledPlayerFlags(options, serviceStartedAt)];
}

/** The bundled player's flags (`bundledPlayerCommand`). */
export function bundledPlayerFlags(
  options: BundledPlayerOptions,
  serviceStartedAt?: number,
): string[] {
  const started = serviceStartedAt === undefined
    ? []
    : ["--service-started-at", String(serviceStartedAt)];
  return [...playerFlags(options), ...started];
}

/**
 * A launcher that runs `command` (program and arguments) with piped stdio.
 * The player's stderr lines go to `log`.
 */
export function processLauncher(
  command: readonly string[],
  log: (line: string) => void,
): PlayerLauncher {
  const [program, ...args] = command;
  if (!program) throw new RangeError("Cannot launch the player: the command is empty");
  return {
    launch() {
      return Promise.resolve(launchedChild(spawnPlayer(program, args), log));
    },
  };
}

/** A started player process as the supervisor drives it; its stderr lines go to `log`. */
function launchedChild(child: Deno.ChildProcess, log: (line: string) => void): LaunchedPlayer {
  void pipeLines(child.stderr, log);
  return {
    transport: new LineTransport(streamPipe(child.stdout, child.stdin)),
    exited: child.status,
    kill: () => {
      try {
        child.kill("SIGKILL");
      } catch {
        // already gone
      }
    },
    pid: child.pid,
  };
}

/**
 * The player `startEarlyPlayer` started, given its flags (the first line of
 * its stdin) now that the settings are read.
 */
export async function adoptEarlyPlayer(
  child: Deno.ChildProcess,
  flags: readonly string[],
  log: (line: string) => void,
): Promise<LaunchedPlayer> {
  const writer = child.stdin.getWriter();
  try {
    await writer.write(new TextEncoder().encode(JSON.stringify(flags) + "\n"));
  } finally {
    writer.releaseLock();
  }
  return launchedChild(child, log);
}

async function pipeLines(stream: ReadableStream<Uint8Array>, log: (line: string) => void) {
  let rest = "";
  try {
    for await (const text of stream.pipeThrough(new TextDecoderStream())) {
      const lines = (rest + text).split("\n");
      rest = lines.pop() ?? "";
      for (const line of lines) if (line.trim()) log(line);
    }
  } catch {
    // the stream ends with the process
  }
  if (rest.trim()) log(rest);
}

/** A line of the player's logger (`[player] <level>: ...`), or Deno's own report of an error. */
const LEVELLED = /^(?:\[player\] (debug|info|warn|error)|(error)): /;

/**
 * The service's handler of the player's stderr lines: each logged as `player: <line>` at the
 * level its `[player] <level>:` prefix names (`error` for Deno's `error: Uncaught ...`, info for
 * other free text), so `--log-level warn` keeps the player's warnings; but for the player's
 * damaged-file lines, which the service logs itself at warn from the ready snapshot
 * (`service.ts`): one line per problem.
 */
export function forwardPlayerLines(
  log: (level: LogParams["level"], message: string) => void,
): (line: string) => void {
  return (line) => {
    if (/^\[player\] warn: Damaged file /.test(line)) return;
    const match = LEVELLED.exec(line);
    log((match?.[1] ?? match?.[2] ?? "info") as LogParams["level"], `player: ${line}`);
  };
}

/** The settings that say how the player is started. */
export interface PlayerStartSettings extends BundledPlayerOptions {
  /** A player of the user's (program and arguments); empty: the bundled one. */
  playerCommand: readonly string[];
}

/**
 * The command line of the player the settings name; the bundled one is told when the
 * service started (`bundledPlayerCommand`), a player of the user's is run as given.
 */
export function playerCommandOf(
  settings: PlayerStartSettings,
  serviceStartedAt?: number,
): readonly string[] {
  return settings.playerCommand.length > 0
    ? settings.playerCommand
    : bundledPlayerCommand(settings, serviceStartedAt);
}

/**
 * A launcher whose first player is already started (`main.ts` started it
 * before loading the service's modules); later launches, after an exit, go
 * through `launcher`.
 */
export function launchedEarly(
  first: Promise<LaunchedPlayer>,
  launcher: PlayerLauncher,
): PlayerLauncher {
  let early: Promise<LaunchedPlayer> | null = first;
  return {
    launch() {
      const launched = early ?? launcher.launch();
      early = null;
      return launched;
    },
  };
}
