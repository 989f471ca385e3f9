/**
 * Cueport: `cueport [serve]` starts the service, `cueport player` runs the
 * bundled player (the service starts it itself), and the operator commands
 * (`CLI_COMMANDS` in server/cli.ts: pair, devices, revoke, approvals, approve,
 * deny, rotate-key, status, and mcp, the stdio bridge to /mcp) talk to the running service;
 * `service` installs it as a system service, `config check` checks a config file. See README.md
 * and docs/deployment.md.
 * @module
 */
import { runPlayerStdio } from "./player/mod.ts";
import { CLI_COMMANDS, runCli } from "./server/cli.ts";
import { loadSettings, SERVE_USAGE } from "./server/config.ts";
import { createLogger } from "./server/log.ts";
import { StartupError } from "./server/startup.ts";
import { reportRefusedPermissions } from "./server/deploy/permission_refused.ts";
import { notifyTarget, SystemdNotifier } from "./server/deploy/sd_notify.ts";

// A permission this build lacks: one log line naming the flag, not a stack trace.
let log = createLogger("info");
reportRefusedPermissions((line) => log("error", line));

async function serve(args: string[]): Promise<void> {
  // Loaded here, not at the top: the player runs this file too, with read and write permissions
  // only, and the service's modules need more (npm `ws` reads its environment when loaded).
  const { startService, VERSION } = await import("./server/service.ts");
  let loaded;
  try {
    loaded = await loadSettings(args);
  } catch (error) {
    console.error(`cueport: ${(error as Error).message} (cueport --help lists the settings)`);
    Deno.exit(2);
  }
  if (loaded.help) {
    console.log(SERVE_USAGE);
    return;
  }
  const { settings } = loaded;
  log = createLogger(settings.logLevel, settings.logFormat);
  const target = notifyTarget((name) => Deno.env.get(name));
  const systemd = target ? new SystemdNotifier(target, (m) => log("warn", m)) : null;
  let service;
  try {
    service = await startService(settings, log);
  } catch (error) {
    // One line naming what to change; a stack trace helps nobody at a show.
    const message = error instanceof StartupError
      ? error.message
      : `Cannot start: ${(error as Error).message}`;
    console.error(`cueport: ${message}`);
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
  console.log(JSON.stringify({
    event: "ready",
    ports: service.ports,
    version: VERSION,
    pid: Deno.pid,
    dataDir: settings.dataDir,
    playerReady,
  }));
  await systemd?.ready(playerReady ? "Ready" : "Ready; the player is not ready yet");
}

const [command, ...rest] = Deno.args;
if (command === "player") await runPlayerStdio(rest);
else if (command === "--version" || command === "version") {
  const { VERSION } = await import("./server/service.ts");
  console.log(`cueport ${VERSION} (deno ${Deno.version.deno}, ${Deno.build.target})`);
} else if (command !== undefined && CLI_COMMANDS.includes(command)) {
  Deno.exit(await runCli(command, rest));
} else if (command === "serve") await serve(rest);
else if (command === undefined || command.startsWith("-")) await serve(Deno.args);
else {
  console.error(`cueport: unknown command "${command}"\n\n${SERVE_USAGE}`);
  Deno.exit(2);
}
