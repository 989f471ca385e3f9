/**
 * The docs' references are true: every repository file a doc names (in code spans, links, images
 * or prose) exists, every `deno task` it names is in deno.json, and the counts it states that the
 * code can compute match. Paths under the data dir (`projects/<id>/...`, `auth/...`), URLs and
 * placeholders are not repository files: a path is checked when its first part is a top-level
 * folder or file of the repository.
 * @module
 */
import assert from "node:assert/strict";
import { TOOL_NAMES } from "../../server/mcp/tools.ts";
import { BUILT_IN_PRESETS } from "../../player/presets.ts";

/** The repository, as a plain path ending in "/". */
const ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname);

/** Top-level entries that are not part of a checkout (built, cached or local). */
const NOT_CHECKED_OUT = new Set([".git", "dist", "coverage", "node_modules"]);

/** Written like repository paths but are not: MCP's method names. */
const NOT_PATHS = new Set(["tools/list", "tools/call"]);

/** Folders a run makes (in .gitignore): paths under them are not in a fresh checkout. */
const MADE_BY_RUNS = ["bench/results/", ".ci/out/", "integrations/companion/pkg/"];

/** File names the docs write alone that are not repository files: the data dir's, other programs'. */
const NOT_REPO_FILES = new Set([
  // The data dir (README.md, "The data dir holds").
  "cueport.lock",
  "devices.json",
  "history.json",
  "live.json",
  "player.json",
  "presets.json",
  "project.json",
  // Written on the show machine or by other programs.
  "Invert.fs",
  "claude_desktop_config.json",
  "config.json",
  "cueport.service",
  "twgl.js",
  "zip.js",
]);

/**
 * The docs checked: every markdown file of the repository (the README, `docs/*.md`, the READMEs
 * of `tools/` and `integrations/`, ...), as repository paths; not what is built, installed or
 * made by runs (`node_modules`, `MADE_BY_RUNS`).
 */
export function docFiles(dir = ""): string[] {
  const docs: string[] = [];
  for (const entry of Deno.readDirSync(`${ROOT}${dir}`)) {
    const path = `${dir}${entry.name}`;
    if (NOT_CHECKED_OUT.has(entry.name) || MADE_BY_RUNS.includes(`${path}/`)) continue;
    if (entry.isDirectory) docs.push(...docFiles(`${path}/`));
    else if (entry.isFile && entry.name.endsWith(".md")) docs.push(path);
  }
  return docs.sort();
}

/** The names of the repository's top-level folders and files. */
function topLevel(): Set<string> {
  return new Set(
    [...Deno.readDirSync(ROOT)].map((entry) => entry.name).filter((n) => !NOT_CHECKED_OUT.has(n)),
  );
}

/** True when `path` (relative to the repository) is a file or folder in it. */
function exists(path: string): boolean {
  try {
    Deno.statSync(`${ROOT}${path}`);
    return true;
  } catch {
    return false;
  }
}

/** `a/{b,c}.ts` as `a/b.ts` and `a/c.ts`; a path without braces as itself. */
export function expandBraces(path: string): string[] {
  const match = path.match(/\{([^{}]*)\}/);
  if (!match) return [path];
  const [head, tail] = [path.slice(0, match.index), path.slice(match.index! + match[0].length)];
  return match[1]!.split(",").flatMap((part) => expandBraces(`${head}${part.trim()}${tail}`));
}

/** True when some entry of `dir` matches the single-segment pattern `glob` (`*` for any run). */
function globMatches(dir: string, glob: string): boolean {
  const source = glob.split("*").map((s) => s.replace(/[.+?^${}()|[\]\\]/g, "\\$&")).join(".*");
  const pattern = new RegExp(`^${source}$`);
  try {
    return [...Deno.readDirSync(`${ROOT}${dir}`)].some((entry) => pattern.test(entry.name));
  } catch {
    return false;
  }
}

/**
 * Whether a repository path exists. A segment with a placeholder (`<name>`, `...`) ends what can
 * be checked (the folders before it must exist); a `*` in the last segment must match an entry.
 */
export function pathExists(path: string): boolean {
  const segments = path.replace(/\/$/, "").split("/");
  const open = segments.findIndex((s) => /[<>]|\.\.\./.test(s) || s === "");
  if (open !== -1) return open === 0 || exists(segments.slice(0, open).join("/"));
  const last = segments.length - 1;
  const star = segments.findIndex((s) => s.includes("*"));
  if (star === -1) return exists(path.replace(/\/$/, ""));
  const dir = segments.slice(0, star).join("/");
  return star === last ? globMatches(dir, segments[last]!) : exists(dir);
}

