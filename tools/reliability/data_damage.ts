/**
 * Probe `data_damage` (issue 41): a data dir made by a real service (the
 * demo, two Songs added, a user preset, two devices paired, output muted and
 * unmuted, a Song selected, Control A at 0.25, the Song playing), stopped.
 * Then, one case at a time, each file the service reads at start and each
 * corruption (truncated, one structural byte flipped, a field of the wrong
 * JSON type, empty): a copy of the dir, the file corrupted, a start. Every
 * time the service must start, name the file (its log and `/health`
 * `problems`), serve the newest good copy where one exists (`recoveredFrom`;
 * the demo open with its Songs, a user preset), and keep the live state (the
 * selected Song and Control A as before). A short run takes 6 cases, a full one every file
 * x every corruption that applies (bounded in count, never in wall time). Every service is
 * started through the harness (`_harness.ts`): its peak RSS and local p99 are in the row.
 * @module
 */
import { tempDir } from "./_children.ts";
import { SERVICE_FIGURES } from "./_figures.ts";
import { ServiceRun } from "./_harness.ts";
import { RemoteDevice } from "./_remote_device.ts";
import type { ServiceProcess } from "./_service.ts";
import type { Rng } from "./_prng.ts";
import type { Probe, ProbeContext } from "./_types.ts";
import type { Tally } from "./_tally.ts";

/**
 * The files the service reads at start, under the data dir, and whether an older good copy
 * must be served when one is damaged (history: an older copy belongs to an older revision;
 * the signing key and the operator credential: secrets, replaced, never kept in copies).
 */
const FILES: readonly { path: string; isRecovered: boolean }[] = [
  { path: "projects/demo/project.json", isRecovered: true },
  { path: "projects/demo/history.json", isRecovered: false },
  { path: "presets.json", isRecovered: true },
  { path: "player.json", isRecovered: true },
  { path: "live.json", isRecovered: true },
  { path: "auth/devices.json", isRecovered: true },
  { path: "auth/signing-key.json", isRecovered: false },
  { path: "auth/operator-token", isRecovered: false },
];

const CORRUPTIONS = ["truncated", "flipped byte", "wrong types", "empty"] as const;
type Corruption = (typeof CORRUPTIONS)[number];

/** The cases of a short run: one of each corruption, on the files that matter most. */
const SHORT: readonly [string, Corruption][] = [
  ["projects/demo/project.json", "flipped byte"],
  ["live.json", "truncated"],
  ["presets.json", "wrong types"],
  ["player.json", "empty"],
  ["auth/devices.json", "wrong types"],
  ["auth/signing-key.json", "truncated"],
];

/** The `data_damage` probe. */
export const dataDamage: Probe = {
  name: "data_damage",
  summary:
    "each file the service reads at start x truncation, a flipped byte, wrong JSON types, empty: it starts, names the file, serves the newest good copy, keeps the live state",
  // Every case's service is started through the harness, which measures these of it.
  figures: SERVICE_FIGURES,
  run,
};

async function run(context: ProbeContext): Promise<void> {
  const { tally, rng } = context;
  const base = await tempDir("cueport-damage-base-");
  try {
    await prepare(tally, base.path);
    const cases = context.mode === "full"
      ? FILES.flatMap((f) => CORRUPTIONS.map((c): [string, Corruption] => [f.path, c]))
      : SHORT;
    const counts = { cases: 0, named: 0, recovered: 0, accepted: 0 };
    for (const [file, corruption] of cases) {
      const verdict = await oneCase(base.path, file, corruption, { rng, tally });
      if (verdict === "not applicable") continue;
      counts.cases++;
      tally.inputs++;
      if (verdict === "accepted") counts.accepted++;
      else counts.named++;
      if (verdict === "recovered") counts.recovered++;
      context.log(`data_damage: ${file} ${corruption}: ${verdict}`);
    }
    tally.note(
      `${counts.cases} cases: ${counts.named} named in the log and /health (${counts.recovered} served from a kept copy), ${counts.accepted} still valid (taken as they are)`,
    );
  } finally {
    await base.remove();
  }
}

/** The data dir of a show that ran (through the harness, watched as every case), stopped. */
async function prepare(tally: Tally, dataDir: string): Promise<void> {
  const run = await ServiceRun.start(tally);
  try {
    const port = run.ports.http;
    for (const title of ["Damage probe one", "Damage probe two"]) {
      await must(port, "/api/v1/edit", { name: "song.add", params: { title } });
    }
    for (const name of ["Probe one", "Probe two"]) {
      const preset = {
        kind: "effect",
        name,
        type: "shader",
        code: "void main() {}",
        parameters: [],
      };
      await must(port, "/api/v1/edit", { name: "preset.add", params: preset });
    }
    await RemoteDevice.pair(port);
    await RemoteDevice.pair(port);
    for (const [name, params] of ACTIONS) await must(port, "/api/v1/action", { name, params });
  } finally {
    await run.finish((dir) => copyDir(dir, dataDir));
  }
}

const ACTIONS: readonly [string, unknown[]][] = [
  ["MUTE_TOGGLE", []],
  ["MUTE_TOGGLE", []],
  ["SONG_SELECT_BY_ID", ["song-midnight"]],
  ["SET_CONTROL", ["A", 0.25]],
  ["PLAY_IN", []],
];

/** A local POST that must answer 200. */
async function must(port: number, path: string, body: unknown): Promise<void> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`${path} answered ${res.status}: ${text.slice(0, 200)}`);
}

async function get(port: number, path: string): Promise<Record<string, unknown>> {
  const res = await fetch(`http://127.0.0.1:${port}${path}`, { signal: AbortSignal.timeout(5000) });
  return await res.json();
}

