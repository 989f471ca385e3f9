/**
 * Operator commands that talk to the running service over its local-only
 * API (`CLI_USAGE` lists them): pairing codes, devices, approvals, key
 * rotation, the displays. They find the service and its operator credential in its data dir.
 * @module
 */
import { parseArgs } from "node:util";
import { pairingText } from "./web/pairing_text.ts";
import { call, findTarget, type Target } from "./deploy/operator_target.ts";
import { runStatusCommand } from "./deploy/status_command.ts";
import { runServiceCommand } from "./deploy/service_command.ts";
import { runConfigCommand } from "./deploy/config_check.ts";
import { runShowCommand } from "./deploy/show_command.ts";
import { runGroupCommand } from "./rigs/group_command.ts";
import { SETTING_DEFAULTS } from "../protocol/settings.ts";
import type { OutputDisplays } from "../protocol/displays.ts";
import { argsMessage } from "./deploy/args_message.ts";

/** Commands of their own modules, with their own options: each runs and returns its exit code. */
const DEPLOY_COMMANDS: Record<
  string,
  (args: string[], print: (line: string) => void) => Promise<number>
> = {
  status: runStatusCommand,
  service: runServiceCommand,
  config: runConfigCommand,
  show: runShowCommand,
  group: runGroupCommand,
};

/** The operator commands `runCli` knows. */
export const CLI_COMMANDS: readonly string[] = [
  "pair",
  "devices",
  "revoke",
  "approvals",
  "approve",
  "deny",
  "rotate-key",
  "displays",
  "mcp",
  "midi",
  ...Object.keys(DEPLOY_COMMANDS),
];

/** Usage of the operator commands. */
export const CLI_USAGE =
  `Usage: cueport pair | devices | revoke <deviceId> | approvals | approve <id> | deny <id> | rotate-key | displays | mcp | midi [approve|deny <id>] [--http-port N]
  pair              print a one-time pairing code (valid 5 minutes) for a new device, the
                    web remote's URL on each LAN address and a QR code to scan
  devices           list paired devices
  revoke DEVICE_ID  revoke a device: its token stops working and its connections close
  approvals         list local clients waiting for approval (with --approval wait)
  approve ID, deny ID   decide a waiting approval
  rotate-key        new signing key: every paired device must pair again
  displays          list the show machine's displays and the output's (OUTPUT_DISPLAY
                    or --output-display chooses it; docs/output.md)
  midi              MIDI participants and the sources waiting for approval; midi approve ID
                    or midi deny ID decides one (docs/midi.md)
  mcp               an MCP server on stdio that forwards to the running service's /mcp
                    (for AI assistants that start a command; docs/mcp.md)
  show export NAME FILE, show import FILE [--replace]
                    a Project to a show file (a zip with its media) and back (docs/projects.md)
  group status, group join NAME, group leave
                    the rig group: its members and leader; join or leave one (docs/rigs.md)
  --data-dir DIR     the service's data dir (default: CUEPORT_DATA_DIR or the usual place);
                    the commands read the service's port and the operator credential there
  --http-port N     the running service's HTTP port (default: the one the service wrote in
                    its data dir, else ${SETTING_DEFAULTS.httpPort})`;

const TARGET_OPTIONS =
  `  --data-dir DIR     the service's data dir (default: CUEPORT_DATA_DIR, the usual place, or
                    an installed service's); the port and operator credential are read there
  --http-port N     the running service's HTTP port (default: the one in its data dir, else ${SETTING_DEFAULTS.httpPort})`;