/** One reference a doc makes: the doc, its line and what it names. */
interface Reference {
  doc: string;
  line: number;
  text: string;
}

/** Characters of a path as docs write them (braces and stars included, no spaces). */
const PATH = String.raw`[\w.@*<>{},\-]+(?:/[\w.@*<>{},\-]*)*`;

/** Paths named in a doc's text, prose and code alike, with their line numbers. */
export function namedPaths(text: string, roots: ReadonlySet<string>): Omit<Reference, "doc">[] {
  const found: Omit<Reference, "doc">[] = [];
  const pattern = new RegExp(`(?<![\\w./:@~-])(${PATH})`, "g");
  text.split("\n").forEach((content, i) => {
    for (const match of content.matchAll(pattern)) {
      const path = match[1]!.replace(/[.,:;]+$/, "").replace(/:\d+(?:-\d+)?$/, "");
      const first = path.split("/")[0]!;
      if (NOT_PATHS.has(path) || MADE_BY_RUNS.some((dir) => path.startsWith(dir))) continue;
      if (!roots.has(first) || (!path.includes("/") && !/\.\w+$/.test(path))) continue;
      found.push({ line: i + 1, text: path });
    }
  });
  return found;
}

/** Targets of a doc's links and images that are not URLs or anchors, with their line numbers. */
export function linkTargets(text: string): Omit<Reference, "doc">[] {
  const found: Omit<Reference, "doc">[] = [];
  text.split("\n").forEach((content, i) => {
    for (const match of content.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = match[1]!.replace(/#.*$/, "");
      if (target === "" || /^[a-z][a-z+.-]*:/i.test(target)) continue;
      found.push({ line: i + 1, text: target });
    }
  });
  return found;
}

/** The `deno task` names a doc's text runs (`deno task x`, `deno@2.9.6 task x`). */
export function namedTasks(text: string): Omit<Reference, "doc">[] {
  const found: Omit<Reference, "doc">[] = [];
  text.split("\n").forEach((content, i) => {
    for (const match of content.matchAll(/\bdeno(?:@[\d.]+)? task ([\w:*-]+)/g)) {
      found.push({ line: i + 1, text: match[1]! });
    }
  });
  return found;
}

/** `target` as written in `doc` (relative to its folder), as a repository path; null if outside. */
export function resolveFrom(doc: string, target: string): string | null {
  if (target.startsWith("/")) return null;
  const dir = doc.includes("/") ? doc.slice(0, doc.lastIndexOf("/") + 1) : "";
  const path = decodeURIComponent(new URL(target, `file:///repo/${dir}`).pathname);
  return path.startsWith("/repo/") ? path.slice("/repo/".length) : null;
}

/**
 * The paths a doc names as repository paths: those from the repository's top level, and in a doc
 * of a folder (`integrations/companion/README.md`) those from an entry of its folder
 * (`src/catalog.json`), which the top level does not have.
 */
function repositoryPaths(doc: string, text: string, roots: ReadonlySet<string>): Reference[] {
  const found = namedPaths(text, roots).map((p) => ({ doc, ...p }));
  const dir = doc.includes("/") ? doc.slice(0, doc.lastIndexOf("/") + 1) : "";
  if (dir === "") return found;
  const local = new Set(
    [...Deno.readDirSync(`${ROOT}${dir}`)].map((e) => e.name).filter((n) =>
      !roots.has(n) && !NOT_CHECKED_OUT.has(n)
    ),
  );
  const relative = namedPaths(text, local).filter((p) => p.text.includes("/"));
  return [...found, ...relative.map((p) => ({ doc, line: p.line, text: `${dir}${p.text}` }))];
}

/** Named paths and the targets of links and images that point outside the repository or to nothing. */
function missingPaths(): string[] {
  const roots = topLevel();
  const missing: string[] = [];
  for (const doc of docFiles()) {
    const text = Deno.readTextFileSync(`${ROOT}${doc}`);
    for (const { line, text: path } of repositoryPaths(doc, text, roots)) {
      if (MADE_BY_RUNS.some((dir) => path.startsWith(dir))) continue;
      if (!expandBraces(path).every(pathExists)) missing.push(`${doc}:${line}: ${path}`);
    }
    for (const { line, text: target } of linkTargets(text)) {
      const path = resolveFrom(doc, target);
      if (path === null || !exists(path)) missing.push(`${doc}:${line}: link ${target}`);
    }
  }
  return missing;
}

/** Markdown files named by a path from "/", "./" or "../" that are not in the repository. */
function outsideDocs(): string[] {
  const outside: string[] = [];
  for (const doc of docFiles()) {
    Deno.readTextFileSync(`${ROOT}${doc}`).split("\n").forEach((content, i) => {
      for (const match of content.matchAll(/(?<![\w/.-])((?:\.{1,2}\/|\/)[\w./-]*\.md)\b/g)) {
        const path = resolveFrom(doc, match[1]!);
        if (path === null || !exists(path)) outside.push(`${doc}:${i + 1}: ${match[1]}`);
      }
    });
  }
  return outside;
}

Deno.test("docs: every markdown file of the repository is checked, none under node_modules", () => {
  const docs = docFiles();
  for (
    const doc of [
      "README.md",
      "docs/api.md",
      "tools/reliability/README.md",
      "integrations/companion/README.md",
    ]
  ) {
    assert.ok(docs.includes(doc), doc);
  }
  assert.deepEqual(docs.filter((d) => d.includes("node_modules/")), []);
});

Deno.test("docs: every repository path a doc names exists", () => {
  assert.deepEqual(missingPaths(), []);
});

Deno.test("docs: no doc points to a file outside the repository", () => {
  assert.deepEqual(outsideDocs(), []);
});

Deno.test("docs: every `deno task` a doc names is in deno.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(`${ROOT}deno.json`));
  const tasks = Object.keys(config.tasks);
  const unknown: string[] = [];
  const named = docFiles().flatMap((doc) =>
    namedTasks(Deno.readTextFileSync(`${ROOT}${doc}`)).map((task) => ({ doc, ...task }))
  );
  assert.ok(named.length >= 10, `found ${named.length}`);
  for (const { doc, line, text: name } of named) {
    const pattern = new RegExp(`^${name.replaceAll("*", ".*")}$`);
    if (!tasks.some((task) => pattern.test(task))) unknown.push(`${doc}:${line}: ${name}`);
  }
  assert.deepEqual(unknown, []);
});

