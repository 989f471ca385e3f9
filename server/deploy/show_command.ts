/**
 * `cueport show export NAME FILE` and `cueport show import FILE [--replace [--force]]`:
 * a Project to a show file and back (docs/projects.md, "The show file"),
 * through the running service's API with the operator credential, streamed
 * both ways. One line on success, one line of error.
 * @module
 */
import { parseArgs } from "node:util";
import { resolve } from "node:path";
import { call, findTarget, send, type Target } from "./operator_target.ts";
import { writeShowFileWhole } from "../../protocol/show_file.ts";
import { argsMessage } from "./args_message.ts";

/** Usage of `cueport show`. */
export const SHOW_USAGE =
  `Usage: cueport show export NAME FILE | show import FILE [--replace [--force]]
  export NAME FILE   writes the open Project NAME (its id, or its name) as a show file: a zip
                     with its project.json, presets.json, media and a manifest (FILE appears
                     whole or not at all: it is written as FILE.partial, then renamed; a stale
                     FILE.partial a killed export left is removed by the next)
  import FILE        imports a show file as a new Project; a taken id gets -2, -3...
  --replace          with import: replace the Project of the same id instead
  --force            with --replace: even while that Project plays or is paused (it stops)
  --data-dir DIR     the service's data dir (default: CUEPORT_DATA_DIR, the usual place, or
                     an installed service's); the port and operator credential are read there
  --http-port N      the running service's HTTP port (default: the one in its data dir)`;

/**
 * The id of the Project whose id, else whose name, is `name`. One that is not
 * open (closed, damaged, deleted) is named too: the export's refusal says why.
 */
async function projectIdOf(target: Target, name: string): Promise<string> {
  const { projects } = await call(target, "GET", "/api/v1/projects?all=true") as {
    projects: { projectId: string; name: string; state: string }[];
  };
  if (projects.some((p) => p.projectId === name)) return name;
  const named = projects.filter((p) => p.name === name);
  if (named.length === 1) return named[0]!.projectId;
  const open = projects.filter((p) => p.state === "open");
  const ids = open.map((p) => p.projectId).join(", ") || "none";
  throw new Error(
    named.length === 0
      ? `No open Project has the id or name "${name}" (open: ${ids})`
      : `${named.length} Projects are named "${name}": give the id (${
        named.map((p) => p.projectId).join(", ")
      })`,
  );
}

/** The error message of a failed answer. */
async function failure(res: Response): Promise<Error> {
  const answer = await res.json().catch(() => null);
  return new Error(answer?.error?.message ?? `HTTP ${res.status}`);
}

async function exportShow(target: Target, name: string, given: string): Promise<string> {
  // Named whole in what is printed: under `deno task` a relative path is the checkout's.
  const file = resolve(given);
  const projectId = await projectIdOf(target, name);
  const res = await send(target, `/api/v1/projects/${encodeURIComponent(projectId)}/export`, {});
  if (!res.ok || !res.body) throw await failure(res);
  await writeShowFileWhole(file, (out) => res.body!.pipeTo(out));
  const { size } = await Deno.stat(file);
  return `Exported ${projectId} to ${file} (${size} bytes)`;
}

async function importShow(
  target: Target,
  given: string,
  options: { replace?: boolean; force?: boolean },
): Promise<string> {
  const file = resolve(given);
  const source = await Deno.open(file, { read: true }).catch((error) => {
    throw new Error(`cannot read ${file}: ${(error as Error).message}`);
  });
  const { size } = await source.stat();
  const query = options.replace ? `?replace=true${options.force ? "&force=true" : ""}` : "";
  const res = await send(target, `/api/v1/projects/import${query}`, {
    method: "POST",
    headers: { "content-type": "application/zip", "content-length": String(size) },
    body: source.readable,
  });
  if (!res.ok) throw await failure(res);
  const answer = await res.json();
  const renamed = answer.renamedFrom ? ` (renamed from ${answer.renamedFrom})` : "";
  const replaced = answer.replaced ? " (replaced)" : "";
  return `Imported ${answer.projectId} "${answer.name}"${renamed}${replaced} (${size} bytes)`;
}

/** Runs `cueport show`; returns the exit code. */
export async function runShowCommand(
  args: string[],
  print: (line: string) => void = console.log,
): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        "data-dir": { type: "string" },
        "http-port": { type: "string" },
        replace: { type: "boolean" },
        force: { type: "boolean" },
        help: { type: "boolean" },
      },
      allowPositionals: true,
    });
  } catch (error) {
    print(`cueport show: ${argsMessage(error)}\n\n${SHOW_USAGE}`);
    return 2;
  }
  const { values, positionals: [verb, ...rest] } = parsed;
  if (values.help) {
    print(SHOW_USAGE);
    return 0;
  }
  const isExport = verb === "export" && rest.length === 2;
  if (!isExport && !(verb === "import" && rest.length === 1)) {
    print(SHOW_USAGE);
    return 2;
  }
  try {
    const target = await findTarget(values);
    print(
      isExport
        ? await exportShow(target, rest[0]!, rest[1]!)
        : await importShow(target, rest[0]!, values),
    );
    return 0;
  } catch (error) {
    print(`cueport show ${verb}: ${(error as Error).message}`);
    return 1;
  }
}
