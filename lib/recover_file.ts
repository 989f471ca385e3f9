/**
 * Reading a file of the data dir that may be damaged: a file that does not
 * parse or does not match its schema is never used. The newest good kept copy
 * (`kept_copies.ts`) is served instead, the damaged file is moved aside for
 * the operator (`<file>.damaged-<stamp>`, never deleted), the good copy is
 * written back as the file (so the next save does not rotate the damage into
 * the generations), and a `DataProblem` says what happened. Shared by the
 * player (projects, presets, settings, live state) and the service (devices,
 * signing key).
 * @module
 */
import type { z } from "zod";
import { writeFileAtomic } from "./atomic_write.ts";
import { damagedPath, KEEP_GENERATIONS, keptPath } from "./kept_copies.ts";
import type { DataProblem } from "../protocol/library.ts";

/** How `readRecovering` reads one file. */
export interface RecoverOptions<T> {
  /** The data dir: the problem names files relative to it. */
  dataDir: string;
  /** Turns the text into the value; throws an Error saying what is wrong. */
  parse: (text: string) => T;
  /** Kept generations to try (default `KEEP_GENERATIONS`). */
  keep?: number;
  /** The Project the file belongs to, if any. */
  projectId?: string | null;
  /**
   * With no good copy, leave the damaged file where it is (a Project's folder, which the
   * operator repairs) instead of moving it aside (settings that restart from defaults, and
   * whose next save would replace it).
   */
  isLeftInPlace?: boolean;
  /** Permission bits of the file written back (0o600 for secrets). */
  mode?: number;
  /** The clock of the stamp (tests). */
  now?: () => Date;
}

/** What `readRecovering` found. */
export interface Recovered<T> {
  /** The value of the file or of its newest good copy; null when neither exists nor is good. */
  value: T | null;
  /** Set when the file itself could not be used. */
  problem: DataProblem | null;
}

/**
 * A parser of JSON text checked against `schema`, for `RecoverOptions.parse`.
 * Its errors read `empty file`, `not JSON: ...` or `<field path>: <what is wrong>`.
 */
export function jsonParser<S extends z.ZodType>(schema: S): (text: string) => z.infer<S> {
  return (text) => {
    if (text.trim() === "") throw new Error("empty file");
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (error) {
      throw new Error(`not JSON: ${(error as Error).message}`);
    }
    const parsed = schema.safeParse(raw);
    if (parsed.success) return parsed.data;
    const issue = parsed.error.issues[0]!;
    throw new Error(`${issue.path.join(".") || "the file"}: ${issue.message}`);
  };
}

/**
 * `message` on one line: a parser's message may quote the file's lines (JSON.parse does), and
 * a problem is one log line, one `/health` field, one line of `cueport status`.
 */
export function oneLine(message: string): string {
  return message.replace(/\s*[\r\n]+\s*/g, " ").trim();
}

/** The file's text, or null when it does not exist. */
async function readText(path: string): Promise<string | null> {
  try {
    return await Deno.readTextFile(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/** `path`, or `path-2`, `path-3` ... when taken: a damaged file kept is never replaced. */
async function freeName(path: string): Promise<string> {
  for (let n = 1;; n++) {
    const name = n === 1 ? path : `${path}-${n}`;
    try {
      await Deno.lstat(name);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return name;
      throw error;
    }
  }
}

/** The newest kept copy of `path` that parses, with its path and text. */
async function newestGood<T>(
  path: string,
  options: RecoverOptions<T>,
): Promise<{ value: T; path: string; text: string } | null> {
  for (let n = 1; n <= (options.keep ?? KEEP_GENERATIONS); n++) {
    const text = await readText(keptPath(path, n));
    if (text === null) continue;
    try {
      return { value: options.parse(text), path: keptPath(path, n), text };
    } catch {
      // damaged too: try an older one
    }
  }
  return null;
}

/**
 * Reads `path` (absolute) with `options.parse`, recovering from its kept
 * copies as the module says. A missing file with no kept copy is a first
 * start: `{value: null, problem: null}`.
 * @throws {Error} only when the file system refuses (a read or rename error)
 */
export async function readRecovering<T>(
  path: string,
  options: RecoverOptions<T>,
): Promise<Recovered<T>> {
  const text = await readText(path);
  let problem: string;
  if (text === null) problem = "missing";
  else {
    try {
      return { value: options.parse(text), problem: null };
    } catch (error) {
      problem = oneLine((error as Error).message);
    }
  }
  const good = await newestGood(path, options);
  if (text === null && good === null) return { value: null, problem: null };
  const at = options.now?.() ?? new Date();
  let keptAs: string | null = null;
  if (text !== null && (good !== null || !options.isLeftInPlace)) {
    keptAs = await freeName(damagedPath(path, at));
    await Deno.rename(path, keptAs);
  } else if (text !== null) keptAs = path;
  if (good !== null) await writeFileAtomic(path, good.text, { mode: options.mode ?? 0o644 });
  const relative = (p: string) =>
    p.startsWith(`${options.dataDir}/`) ? p.slice(options.dataDir.length + 1) : p;
  return {
    value: good?.value ?? null,
    problem: {
      file: relative(path),
      problem,
      recoveredFrom: good ? relative(good.path) : null,
      keptAs: keptAs === null ? null : relative(keptAs),
      projectId: options.projectId ?? null,
      at: at.toISOString(),
    },
  };
}

/**
 * The one log line of a problem: the file, what is wrong, what is served instead.
 * `fallback` says what is served when no copy was good (e.g. "the defaults").
 */
export function problemLine(problem: DataProblem, fallback: string): string {
  const served = problem.recoveredFrom
    ? `served its newest good copy ${problem.recoveredFrom}`
    : `no good copy: ${fallback}`;
  const kept = problem.keptAs && problem.keptAs !== problem.file
    ? `; the damaged file is kept as ${problem.keptAs}`
    : "";
  return `Damaged file ${problem.file}: ${problem.problem}; ${served}${kept}`;
}

/** What the player serves, by file name, when no kept copy of a damaged file was good. */
const PLAYER_FALLBACKS: Record<string, string> = {
  "project.json": "the Project is listed damaged and not loaded; repair or replace the file, " +
    "then open it (project.open)",
  "history.json": "the Project starts with no undo history",
  "player.json": "the default settings",
  "presets.json": "no user presets (the built-in ones remain)",
  "live.json": "the show starts stopped, as on a first start",
};

/**
 * The one log line of a problem the player found (its snapshot's `problems`): the player
 * writes it, and the service logs it at warn from the snapshot.
 */
export function playerProblemLine(problem: DataProblem): string {
  const name = problem.file.slice(problem.file.lastIndexOf("/") + 1);
  return problemLine(problem, PLAYER_FALLBACKS[name] ?? "none");
}
