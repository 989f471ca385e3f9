/**
 * Starting the player as a subprocess: the bundled player is this same
 * executable with the argument `player` (works compiled and under
 * `deno run`), or an external command that speaks the same protocol.
 * @module
 */
import { LineTransport, streamPipe, type Transport } from "../../protocol/transport.ts";
import { playerFlags, type PlayerFlagValues } from "../../protocol/settings.ts";

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
 * Flags of the bundled player under `deno run`: the permissions it needs (its data dir, camera
 * discovery and capture), and the young generation the compiled binary gives it too (deno.json).
 */
export const PLAYER_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  // ffmpeg, to capture camera devices.
  "--allow-run",
  "--v8-flags=--max-semi-space-size=8",
];

function fromFileUrl(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  return Deno.build.os === "windows"
    ? path.replace(/^\/([A-Za-z]:)/, "$1").replaceAll("/", "\\")
    : path;
}

/** The command line that starts the bundled player. */
export function bundledPlayerCommand(options: BundledPlayerOptions): string[] {
  const args = ["player", ...playerFlags(options)];
  if (Deno.build.standalone) return [Deno.execPath(), ...args];
  const main = fromFileUrl(new URL("../../main.ts", import.meta.url));
  const config = fromFileUrl(new URL("../../deno.json", import.meta.url));
  return [
    Deno.execPath(),
    "run",
    "--quiet",
    ...PLAYER_PERMISSIONS,
    "--config",
    config,
    main,
    ...args,
  ];
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
      const child = new Deno.Command(program, {
        args,
        stdin: "piped",
        stdout: "piped",
        stderr: "piped",
        env: { RUST_BACKTRACE: "0" },
      }).spawn();
      void pipeLines(child.stderr, log);
      return Promise.resolve({
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
      });
    },
  };
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
