/**
 * `cueport group status | join NAME | leave` (docs/rigs.md): the running
 * rig's view of its group, through its local API; `join` and `leave` write
 * the settings `group`, `groupEndpoints` and `rigName` into the config file
 * (checked as the service reads them), taken at the service's next start.
 * @module
 */
import { dirname } from "node:path";
import { parseArgs } from "node:util";
import { call, findTarget } from "../deploy/operator_target.ts";
import { checkConfigText } from "../deploy/config_check.ts";
import { defaultConfigPath } from "../config.ts";
import { writeJsonAtomic } from "../../lib/atomic_write.ts";
import { GroupStatus, type RigClock } from "../../protocol/rigs.ts";
import { argsMessage } from "../deploy/args_message.ts";

/** Usage of `cueport group`. */
export const GROUP_USAGE =
  `Usage: cueport group status [--json] | join NAME [--endpoints URLS] [--rig NAME] | leave
  status          the rig group as the running service sees it: members, leader, this rig,
                  whether edits are possible. Exits 0 in a group where edits are possible,
                  1 when the service does not answer, 3 when edits are not possible, 4 alone
  join NAME       write the settings group (NAME), groupEndpoints and rigName into the config
                  file; the service joins at its next start (docs/rigs.md)
  leave           remove the setting group from the config file: alone from the next start
  --endpoints URLS  the etcd members' client URLs, comma-separated (join)
  --rig NAME      this rig's name in the group (join; default the host name)
  --config FILE   the config file (default --config, CUEPORT_CONFIG, else cueport config path)
  --data-dir DIR, --http-port N   the running service (status), as for cueport status`;

/** How many words each subcommand takes after its name. */
const WORDS: Record<string, number> = { status: 0, join: 1, leave: 0 };

/** What is wrong with the words of `cueport group ...` (the subcommand and its NAME), or null. */
function argumentsProblem([sub, ...rest]: readonly string[]): string | null {
  if (sub === undefined) return "no subcommand";
  const words = WORDS[sub];
  if (words === undefined) return `unknown subcommand "${sub}"`;
  if (rest.length < words) return `${sub} needs the group's NAME: cueport group join NAME`;
  if (rest.length > words) {
    return `unexpected "${rest.slice(words).join(" ")}": cueport group ${sub}` +
      `${words === 1 ? " NAME" : ""} takes nothing more`;
  }
  return null;
}

/** Runs `cueport group ...`; returns the exit code. */
export async function runGroupCommand(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: {
        ...{ json: { type: "boolean" }, help: { type: "boolean" } },
        ...{ endpoints: { type: "string" }, rig: { type: "string" }, config: { type: "string" } },
        ...{ "data-dir": { type: "string" }, "http-port": { type: "string" } },
      },
    });
  } catch (error) {
    print(`cueport group: ${argsMessage(error)}\n\n${GROUP_USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [sub, name] = positionals;
  if (values.help) {
    print(GROUP_USAGE);
    return 0;
  }
  const refusal = argumentsProblem(positionals);
  if (refusal !== null) {
    print(`cueport group: ${refusal}\n\n${GROUP_USAGE}`);
    return 2;
  }
  if (sub === "status") return await status(values, print);
  const path = values.config ?? Deno.env.get("CUEPORT_CONFIG") ?? defaultConfigPath();
  if (!path) {
    print("cueport group: no config file: give one with --config");
    return 2;
  }
  const change = sub === "leave" ? { group: undefined } : {
    group: name,
    ...(values.endpoints ? { groupEndpoints: values.endpoints.split(",") } : {}),
    ...(values.rig ? { rigName: values.rig } : {}),
  };
  return await writeSettings(path, change, print);
}

async function status(
  values: { json?: boolean; "data-dir"?: string; "http-port"?: string },
  print: (line: string) => void,
): Promise<number> {
  let answer: GroupStatus;
  try {
    answer = GroupStatus.parse(await call(await findTarget(values), "GET", "/api/v1/group"));
  } catch (error) {
    print(`cueport group status: ${(error as Error).message}`);
    return 1;
  }
  if (values.json) print(JSON.stringify(answer));
  else for (const line of describe(answer)) print(line);
  return answer.group === null ? 4 : answer.canEdit ? 0 : 3;
}

/** The status as lines for a terminal. */
export function describe(s: GroupStatus): string[] {
  if (s.group === null) {
    return [`${s.rig} runs alone (no setting group): cueport group join NAME joins one`];
  }
  const edits = s.canEdit ? "edits possible" : `edits NOT possible (${s.reason})`;
  return [
    `Group ${s.group}: this rig ${s.rig}${s.isLeader ? " (leader)" : ""}; ${edits}`,
    `Leader: ${s.leader ?? "none known"}; etcd: ${s.endpoint} (of ${s.endpoints.join(", ")})`,
    ...s.members.map((m) => {
      const seen = m.lastSeenMs === null ? "this rig" : `seen ${m.lastSeenMs} ms ago`;
      const lead = m.isLeader ? ", leader" : "";
      return `  ${m.name}${lead}: ${m.addresses.join(" ") || "no address"}, HTTP ${
        m.ports.http ?? "?"
      }, ${m.version}, ${seen}${m.clock ? `, ${clockText(m.clock)}` : ""}`;
    }),
    ...(s.log ? [logText(s.log)] : []),
  ];
}

/** How far the rig applied the group's log, and what it waits for (then it refuses edits). */
function logText(l: NonNullable<GroupStatus["log"]>): string {
  const w = l.waitingFor;
  const waits = w === null
    ? ""
    : `; ${
      w.of === "snapshot" ? "the snapshot of revision" : "entry"
    } ${w.revision} WAITS ${w.sinceMs} ms for ${
      w.sha256 === null ? "the player" : `file ${w.sha256} (edits refused: GROUP_BEHIND)`
    }`;
  return `Log: applied ${l.applied} of ${l.head}${waits}`;
}

/** A rig's show clock in a few words: its role, offset, error and frame lag. */
function clockText(c: RigClock): string {
  const error = c.errorMs === null ? "not measured yet" : `error ${c.errorMs.toFixed(1)} ms`;
  const lag = c.frameLagMs === null ? "" : `, frame lag ${c.frameLagMs.toFixed(1)} ms`;
  return `clock ${c.role} offset ${c.offsetMs.toFixed(1)} ms ${error}${lag}`;
}

/** Sets (or, given undefined, removes) `change`'s keys in the config file at `path`. */
async function writeSettings(
  path: string,
  change: Record<string, unknown>,
  print: (line: string) => void,
): Promise<number> {
  let file: Record<string, unknown> = {};
  try {
    file = JSON.parse(await Deno.readTextFile(path));
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) {
      print(`cueport group: cannot read ${path}: ${(error as Error).message}`);
      return 1;
    }
  }
  for (const [key, value] of Object.entries(change)) {
    if (value === undefined) delete file[key];
    else file[key] = value;
  }
  const problems = checkConfigText(JSON.stringify(file));
  if (problems.length > 0) {
    for (const p of problems) print(`cueport group: ${p.key ?? path}: ${p.reason}`);
    return 2;
  }
  await Deno.mkdir(dirname(path), { recursive: true });
  await writeJsonAtomic(path, file);
  const what = change.group === undefined ? "leaves its group" : `joins the group ${change.group}`;
  print(`${path}: written; the service ${what} at its next start (restart it now)`);
  return 0;
}