/** Every file of the repository by its name (built, cached and installed folders left out). */
function filesByName(): Map<string, string[]> {
  const names = new Map<string, string[]>();
  const walk = (dir: string) => {
    for (const entry of Deno.readDirSync(`${ROOT}${dir}`)) {
      if (NOT_CHECKED_OUT.has(entry.name)) continue;
      const path = `${dir}${entry.name}`;
      if (entry.isDirectory) walk(`${path}/`);
      else names.set(entry.name, [...names.get(entry.name) ?? [], path]);
    }
  };
  walk("");
  return names;
}

/** File names written alone in a doc's code spans (`mod.ts`, `gl.js`), with their line numbers. */
export function bareFileNames(text: string): Omit<Reference, "doc">[] {
  const found: Omit<Reference, "doc">[] = [];
  const name =
    /(?<![\w./<>*-])([\w-]+(?:\.[\w-]+)*\.(?:ts|js|mjs|json|md|html|fs|lock|service))\b/g;
  text.split("\n").forEach((content, i) => {
    for (const [span] of content.matchAll(/`[^`]+`/g)) {
      for (const match of span.matchAll(name)) found.push({ line: i + 1, text: match[1]! });
    }
  });
  return found;
}

Deno.test("docs: every file name a doc writes alone is a file of the repository", () => {
  const names = filesByName();
  const unknown: string[] = [];
  for (const doc of docFiles()) {
    for (const { line, text: name } of bareFileNames(Deno.readTextFileSync(`${ROOT}${doc}`))) {
      if (!names.has(name) && !NOT_REPO_FILES.has(name)) unknown.push(`${doc}:${line}: ${name}`);
    }
  }
  assert.deepEqual(unknown, []);
});

/** Line totals a doc states for a file: "`gl.js`, 100 lines", "`client.ts` (about 500 lines". */
export function lineTotals(
  text: string,
): { line: number; file: string; about: boolean; lines: number }[] {
  const found: { line: number; file: string; about: boolean; lines: number }[] = [];
  const claim = /`([\w./-]+\.\w+)`(?:,| \() ?(about )?([\d,]+) lines\b/g;
  text.split("\n").forEach((content, i) => {
    for (const match of content.matchAll(claim)) {
      const lines = Number(match[3]!.replaceAll(",", ""));
      found.push({ line: i + 1, file: match[1]!, about: match[2] !== undefined, lines });
    }
  });
  return found;
}

Deno.test('docs: every line total a doc states for a file is its length ("about": within 10%)', () => {
  const names = filesByName();
  const wrong: string[] = [];
  for (const doc of docFiles()) {
    for (const claim of lineTotals(Deno.readTextFileSync(`${ROOT}${doc}`))) {
      const paths = claim.file.includes("/") ? [claim.file] : names.get(claim.file) ?? [];
      const where = `${doc}:${claim.line}: ${claim.file}, ${claim.lines} lines`;
      if (paths.length !== 1 || !exists(paths[0]!)) {
        wrong.push(`${where}: names ${paths.length} files`);
        continue;
      }
      const actual = Deno.readTextFileSync(`${ROOT}${paths[0]}`).split("\n").length - 1;
      const off = Math.abs(actual - claim.lines) / actual;
      if (claim.about ? off > 0.1 : actual !== claim.lines) wrong.push(`${where}: has ${actual}`);
    }
  }
  assert.deepEqual(wrong, []);
});

/** Counts written as words in the docs. */
const WORDS: Record<string, number> = {
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};

/** Every count `pattern` finds in the docs (its first group, a number or a word) with its place. */
function statedCounts(pattern: RegExp): { where: string; count: number }[] {
  const found: { where: string; count: number }[] = [];
  for (const doc of docFiles()) {
    Deno.readTextFileSync(`${ROOT}${doc}`).split("\n").forEach((content, i) => {
      for (const match of content.matchAll(pattern)) {
        const word = match[1]!.toLowerCase();
        found.push({ where: `${doc}:${i + 1}`, count: WORDS[word] ?? Number(word) });
      }
    });
  }
  return found;
}

Deno.test("docs: the counts of MCP tools and built-in presets the docs state are the code's", () => {
  const tools = statedCounts(/\b(\d+|[a-z]+) (?:MCP )?tools\b(?![/`])/gi)
    .filter(({ count }) => !Number.isNaN(count));
  const presets = statedCounts(/\b(\d+|[a-z]+) built-in (?:presets|ones)\b/gi)
    .filter(({ count }) => !Number.isNaN(count));
  assert.ok(tools.length > 0 && presets.length > 0, "the docs state both counts");
  const wrong = [
    ...tools.filter(({ count }) => count !== TOOL_NAMES.length).map((c) =>
      `${c.where}: ${c.count} tools`
    ),
    ...presets.filter(({ count }) => count !== BUILT_IN_PRESETS.length)
      .map((c) => `${c.where}: ${c.count} built-in presets`),
  ];
  assert.deepEqual(
    wrong,
    [],
    `${TOOL_NAMES.length} tools, ${BUILT_IN_PRESETS.length} built-in presets`,
  );
});

