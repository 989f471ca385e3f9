/**
 * Cueport: `cueport [serve]` starts the service, `cueport player` runs the
 * bundled player (the service starts it itself), and the operator commands
 * (`CLI_COMMANDS` in server/cli.ts: pair, devices, revoke, approvals, approve,
 * deny, rotate-key, status, and mcp, the stdio bridge to /mcp) talk to the running service;
 * `service` installs it as a system service, `config check` checks a config file. See README.md
 * and docs/deployment.md.
 * @module
 */
import { reportRefusedPermissions } from "./server/deploy/permission_refused.ts";
import { createLogger } from "./server/log.ts";

// Each command loads its own modules: the player's start (which the service waits for) loads
// none of the service's.
const [command, ...rest] = Deno.args;
const isServe = command === undefined || command === "serve" || command.startsWith("-");
// A permission this build lacks: one log line naming the flag, not a stack trace (the service
// logs it in the format its settings choose).
if (!isServe) {
  const log = createLogger("info");
  reportRefusedPermissions((line) => log("error", line));
}
if (command === "isf-check") {
  // One ISF check's own process (the player starts it: player/isf/check_child.ts).
  const { runIsfCheckStdio } = await import("./player/isf/check_stdio.ts");
  await runIsfCheckStdio();
} else if (command === "player") {
  // The player's modules are loaded by the player only.
  const { runPlayerStdio } = await import("./player/mod.ts");
  await runPlayerStdio(rest);
} else if (command === "--version" || command === "version") {
  const { VERSION } = await import("./server/version.ts");
  console.log(`cueport ${VERSION} (deno ${Deno.version.deno}, ${Deno.build.target})`);
} else if (isServe) {
  // The bundled player starts first, before the service's modules load; its flags follow.
  const { startEarlyPlayer } = await import("./server/player_client/player_command.ts");
  const player = startEarlyPlayer();
  const { serve } = await import("./server/serve_command.ts");
  await serve(command === "serve" ? rest : Deno.args, player);
} else {
  const { CLI_COMMANDS, runCli } = await import("./server/cli.ts");
  if (CLI_COMMANDS.includes(command)) Deno.exit(await runCli(command, rest));
  const { SERVE_USAGE } = await import("./server/config.ts");
  console.error(`cueport: unknown command "${command}"\n\n${SERVE_USAGE}`);
  Deno.exit(2);
}
