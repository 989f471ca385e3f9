/**
 * `cueport status`: asks the running service how it is (health, ports, the
 * player, connected clients, paired devices and waiting clients, uptime),
 * through its local API.
 * @module
 */
import { parseArgs } from "node:util";
import { call, findTarget } from "./operator_target.ts";
import type { DataProblem } from "../../protocol/library.ts";
import { argsMessage } from "./args_message.ts";

/** Usage of `cueport status`. */
export const STATUS_USAGE = `Usage: cueport status [--data-dir DIR] [--http-port N] [--json]
  Asks the running service: health, ports, the player, connected clients, paired devices,
  clients waiting for approval, uptime, and each file of the data dir found damaged. Exits 0 when the service answers with its player ready, 1 when it does
  not answer, 3 when it answers but its player is not ready.
  --data-dir DIR   the service's data dir (default: CUEPORT_DATA_DIR, the usual place, or
                   the data dir of an installed service)
  --http-port N    the service's HTTP port (default: the one written in its data dir)
  --json           one JSON object instead of lines`;

/** What `cueport status` reports. */
export interface StatusReport {
  status: string;
  ready: boolean;
  version: string;
  uptimeSeconds: number;
  player: { name: string; version: string } | null;
  ports: Record<string, number>;
  /** Connected now: WebSocket sessions, MCP sessions, OSC senders subscribed to feedback. */
  clients: { websocket: number; mcp: number; osc: number };
  pairedDevices: number | null;
  waitingApprovals: number | null;
  dataDir: string | null;
  /** The files of the data dir found damaged (`/health`). */
  problems: DataProblem[];
}

/** Runs `cueport status`; returns the exit code. */
export async function runStatusCommand(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<number> {
  let values;
  try {
    values = parseArgs({
      args,
      options: {
        "data-dir": { type: "string" },
        "http-port": { type: "string" },
        json: { type: "boolean" },
        help: { type: "boolean" },
      },
    }).values;
  } catch (error) {
    print(`cueport status: ${argsMessage(error)}\n\n${STATUS_USAGE}`);
    return 2;
  }
  if (values.help) {
    print(STATUS_USAGE);
    return 0;
  }
  const target = await findTarget(values);
  let report: StatusReport;
  try {
    const health = await call(target, "GET", "/health");
    const info = await call(target, "GET", "/api/v1/info");
    // Counting devices needs the operator credential; without it the count is unknown.
    const devices = await call(target, "GET", "/api/v1/devices").catch(() => null);
    const approvals = await call(target, "GET", "/api/v1/approvals").catch(() => null);
    report = {
      status: health.status,
      ready: health.ready,
      version: health.version,
      uptimeSeconds: health.uptimeSeconds,
      player: health.player,
      ports: info.ports,
      clients: info.clients,
      pairedDevices: devices?.devices?.length ?? null,
      waitingApprovals: approvals?.approvals?.length ?? null,
      // A service found by --http-port is another data dir's unless its lock names that port.
      dataDir: !target.portGiven || target.running?.ports?.http === target.port
        ? target.dataDir
        : null,
      problems: health.problems ?? [],
    };
  } catch (error) {
    print(`cueport status: ${(error as Error).message}`);
    return 1;
  }
  if (values.json) print(JSON.stringify(report));
  else for (const line of describe(report)) print(line);
  return report.ready ? 0 : 3;
}

function describe(r: StatusReport): string[] {
  const player = r.player ? `${r.player.name} ${r.player.version}` : "none";
  const ports = Object.entries(r.ports).map(([name, port]) => `${name} ${port ?? "off"}`)
    .join(", ");
  const count = (n: number | null) => n === null ? "unknown (no operator credential)" : String(n);
  return [
    `Cueport ${r.version}: ${r.status}, up ${formatUptime(r.uptimeSeconds)}`,
    `Player: ${player}${r.ready ? ", ready" : ", not ready"}`,
    `Ports: ${ports}`,
    `Clients: ${r.clients.websocket} WebSocket, ${r.clients.mcp} MCP, ${r.clients.osc} OSC ` +
    `subscribed`,
    `Paired devices: ${count(r.pairedDevices)}; clients waiting for approval: ${
      count(r.waitingApprovals)
    }`,
    `Data dir: ${r.dataDir ?? "not known (give the service's --data-dir to see it)"}`,
    ...r.problems.map(problemStatusLine),
  ];
}

/** One line of a damaged file: which, what is wrong, what is served, where it is kept. */
export function problemStatusLine(p: DataProblem): string {
  const served = p.recoveredFrom ? `served ${p.recoveredFrom}` : "no good copy";
  const kept = p.keptAs ? `, kept as ${p.keptAs}` : "";
  return `Damaged: ${p.file}: ${p.problem} (${served}${kept})`;
}

/** `3 s`, `5 min 2 s`, `2 h 5 min`, `3 d 4 h`. */
export function formatUptime(seconds: number): string {
  const d = Math.floor(seconds / 86400);
  const h = Math.floor(seconds % 86400 / 3600);
  const m = Math.floor(seconds % 3600 / 60);
  const s = seconds % 60;
  if (d > 0) return `${d} d ${h} h`;
  if (h > 0) return `${h} h ${m} min`;
  if (m > 0) return `${m} min ${s} s`;
  return `${s} s`;
}
