/**
 * How the bundled player is started, without the settings' modules: `main.ts`
 * starts it before anything else is loaded (`startEarlyPlayer`), and gives it
 * its flags on stdin once the settings are read (`adoptEarlyPlayer` in
 * spawn.ts). The player's own start, about 200 ms of loading its modules and
 * opening its Project, then runs beside the service's.
 * @module
 */

/**
 * Flags of the bundled player under `deno run`: the permissions it needs (its data dir, camera
 * discovery and capture), and the young generation the compiled binary gives it too (deno.json).
 */
export const PLAYER_PERMISSIONS: readonly string[] = [
  "--allow-read",
  "--allow-write",
  // ffmpeg, to capture camera devices; the output's browser.
  "--allow-run",
  // The output's page server, on the loopback only (player/output/server.ts).
  "--allow-net=127.0.0.1",
  // Where the output's browser is, and whether there is a screen (player/output/browser.ts); the
  // screen's key, and node:child_process's coverage switch read at each spawn of the browser
  // (player/output/browser_process.ts).
  "--allow-env=PATH,DISPLAY,WAYLAND_DISPLAY,PROGRAMFILES,PROGRAMFILES(X86),LOCALAPPDATA,XAUTHORITY,NODE_V8_COVERAGE",
  "--v8-flags=--max-semi-space-size=8",
];

function fromFileUrl(url: URL): string {
  const path = decodeURIComponent(url.pathname);
  return Deno.build.os === "windows"
    ? path.replace(/^\/([A-Za-z]:)/, "$1").replaceAll("/", "\\")
    : path;
}

/** The bundled player's command line up to `player`: this executable, or `deno run main.ts`. */
export function bundledPlayerPrefix(): string[] {
  if (Deno.build.standalone) return [Deno.execPath(), "player"];
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
    "player",
  ];
}

/** Starts a player process with its stdin, stdout and stderr piped. */
export function spawnPlayer(program: string, args: readonly string[]): Deno.ChildProcess {
  return new Deno.Command(program, {
    args: [...args],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { RUST_BACKTRACE: "0" },
  }).spawn();
}

/** Starts the bundled player, waiting for its flags on stdin (`--flags-on-stdin`). */
export function startEarlyPlayer(): Deno.ChildProcess {
  const [program, ...args] = bundledPlayerPrefix();
  return spawnPlayer(program!, [...args, "--flags-on-stdin"]);
}
