/**
 * `deno task bench`: runs every part of the bench in turn, each in its own Deno process, whatever
 * is missing. A part that cannot run (the Companion module cannot be built) prints one skipped row
 * with the reason; a part that fails does not stop the others. Exits non-zero only when a part that
 * ran failed. `deno task bench http ws` runs only the parts whose file names start so.
 * @module
 */
import { ensureCompanionBuilt } from "../tools/companion_build.ts";
import { ensureMidiPeerInstalled } from "../tools/midi_peer_build.ts";
import { missingPeer } from "./_peers.ts";

/** One part of the bench: a script of `bench/`, its permissions, and what it needs first. */
export interface Part {
  /** The script's file name in `bench/`. */
  readonly file: string;
  /** Its `deno run` permission flags. */
  readonly flags: readonly string[];
  /** Readies what the part runs; why it cannot run, or null. */
  readonly ready?: () => Promise<string | null>;
}

const ALL = ["--allow-net", "--allow-read", "--allow-write", "--allow-env", "--allow-run"];
const FULL = [...ALL, "--allow-sys"];

/** The parts, in the order they run. */
export const PARTS: readonly Part[] = [
  ...["http", "ws", "media", "osc", "mcp", "startup", "remote"].map((name) => ({
    file: `${name}_bench.ts`,
    flags: FULL,
  })),
  {
    file: "companion_bench.ts",
    flags: FULL,
    ready: () => ensureCompanionBuilt((line) => console.log(`  ${line}`)),
  },
  { file: "output_bench.ts", flags: FULL },
  { file: "editor_bench.ts", flags: FULL },
  { file: "isf_bench.ts", flags: ["--allow-read", "--allow-env"] },
  {
    file: "midi_bench.ts",
    flags: FULL,
    // Node runs the npm rtpmidi peer (`tools/midi_peer/`), installed on first use.
    ready: async () =>
      missingPeer("node") ?? await ensureMidiPeerInstalled((line) => console.log(`  ${line}`)),
  },
  // The rig clock: loopback, then two network namespaces as root (a skipped row otherwise).
  { file: "rig_clock_bench.ts", flags: FULL },
  // Two rigs of a group on etcd, in namespaces as root: triggers at one show time.
  { file: "rigs_bench.ts", flags: FULL },
];

/** What became of one part. */
export interface Outcome {
  readonly file: string;
  readonly result: "ok" | "failed" | "skipped";
  /** The exit code of a failed part, or why a part was skipped. */
  readonly detail?: string;
}

/** Runs `parts` in turn with `run` (the exit code of one part), printing with `say`. */
export async function runParts(
  parts: readonly Part[],
  run: (part: Part) => Promise<number>,
  say: (line: string) => void,
): Promise<Outcome[]> {
  const outcomes: Outcome[] = [];
  for (const part of parts) {
    const problem = part.ready ? await part.ready().catch((e) => String(e?.message ?? e)) : null;
    if (problem) {
      say(`\n${part.file}\n  skipped: ${problem}`);
      outcomes.push({ file: part.file, result: "skipped", detail: problem });
      continue;
    }
    const code = await run(part);
    if (code === 0) outcomes.push({ file: part.file, result: "ok" });
    else outcomes.push({ file: part.file, result: "failed", detail: `exit ${code}` });
  }
  return outcomes;
}

/** The closing line: how many parts ran, were skipped and failed (named). */
export function summaryLine(outcomes: readonly Outcome[]): string {
  const of = (result: Outcome["result"]) => outcomes.filter((o) => o.result === result);
  const failed = of("failed").map((o) => `${o.file} (${o.detail})`);
  return `bench: ${of("ok").length} parts ran, ${of("skipped").length} skipped, ` +
    `${failed.length} failed${failed.length > 0 ? `: ${failed.join(", ")}` : ""}`;
}

/** The parts whose file names start with one of `names`, or all of them when none is given. */
export function selectParts(names: readonly string[]): Part[] {
  if (names.length === 0) return [...PARTS];
  return PARTS.filter((p) => names.some((n) => p.file.startsWith(n)));
}

/** Runs one part in its own Deno process, its output on ours; its exit code. */
async function runPart(part: Part): Promise<number> {
  const script = new URL(part.file, import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), { args: ["run", ...part.flags, script] })
    .spawn();
  return (await child.status).code;
}

if (import.meta.main) {
  const outcomes = await runParts(selectParts(Deno.args), runPart, (l) => console.log(l));
  console.log(`\n${summaryLine(outcomes)}`);
  Deno.exit(outcomes.some((o) => o.result === "failed") ? 1 : 0);
}
