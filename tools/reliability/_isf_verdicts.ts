/**
 * Validation verdicts of real ISF shaders over HTTP (`preset.validate`,
 * docs/presets.md "Validation"), for the `load` probe: the same 50 files of
 * the ISF community's collection (`isf_corpus/`, MIT, vendored so CI needs no
 * network) are checked on the quiet machine and again under load, and each
 * verdict must be the same.
 * @module
 */
import { isfKindOf } from "../../player/isf/parse.ts";
import type { Verdict } from "./_load_figures.ts";
import type { Rng } from "./_prng.ts";
import type { Mode } from "./_types.ts";

/** The vendored shaders (github.com/Vidvox/ISF-Files, see its README.md). */
export const CORPUS_DIR: URL = new URL("./isf_corpus/", import.meta.url);

/** Long enough for a check the service keeps waiting on under load; a verdict, not a hang. */
const VALIDATE_WITHIN_MS = 60_000;
/** How long a shader is asked again while the answer is 503 or 504. */
const RETRY_MS = 30_000;

/** Shaders of a short run (CI): picked by the run's seed, so `--seed N` checks the same ones. */
export const SHORT_RUN_SHADERS = 12;

/** One shader of the corpus. */
export interface Shader {
  /** Its file name (`Bad TV.fs`). */
  name: string;
  /** `effect`, or `visualizer` when it reads audio (as `preset.import` decides). */
  kind: "effect" | "visualizer" | "transition" | "generator";
  code: string;
}

/** The corpus's `.fs` files, by name. */
export async function loadCorpus(dir: URL = CORPUS_DIR): Promise<Shader[]> {
  const shaders: Shader[] = [];
  for await (const entry of Deno.readDir(dir)) {
    if (!entry.isFile || !entry.name.endsWith(".fs")) continue;
    const code = await Deno.readTextFile(new URL(encodeURIComponent(entry.name), dir));
    shaders.push({ name: entry.name, kind: isfKindOf(code), code });
  }
  return shaders.sort((a, b) => a.name.localeCompare(b.name));
}

/**
 * The verdict of `preset.validate` for `shader`: `valid`, `invalid: <problems>`, or the last
 * answer that carried none (`504 TIMEOUT`, `no answer: ...`). A 503 or 504 (the player
 * restarting or late) is asked again for up to 30 s: a verdict is about the shader, the
 * restarts and hangs have their own columns. Never throws.
 */
export async function verdictOf(port: number, shader: Shader): Promise<Verdict> {
  const started = performance.now();
  let last: Verdict = "no answer";
  while (performance.now() - started < RETRY_MS) {
    const answer = await askOnce(port, shader);
    if (typeof answer === "string") return answer;
    last = answer.none;
    await new Promise((r) => setTimeout(r, 100));
  }
  return `no verdict in ${RETRY_MS / 1000} s: ${last}`;
}

/** One `preset.validate`: the verdict, or `{none}` with the answer to retry after. */
async function askOnce(port: number, shader: Shader): Promise<Verdict | { none: string }> {
  const params = { kind: shader.kind, name: shader.name, type: "isf", code: shader.code };
  try {
    const res = await fetch(`http://127.0.0.1:${port}/api/v1/edit`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ name: "preset.validate", params }),
      signal: AbortSignal.timeout(VALIDATE_WITHIN_MS),
    });
    const body = await res.json().catch(() => null);
    const result = body?.edits?.[0]?.result;
    const answer = `${res.status} ${body?.error?.code ?? "(no verdict)"}`;
    if (res.status === 503 || res.status === 504) return { none: answer };
    if (res.status !== 200 || typeof result?.valid !== "boolean") return answer;
    return result.valid ? "valid" : `invalid: ${(result.problems as string[]).join("; ")}`;
  } catch (error) {
    return { none: `no answer: ${(error as Error).message}` };
  }
}

/**
 * Checks `shaders` one after another until done or `isToStop()` says so; resolves with the
 * verdicts by name and each round trip (ms).
 */
export async function verdicts(
  port: number,
  shaders: readonly Shader[],
  isToStop: () => boolean = () => false,
): Promise<{ verdicts: Map<string, Verdict>; ms: number[] }> {
  const found = new Map<string, Verdict>();
  const ms: number[] = [];
  for (const shader of shaders) {
    if (isToStop()) break;
    const started = performance.now();
    found.set(shader.name, await verdictOf(port, shader));
    ms.push(performance.now() - started);
  }
  return { verdicts: found, ms };
}

/** The shaders a run checks: all of them, or `SHORT_RUN_SHADERS` picked by `rng` (by name). */
export function shadersFor(mode: Mode, rng: Rng, all: readonly Shader[]): Shader[] {
  if (mode === "full") return [...all];
  const left = [...all];
  const picked: Shader[] = [];
  while (picked.length < SHORT_RUN_SHADERS && left.length > 0) {
    picked.push(left.splice(rng.int(left.length), 1)[0]!);
  }
  return picked.sort((a, b) => a.name.localeCompare(b.name));
}