/** What one case came to. */
type Verdict = "recovered" | "named" | "accepted" | "missed" | "not applicable";

/**
 * Starts the service through the harness (watched: both peak RSS, the local p99) on a copy of
 * the base dir with `file` corrupted, and judges; the copy is removed.
 */
async function oneCase(
  baseDir: string,
  file: string,
  corruption: Corruption,
  o: { rng: Rng; tally: Tally },
): Promise<Verdict> {
  const damaged = corrupt(await Deno.readFile(`${baseDir}/${file}`), corruption, o.rng);
  if (damaged === null) return "not applicable";
  const where = `${file} ${corruption}`;
  const prepare = async (dir: string) => {
    await copyDir(baseDir, dir);
    await Deno.writeFile(`${dir}/${file}`, damaged);
  };
  let run: ServiceRun;
  try {
    run = await ServiceRun.start(o.tally, { prepare, args: ["--log-level", "info"] });
  } catch (error) {
    o.tally.crash(`${where}: no start: ${(error as Error).message.slice(0, 300)}`);
    return "missed";
  }
  try {
    return await judge(run.service, file, where, o.tally);
  } finally {
    await run.finish();
  }
}

/** Copies the folder `from` into `to` (made already), its files' modes and times kept. */
export async function copyDir(from: string, to: string): Promise<void> {
  const out = await new Deno.Command("cp", { args: ["-a", `${from}/.`, to] }).output();
  if (!out.success) throw new Error(`cp -a ${from} failed`);
}

/** The judgement of one started service on a damaged `file`. */
async function judge(svc: ServiceProcess, file: string, where: string, tally: Tally) {
  const port = svc.ready.ports.http;
  const health: Record<string, unknown> = await get(port, "/health").catch(() => ({}));
  const problems = (health.problems ?? []) as { file: string; recoveredFrom: string | null }[];
  const problem = problems.find((p) => p.file === file);
  const misses: string[] = [];
  const spec = FILES.find((f) => f.path === file)!;
  if (problem) {
    if (health.status !== "degraded") misses.push(`/health status ${health.status}`);
    if (!svc.stderrTail().includes(file)) misses.push("no log line names the file");
    if (spec.isRecovered && problem.recoveredFrom === null) misses.push("no kept copy served");
    if (svc.ready.playerReady && (svc.ready as { problems?: number }).problems === undefined) {
      misses.push("the ready line has no problems count");
    }
  }
  misses.push(...await showKept(port).catch((e) => [`the show unreadable: ${e.message}`]));
  for (const miss of misses) tally.shortfall(`${where}: ${miss}`);
  if (misses.length > 0) return "missed";
  if (!problem) return "accepted";
  return problem.recoveredFrom ? "recovered" : "named";
}

/** What of the show is not as before: the demo open with its Songs, the Song selected, Control A. */
async function showKept(port: number): Promise<string[]> {
  const { projects } = await get(port, "/api/v1/projects") as {
    projects?: { projectId: string; state: string; songCount: number }[];
  };
  if (!projects) return ["GET /api/v1/projects answered no list (the player not ready?)"];
  const demo = projects.find((p) => p.projectId === "demo");
  if (demo?.state !== "open") return [`the demo is ${demo?.state ?? "not listed"}`];
  const misses: string[] = [];
  if (demo.songCount < 4) misses.push(`the demo has ${demo.songCount} Songs`);
  const playstate = await get(port, "/api/v1/projects/demo/playstate") as {
    activeSongID: string | null;
    controls: Record<string, number>;
  };
  if (playstate.activeSongID !== "song-midnight") {
    misses.push(`the selected Song is ${playstate.activeSongID}`);
  }
  if (playstate.controls?.A !== 0.25) misses.push(`Control A is ${playstate.controls?.A}`);
  const { presets } = await get(port, "/api/v1/presets") as { presets?: { builtIn: boolean }[] };
  if (!presets?.some((p) => !p.builtIn)) misses.push("no user preset");
  return misses;
}

/** `bytes` corrupted as `how`; null when it does not apply (wrong types of a file not JSON). */
export function corrupt(bytes: Uint8Array, how: Corruption, rng: Rng): Uint8Array | null {
  if (how === "empty") return new Uint8Array(0);
  if (how === "truncated") return bytes.slice(0, rng.int(Math.max(1, bytes.length - 1)));
  const text = new TextDecoder().decode(bytes);
  if (how === "flipped byte") {
    // A byte of the structure (or of the operator credential's prefix): a flip inside a
    // string or a number is a valid file with another value, which no parse can tell.
    const at = [...text].flatMap((c, i) => /[{}[\]":,]/.test(c) ? [i] : []);
    const i = at.length > 0 ? rng.pick(at) : rng.int(Math.min(8, bytes.length));
    const out = bytes.slice();
    out[i] = "x".charCodeAt(0);
    return out;
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return null;
  }
  return new TextEncoder().encode(JSON.stringify(wrongTypes(value, rng)));
}

/** `value` with one field of its first two levels given a value of another JSON type. */
function wrongTypes(value: unknown, rng: Rng): unknown {
  const swap = (v: unknown): unknown =>
    typeof v === "string" ? 7 : typeof v === "number" ? "7" : Array.isArray(v) ? { a: 1 } : [1];
  if (value === null || typeof value !== "object") return swap(value);
  const holder = Array.isArray(value) && value.length > 0 && rng.chance(0.5)
    ? value[0] as Record<string, unknown>
    : value as Record<string, unknown>;
  const keys = Object.keys(holder);
  if (keys.length === 0) return swap(value);
  const key = rng.pick(keys);
  holder[key] = swap(holder[key]);
  return value;
}
