/**
 * The import rules as a test that also tests its own checker
 * (docs/architecture.md, "Import rules" and "The import graph").
 */
import assert from "node:assert/strict";

/** The repository, as a plain path (decoded: a checkout under "First Last" or with an accented letter works). */
const ROOT = decodeURIComponent(new URL("../", import.meta.url).pathname);
const TRANSPORTS = ["routes", "socket", "osc", "mcp", "midi", "legacy"];

/** The source files the rules read: TypeScript, and the pages' JavaScript (`player/output/page/`). */
const SOURCE = /\.(ts|js|mjs)$/;

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory && entry.name !== "node_modules") yield* sourceFiles(path);
    else if (SOURCE.test(entry.name)) yield path;
  }
}

/** Relative imports of a file, resolved to repository paths. */
async function importsOf(file: string): Promise<string[]> {
  return importsIn(await Deno.readTextFile(`${ROOT}${file}`), file);
}

/** Relative imports of `text`, the source of `file`, resolved to repository paths. */
function importsIn(text: string, file: string): string[] {
  const specs = [
    ...text.matchAll(
      /(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|import\s*["']([^"']+)["']/g,
    ),
  ]
    .map((m) => m[1] ?? m[2] ?? m[3]!)
    .filter((s) => s.startsWith("."));
  const base = new URL(`${ROOT}${file}`, "file:///");
  return specs.map((s) => decodeURIComponent(new URL(s, base).pathname).slice(ROOT.length));
}

async function violations(dirs: string[], rule: (from: string, to: string) => string | null) {
  const found: string[] = [];
  for (const dir of dirs) {
    for await (const file of sourceFiles(dir)) {
      for (const target of await importsOf(file)) {
        const problem = rule(file, target);
        if (problem) found.push(`${file} -> ${target}: ${problem}`);
      }
    }
  }
  return found;
}

Deno.test("architecture: player/ and protocol/ import nothing from server/", async () => {
  const found = await violations(
    ["player", "protocol"],
    (_from, to) =>
      to.startsWith("server/") || to === "main.ts"
        ? "the player side must not know the server"
        : null,
  );
  assert.deepEqual(found, []);
});

Deno.test("architecture: lib/ holds the helpers both sides use and imports nothing of either side", async () => {
  const files: string[] = [];
  for await (const file of sourceFiles("lib")) files.push(file);
  assert.ok(files.length > 0, "the helpers live in lib/, protocol/ only for the wire");
  const found = await violations(["lib", "protocol"], (from, to) => {
    if (from.startsWith("lib/") && (to.startsWith("player/") || to.startsWith("server/"))) {
      return "a helper of both sides knows neither (it may use the wire's types in protocol/)";
    }
    if (from.startsWith("protocol/") && to.startsWith("lib/")) return "protocol/ is the bottom";
    return null;
  });
  assert.deepEqual(found, []);
});

Deno.test("architecture: protocol/ imports nothing from player/", async () => {
  assert.deepEqual(
    await violations(
      ["protocol"],
      (_f, to) => (to.startsWith("player/") ? "protocol is shared" : null),
    ),
    [],
  );
});

Deno.test("architecture: no transport imports another; the core imports no transport", async () => {
  const found = await violations(["server"], (from, to) => {
    const fromTransport = TRANSPORTS.find((t) => from.startsWith(`server/${t}/`));
    const toTransport = TRANSPORTS.find((t) => to.startsWith(`server/${t}/`));
    if (toTransport && fromTransport && toTransport !== fromTransport) {
      return "transports never import each other";
    }
    if (toTransport && from.startsWith("server/core/")) return "the core never imports its edges";
    if (from.startsWith("server/core/") && to.startsWith("server/player_client/")) {
      return "the core knows the player only through its interface";
    }
    return null;
  });
  assert.deepEqual(found, []);
});

Deno.test("architecture: nothing imports main.ts or tests/", async () => {
  const found = await violations(
    [...PROGRAM, ...BESIDE],
    (_f, to) =>
      to === "main.ts" || to.startsWith("tests/")
        ? "main.ts composes, tests are leaves: what tools and benches share with tests is in tools/testing/"
        : null,
  );
  assert.deepEqual(found, []);
});

Deno.test("architecture: the rules read the pages' JavaScript and every folder beside the program", async () => {
  const read: string[] = [];
  for (const dir of [...PROGRAM, ...BESIDE]) {
    for await (const file of sourceFiles(dir)) read.push(file);
  }
  assert.ok(read.some((f) => f.startsWith("player/output/page/") && f.endsWith(".js")), "pages");
  for (const dir of BESIDE) assert.ok(read.some((f) => f.startsWith(`${dir}/`)), dir);
  const page = await importsOf("player/output/page/page.js");
  assert.ok(page.length > 0, "a page's imports are read");
  assert.deepEqual(
    importsIn(
      'import "../tests/x.ts";\nimport("./y.ts");\nexport { z } from "./z.js";\n',
      "tools/a.ts",
    ),
    ["tests/x.ts", "tools/y.ts", "tools/z.js"],
    "bare, dynamic and re-exported imports are read",
  );
});

Deno.test("architecture: the checker sees a violation when there is one", async () => {
  // guards against a rule that passes because it reads nothing
  const found = await violations(
    ["server"],
    (_f, to) => (to.startsWith("protocol/") ? "seen" : null),
  );
  assert.ok(found.length > 0);
});

// ---- The import graph: circles, barrels, and the facts docs/architecture.md states ----

/** The folders whose files make up the program. */
const PROGRAM = ["server", "protocol", "lib", "player"];

/** Every file of the program with the files it imports (`import type` too: a dependency all the same). */
async function importGraph(): Promise<Map<string, string[]>> {
  const graph = new Map<string, string[]>([["main.ts", await importsOf("main.ts")]]);
  for (const dir of PROGRAM) {
    for await (const file of sourceFiles(dir)) graph.set(file, await importsOf(file));
  }
  return graph;
}

/**
 * The unit of the folder graph a file belongs to: a folder of `server/`
 * (`server/core`), a file directly in `server/` (`server/cli.ts`), `protocol`,
 * `lib`, `player`, `main.ts`.
 */
function unitOf(file: string): string {
  const parts = file.split("/");
  if (parts[0] === "server") return parts.length > 2 ? `server/${parts[1]}` : file;
  return parts[0]!;
}

/** The graph between units (`unitOf`, or `unit`): each unit with the others its files import, sorted. */
function unitGraph(
  graph: Map<string, string[]>,
  unit: (file: string) => string = unitOf,
): Map<string, string[]> {
  const units = new Map<string, Set<string>>();
  for (const [file, targets] of graph) {
    const from = unit(file);
    const set = units.get(from) ?? new Set<string>();
    units.set(from, set);
    for (const target of targets) if (unit(target) !== from) set.add(unit(target));
  }
  return new Map(
    [...units].sort(([a], [b]) => a.localeCompare(b)).map(([u, s]) => [u, [...s].sort()]),
  );
}

/** The circles of a graph: its strongly connected parts of two nodes or more, or a node importing itself (Tarjan). */
function circles(graph: Map<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(node, Math.min(low.get(node)!, index.get(next)!));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let top: string;
    do {
      top = stack.pop()!;
      onStack.delete(top);
      part.push(top);
    } while (top !== node);
    if (part.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(part.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
}

Deno.test("architecture: circles() finds a circle when there is one, and only then", () => {
  const graph = new Map([["a", ["b"]], ["b", ["c"]], ["c", ["a"]], ["d", ["a"]], ["e", ["e"]]]);
  assert.deepEqual(circles(graph), [["a", "b", "c"], ["e"]]);
  assert.deepEqual(circles(new Map([["a", ["b"]], ["b", []], ["c", ["a", "b"]]])), []);
});

Deno.test("architecture: no circles, between files or between folders", async () => {
  const graph = await importGraph();
  assert.ok(graph.size > 100, "the checker reads the program");
  assert.deepEqual(circles(graph), [], "files");
  assert.deepEqual(circles(unitGraph(graph)), [], "folders");
});

Deno.test("architecture: the core talks to auth through its own interface; cli.ts and deploy/ do not import each other", async () => {
  const found = await violations(["server"], (from, to) => {
    if (from.startsWith("server/core/") && to.startsWith("server/auth/")) {
      return "the core owns the interface it needs of auth (core/operations/security_service.ts)";
    }
    if (from.startsWith("server/deploy/") && to === "server/cli.ts") {
      return "the operator commands share deploy/operator_target.ts, cli.ts composes them";
    }
    return null;
  });
  assert.deepEqual(found, []);
});

/**
 * Files that load their own folder's barrel on purpose, with the reason: each
 * is an entry point the barrel never imports, so no circle comes of it.
 */
const OWN_BARREL_ENTRIES: Record<string, string> = {
  "server/mcp/lazy.ts": "loads the MCP transport on its first request (a dynamic import)",
  "server/media/render/worker.ts": "the entry of the render workers, run in a Worker of its own",
};

Deno.test("architecture: no file imports its own folder's barrel (mod.ts), but the entries listed", async () => {
  const found = await violations(PROGRAM, (from, to) => {
    if (!to.endsWith("/mod.ts") || from === to) return null;
    const folder = to.slice(0, -"mod.ts".length);
    if (!from.startsWith(folder) || from in OWN_BARREL_ENTRIES) return null;
    return "import the file itself: a barrel is the folder's entry for others";
  });
  assert.deepEqual(found, []);
  for (const entry of Object.keys(OWN_BARREL_ENTRIES)) {
    assert.ok(
      (await importsOf(entry)).some((t) => t.endsWith("/mod.ts")),
      `${entry} still needs it`,
    );
  }
});

/** The folder graph as docs/architecture.md writes it, one line per unit. */
function graphLines(units: Map<string, string[]>): string[] {
  return [...units].map(([unit, targets]) =>
    `- \`${unit}\`: ${targets.length ? targets.map((t) => `\`${t}\``).join(", ") : "nothing"}`
  );
}

Deno.test("architecture: docs/architecture.md states the folder graph as it is", async () => {
  const doc = await Deno.readTextFile(`${ROOT}docs/architecture.md`);
  const stated = doc.match(/<!-- import-graph:start -->\n([\s\S]*?)\n<!-- import-graph:end -->/);
  assert.ok(stated, "docs/architecture.md has the import-graph block");
  const actual = graphLines(unitGraph(await importGraph()));
  assert.deepEqual(
    // One item per unit; `deno fmt` wraps long items onto indented lines.
    stated[1]!.replace(/\n +/g, " ").split("\n").filter((l) => l.startsWith("- ")),
    actual,
    `update the block in docs/architecture.md to:\n${actual.join("\n")}`,
  );
});

// ---- The whole tree: tools/ and bench/ too ----

/**
 * The folders of the tree beside the program: the developer's tools (with the harness that
 * tests, tools and benches share, `tools/testing/`), the benches, and the Companion module's
 * Deno side.
 */
const BESIDE = ["tools", "bench", "integrations/companion/deno"];

/** Every file of the program and of the folders beside it, with the files it imports. */
async function treeGraph(): Promise<Map<string, string[]>> {
  const graph = await importGraph();
  for (const dir of BESIDE) {
    for await (const file of sourceFiles(dir)) graph.set(file, await importsOf(file));
  }
  return graph;
}

Deno.test("architecture: no circles in the whole tree, tools/ and bench/ included", async () => {
  const graph = await treeGraph();
  assert.ok([...graph.keys()].some((f) => f.startsWith("tools/")), "the checker reads tools/");
  assert.ok([...graph.keys()].some((f) => f.startsWith("bench/")), "the checker reads bench/");
  assert.deepEqual(circles(graph), [], "files");
  assert.deepEqual(circles(unitGraph(graph)), [], "folders");
});

Deno.test("architecture: the program imports no tools, benches or tests; tools import no bench", async () => {
  const found = await violations([...PROGRAM, ...BESIDE], (from, to) => {
    const toBeside = ["tools/", "bench/", "tests/"].some((d) => to.startsWith(d));
    if (PROGRAM.some((d) => from.startsWith(`${d}/`)) && toBeside) {
      return "the program stands alone: tools, benches and tests import it, never the reverse";
    }
    if (from.startsWith("tools/") && to.startsWith("bench/")) {
      return "benches use tools, not the reverse: move what both need into tools/";
    }
    return null;
  });
  assert.deepEqual(found, []);
});

Deno.test("architecture: the store is below the editor: player/edits/ imports the store, never the reverse", async () => {
  const found = await violations(
    ["player"],
    (from, to) =>
      from === "player/store.ts" && to.startsWith("player/edits/")
        ? "the store reads and writes what the editor keeps as data (player/applied_keys.ts)"
        : null,
  );
  assert.deepEqual(found, []);
  const graph = await importGraph();
  assert.ok(
    [...graph].some(([from, targets]) =>
      from.startsWith("player/edits/") && targets.includes("player/store.ts")
    ),
    "the editor still uses the store (else this rule is moot)",
  );
});

/**
 * The unit of the player's graph a file of `player/` belongs to: a folder
 * (`player/edits`) or a file directly in `player/` (`player/store.ts`), as
 * `unitOf` splits `server/`.
 */
function playerUnitOf(file: string): string {
  const parts = file.split("/");
  return parts.length > 2 ? `player/${parts[1]}` : file;
}

/**
 * Imports between the player's units that close a circle known and owned
 * elsewhere, each with its reason: the test reads the graph without them, and
 * checks each is still there, so none outlives its fix.
 */
const PLAYER_EDGES_KNOWN: Record<string, string> = {};

Deno.test("architecture: no circles between the player's folders and files", async () => {
  const graph = await importGraph();
  const player = new Map(
    [...graph].filter(([file]) => file.startsWith("player/"))
      .map(([file, targets]) => [file, targets.filter((t) => t.startsWith("player/"))]),
  );
  const units = unitGraph(player, playerUnitOf);
  assert.ok(units.has("player/edits") && units.has("player/store.ts"), "the checker reads player/");
  for (const edge of Object.keys(PLAYER_EDGES_KNOWN)) {
    const [from, to] = edge.split(" -> ") as [string, string];
    assert.ok(units.get(from)?.includes(to), `${edge} is gone: drop it from PLAYER_EDGES_KNOWN`);
    units.set(from, units.get(from)!.filter((t) => t !== to));
  }
  assert.deepEqual(circles(units), [], "player units");
});

// ---- 5.0.0 in one folder ----

/** The composition root: the one file outside `server/legacy/` that may load it (to bind its ports). */
const V5_COMPOSER = "server/service.ts";

/**
 * The 5.0.0 names of the catalog's actions (`protocol/v5_names.ts`, a rule
 * over the catalog, not 5.0.0 code): read by `server/legacy/` to translate
 * them and by the 6.0 action rules to refuse one with the 6.0 name.
 */
const V5_NAMES = "protocol/v5_names.ts";
const V5_NAMES_READERS = ["server/core/action_rules.ts"];

Deno.test("architecture: nothing outside server/legacy/ imports 5.0.0 code but the composition root", async () => {
  const graph = await importGraph();
  const found = [...graph].flatMap(([from, targets]) =>
    from.startsWith("server/legacy/") ? [] : targets
      .filter((to) =>
        (to.startsWith("server/legacy/") && from !== V5_COMPOSER) ||
        (to === V5_NAMES && !V5_NAMES_READERS.includes(from))
      )
      .map((to) => `${from} -> ${to}`)
  );
  assert.deepEqual(found, [], "5.0.0 lives in server/legacy/ (docs/architecture.md)");
  // the allowances are still used, so that they cannot outlive their reason
  assert.ok(graph.get(V5_COMPOSER)!.some((t) => t.startsWith("server/legacy/")), V5_COMPOSER);
  for (const reader of V5_NAMES_READERS) assert.ok(graph.get(reader)!.includes(V5_NAMES), reader);
  // and no file named for 5.0.0 sits outside the folder
  const strays = [...graph.keys()].filter((f) =>
    /(^|\/)v5_/.test(f) && !f.startsWith("server/legacy/") && f !== V5_NAMES
  );
  assert.deepEqual(strays, []);
});

// ---- No upward imports: the composition is imported by the composition alone ----

/**
 * The files that compose the program (the command line, the service and the
 * listener factories of its ports): they may import any unit, and only they
 * import them, so no part depends on how the whole is put together.
 */
const COMPOSITION = [
  "main.ts",
  "server/serve_command.ts",
  "server/cli.ts",
  "server/service.ts",
  "server/listeners.ts",
];

Deno.test("architecture: no upward imports: nothing but the composition imports the composition", async () => {
  const graph = await importGraph();
  for (const file of COMPOSITION) assert.ok(graph.has(file), `${file} exists`);
  const found = [...graph].flatMap(([from, targets]) =>
    COMPOSITION.includes(from)
      ? []
      : targets.filter((to) => COMPOSITION.includes(to)).map((to) => `${from} -> ${to}`)
  );
  assert.deepEqual(found, [], "the composition is the top of the graph (docs/architecture.md)");
});