/** Each operator command's own usage (`cueport <command> --help`). */
export const COMMAND_USAGE: Record<string, string> = {
  pair: `Usage: cueport pair [--data-dir DIR] [--http-port N]
  Prints a one-time pairing code (valid 5 minutes) a new device sends to POST /api/v1/pair.
${TARGET_OPTIONS}`,
  devices: `Usage: cueport devices [--data-dir DIR] [--http-port N]
  Lists the paired devices: id, name, scopes, when and from where they paired.
${TARGET_OPTIONS}`,
  revoke: `Usage: cueport revoke DEVICE_ID [--data-dir DIR] [--http-port N]
  Revokes a paired device: its token stops working and its connections close.
${TARGET_OPTIONS}`,
  approvals: `Usage: cueport approvals [--data-dir DIR] [--http-port N]
  Lists the local clients waiting for approval (with --approval wait).
${TARGET_OPTIONS}`,
  approve: `Usage: cueport approve ID [--data-dir DIR] [--http-port N]
  Approves a waiting local client (cueport approvals lists them).
${TARGET_OPTIONS}`,
  deny: `Usage: cueport deny ID [--data-dir DIR] [--http-port N]
  Denies a waiting local client (cueport approvals lists them).
${TARGET_OPTIONS}`,
  "rotate-key": `Usage: cueport rotate-key [--data-dir DIR] [--http-port N]
  A new signing key: every paired device is revoked and must pair again.
${TARGET_OPTIONS}`,
  displays: `Usage: cueport displays [--data-dir DIR] [--http-port N]
  Lists the show machine's displays (index, name, rectangle, primary) and the output's: the
  one chosen (OUTPUT_DISPLAY, or the outputDisplay setting) and the one its window is on.
${TARGET_OPTIONS}`,
  midi: `Usage: cueport midi [approve ID | deny ID] [--data-dir DIR] [--http-port N]
  Lists the MIDI participants and the sources refused until approved; approve ID makes one
  a device bound to its address, deny ID forgets it (docs/midi.md).
${TARGET_OPTIONS}`,
  mcp: `Usage: cueport mcp [--data-dir DIR] [--http-port N]
  An MCP server on stdio that forwards to the running service's /mcp, with the operator
  credential of the data dir: for AI assistants that start a command (docs/mcp.md).
${TARGET_OPTIONS}`,
};

/** What an operator command is given: the service it talks to, its arguments, where it prints. */
interface OperatorCall {
  target: Target;
  positionals: string[];
  print: (line: string) => void;
}

/** Revokes the device named by the first argument. */
async function revoke({ target, positionals, print }: OperatorCall): Promise<number> {
  const deviceId = positionals[0];
  if (!deviceId) {
    print(CLI_USAGE);
    return 2;
  }
  await call(target, "DELETE", `/api/v1/devices/${encodeURIComponent(deviceId)}`);
  print(`Revoked ${deviceId}`);
  return 0;
}

/** Approves or denies the waiting approval named by the first argument. */
async function decide(
  { target, positionals, print }: OperatorCall,
  approve: boolean,
): Promise<number> {
  const requestId = positionals[0];
  if (!requestId) {
    print(CLI_USAGE);
    return 2;
  }
  await call(target, "POST", `/api/v1/approvals/${encodeURIComponent(requestId)}`, { approve });
  print(`${approve ? "Approved" : "Denied"} ${requestId}`);
  return 0;
}

/** `cueport midi`: the participants and waiting sources, or `approve|deny ID`. */
async function midi({ target, positionals, print }: OperatorCall): Promise<number> {
  const [verb, requestId] = positionals;
  if (verb === "approve" || verb === "deny") {
    if (!requestId) {
      print(COMMAND_USAGE.midi!);
      return 2;
    }
    const path = `/api/v1/midi/approvals/${encodeURIComponent(requestId)}`;
    const { deviceId } = await call(target, "POST", path, { approve: verb === "approve" });
    print(verb === "approve" ? `Approved ${requestId} as ${deviceId}` : `Denied ${requestId}`);
    return 0;
  }
  if (verb !== undefined) {
    print(COMMAND_USAGE.midi!);
    return 2;
  }
  const { participants, pending } = await call(target, "GET", "/api/v1/midi");
  if (participants.length === 0) print("No MIDI participant is connected");
  for (const p of participants) print(`connected  ${p.name}  ${p.kind} ${p.address}`);
  for (const r of pending) {
    print(`waiting    ${r.requestId}  ${r.name}  from ${r.address}  since ${r.requestedAt}`);
  }
  return 0;
}

/** The lines `cueport displays` prints for an answer of `GET /api/v1/output/displays`. */
export function displayLines(answer: OutputDisplays): string[] {
  if (answer.displays.length === 0) return [`No displays listed: ${answer.reason ?? "none"}`];
  const lines = answer.displays.map((d) =>
    [
      `${d.index}  ${d.name}  ${d.width}x${d.height}+${d.left}+${d.top}`,
      d.isPrimary ? "  primary" : "",
      d.index === answer.current ? "  <- the output" : "",
    ].join("")
  );
  const chosen = answer.choice === null ? "the primary" : `"${answer.choice}"`;
  return [...lines, `The output's display: ${chosen}`];
}