Deno.test("namedPaths() takes repository paths and leaves the data dir's, URLs and MCP methods", () => {
  const roots = new Set(["docs", "server", "main.ts", "tools", "bench"]);
  const text = [
    "See `server/osc/mod.ts:12`, docs/api.md. and `main.ts`; `projects/<id>/project.json`,",
    "`auth/devices.json`, http://localhost:17736/docs/x.md, `tools/call`, bench/results/a.json",
    "`server/{osc,mcp}/`",
  ].join("\n");
  assert.deepEqual(namedPaths(text, roots).map((p) => `${p.line} ${p.text}`), [
    "1 server/osc/mod.ts",
    "1 docs/api.md",
    "1 main.ts",
    "3 server/{osc,mcp}/",
  ]);
  assert.deepEqual(expandBraces("server/{osc, mcp}/"), ["server/osc/", "server/mcp/"]);
});

Deno.test("pathExists() checks what is before a placeholder and a star in the last part", () => {
  assert.ok(pathExists("tests/docs/references_test.ts"));
  assert.ok(pathExists("tests/docs/"));
  assert.ok(pathExists("tests/docs/<name>_test.ts"));
  assert.ok(pathExists("tests/docs/*_test.ts"));
  assert.ok(!pathExists("tests/docs/missing_test.ts"));
  assert.ok(!pathExists("tests/nowhere/<name>_test.ts"));
  assert.ok(!pathExists("tests/docs/*.nothing"));
});

Deno.test("resolveFrom() resolves a link from its doc's folder and refuses one that leaves the repository", () => {
  assert.equal(
    resolveFrom("docs/companion.md", "../integrations/companion/README.md"),
    "integrations/companion/README.md",
  );
  assert.equal(resolveFrom("docs/output.md", "output-layers.png"), "docs/output-layers.png");
  assert.equal(resolveFrom("README.md", "docs/api.md"), "docs/api.md");
  assert.equal(resolveFrom("docs/output.md", "../../shared/DESIGN.md"), null);
  assert.equal(resolveFrom("docs/output.md", "/work/shared/DESIGN.md"), null);
});
