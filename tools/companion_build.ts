/**
 * Builds the Companion module (`integrations/companion`: `npm ci`, then `npm run build`) when its
 * build is missing or stale, for the test command and the bench. The build is kept until its
 * sources change: a hash of `package.json`, `package-lock.json` and `src/` is stored beside it
 * (`pkg/.cueport-build.json`); `npm ci` runs again only when the lock file changed or
 * `node_modules` is gone. Run alone (`deno run -A tools/companion_build.ts`) it builds and exits
 * non-zero on failure, printing why (`.ci/run`).
 * @module
 */
import { createHash } from "node:crypto";
import { peerProblem } from "./peers.ts";
import { buildInChild, buildMain } from "./_build_child.ts";

/** The Companion module's folder. */
export const COMPANION_DIR = new URL("../integrations/companion/", import.meta.url).pathname;
/** The package `npm run build` leaves, which the tests and the bench run. */
const BUILT = "pkg/cueport/main.js";
/** The hashes of the sources of the build that is there, beside it. */
const STAMP = "pkg/.cueport-build.json";

/** The hashes a build is kept by: the lock file's, and every source's (with `package.json`). */
export interface BuildStamp {
  readonly lock: string;
  readonly sources: string;
}

/** What is there now: the stored stamp, the current one, whether the build and deps exist. */
export interface BuildState {
  readonly stored: BuildStamp | null;
  readonly current: BuildStamp;
  readonly built: boolean;
  readonly installed: boolean;
}

/** The npm steps a state needs, in order (none when the build is there and fresh). */
export function buildSteps(state: BuildState): ("ci" | "build")[] {
  const { stored, current } = state;
  const ci = !state.installed || stored?.lock !== current.lock;
  const fresh = state.built && stored?.lock === current.lock && stored.sources === current.sources;
  if (fresh && !ci) return [];
  return ci ? ["ci", "build"] : ["build"];
}

/** The SHA-256 of these files, in order, each with its path, as hex. */
async function hashFiles(dir: string, paths: readonly string[]): Promise<string> {
  const hash = createHash("sha256");
  for (const path of paths) {
    hash.update(`${path}\0`);
    hash.update(await Deno.readFile(`${dir}${path}`));
  }
  return hash.digest("hex");
}

/** Every file under `dir` + `sub`, relative to `dir`, sorted. */
function filesUnder(dir: string, sub: string): string[] {
  const out: string[] = [];
  for (const entry of Deno.readDirSync(`${dir}${sub}`)) {
    const path = `${sub}/${entry.name}`;
    if (entry.isDirectory) out.push(...filesUnder(dir, path));
    else if (entry.isFile) out.push(path);
  }
  return out.sort();
}

/** The state of the build in `dir` (the Companion module's folder, ending in `/`). */
export async function buildState(dir = COMPANION_DIR): Promise<BuildState> {
  const exists = (path: string) => Deno.stat(`${dir}${path}`).then(() => true, () => false);
  const stored = await Deno.readTextFile(`${dir}${STAMP}`).then(
    (text) => JSON.parse(text) as BuildStamp,
    () => null,
  );
  const current = {
    lock: await hashFiles(dir, ["package-lock.json"]),
    sources: await hashFiles(dir, ["package.json", ...filesUnder(dir, "src")]),
  };
  return { stored, current, built: await exists(BUILT), installed: await exists("node_modules") };
}

/** Runs `npm args` in `dir`; the last line of its errors when it fails, else null. */
async function npm(dir: string, args: string[]): Promise<string | null> {
  const out = await new Deno.Command("npm", { args, cwd: dir, stdout: "null", stderr: "piped" })
    .output();
  if (out.success) return null;
  const last = new TextDecoder().decode(out.stderr).trim().split("\n").at(-1) ?? "";
  return `npm ${args[0]} failed in integrations/companion: ${last || `exit ${out.code}`}`;
}

/**
 * Builds the module in `dir` when it is missing or stale, printing one line (`say`) when it
 * does. Why it cannot be used (Node missing or unfit, npm failed), or null when it is built.
 */
export async function ensureCompanionBuilt(
  say: (line: string) => void,
  dir = COMPANION_DIR,
): Promise<string | null> {
  const state = await buildState(dir);
  const steps = buildSteps(state);
  if (steps.length === 0) return null;
  const node = peerProblem("node");
  if (node) return node;
  const names = steps.map((s) => s === "ci" ? "npm ci" : "npm run build");
  say(`building the Companion module (${names.join(", ")}; kept until its sources change)`);
  await Deno.remove(`${dir}${STAMP}`).catch(() => {});
  const ci = ["ci", "--no-audit", "--no-fund", "--loglevel=error"];
  for (const step of steps) {
    const failed = await npm(dir, step === "ci" ? ci : ["run", "--silent", "build"]);
    if (failed) return failed;
  }
  await Deno.writeTextFile(`${dir}${STAMP}`, JSON.stringify(state.current) + "\n");
  return null;
}

/**
 * `ensureCompanionBuilt` in a child Deno that may write in the module's folder only (its build
 * writes nowhere else): its line goes to our stderr; why it cannot be used, or null.
 */
export function ensureCompanionBuiltInChild(): Promise<string | null> {
  return buildInChild(import.meta.url, COMPANION_DIR);
}

if (import.meta.main) await buildMain(ensureCompanionBuilt);