/** The most arguments each operator command takes (`midi approve ID`: two). */
const MOST_ARGUMENTS: Record<string, number> = { revoke: 1, approve: 1, deny: 1, midi: 2 };

/** The operator commands over the running service's API, by name: each returns its exit code. */
const OPERATOR_COMMANDS: Record<string, (c: OperatorCall) => Promise<number>> = {
  async pair({ target, print }) {
    const { otp, expiresAt } = await call(target, "POST", "/api/v1/pair/code");
    print(`Pairing code: ${otp}  (valid until ${expiresAt})`);
    // The addresses it listens on, as its lock file says (none there: every LAN address).
    const hosts = target.running?.hosts;
    const isList = Array.isArray(hosts) && hosts.every((h) => typeof h === "string");
    print(
      await pairingText(target.port, otp, {
        plain: !Deno.stdout.isTerminal(),
        ...(isList ? { hosts } : {}),
      }),
    );
    return 0;
  },
  async devices({ target, print }) {
    const { devices } = await call(target, "GET", "/api/v1/devices");
    if (devices.length === 0) print("No paired devices");
    for (const d of devices) {
      print(
        `${d.deviceId}  ${d.name}  scopes=${
          d.scopes.join(",")
        }  paired ${d.pairedAt} from ${d.address}`,
      );
    }
    return 0;
  },
  revoke,
  async displays({ target, print }) {
    const answer = await call(target, "GET", "/api/v1/output/displays");
    for (const line of displayLines(answer as OutputDisplays)) print(line);
    return 0;
  },
  async "rotate-key"({ target, print }) {
    const { revoked } = await call(target, "POST", "/api/v1/auth/rotate-key");
    print(`Signing key rotated; ${revoked} device(s) revoked`);
    return 0;
  },
  async approvals({ target, print }) {
    const { approvals } = await call(target, "GET", "/api/v1/approvals");
    if (approvals.length === 0) print("No client is waiting for approval");
    for (const a of approvals) {
      print(`${a.requestId}  ${a.deviceName}  from ${a.address}  since ${a.requestedAt}`);
    }
    return 0;
  },
  async mcp({ target }) {
    // Loaded only here: the bridge brings the MCP SDK's client.
    const { runStdioBridge } = await import("./mcp/stdio_bridge.ts");
    await runStdioBridge({
      url: new URL(`http://127.0.0.1:${target.port}/mcp`),
      token: target.token,
      dataDir: target.dataDir,
      log: (m) => console.error(m), // stdout carries the protocol
    });
    return 0;
  },
  midi,
  approve: (c) => decide(c, true),
  deny: (c) => decide(c, false),
};

/** Runs one operator command; returns the process exit code. */
export async function runCli(
  command: string,
  args: string[],
  print = console.log,
): Promise<number> {
  const deployCommand = DEPLOY_COMMANDS[command];
  if (deployCommand) return await deployCommand(args, print);
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        "http-port": { type: "string" },
        "data-dir": { type: "string" },
        help: { type: "boolean" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    print(`cueport ${command}: ${argsMessage(error)}\n\n${CLI_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    print(COMMAND_USAGE[command] ?? CLI_USAGE);
    return 0;
  }
  const extra = positionals[MOST_ARGUMENTS[command] ?? 0];
  if (extra !== undefined && Object.hasOwn(COMMAND_USAGE, command)) {
    print(`cueport ${command}: unexpected argument "${extra}"\n\n${COMMAND_USAGE[command]}`);
    return 2;
  }
  const target = await findTarget(values);
  const run = Object.hasOwn(OPERATOR_COMMANDS, command) ? OPERATOR_COMMANDS[command] : undefined;
  if (!run) {
    print(CLI_USAGE);
    return 2;
  }
  try {
    return await run({ target, positionals, print });
  } catch (error) {
    print(`cueport ${command}: ${(error as Error).message}`);
    return 1;
  }
}
