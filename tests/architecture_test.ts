import assert from "node:assert/strict";

const ROOT = new URL("../", import.meta.url).pathname;
const TRANSPORTS = ["routes", "socket", "osc", "mcp", "legacy"];

async function* sourceFiles(dir: string): AsyncGenerator<string> {
  for await (const entry of Deno.readDir(`${ROOT}${dir}`)) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) yield* sourceFiles(path);
    else if (entry.name.endsWith(".ts")) yield path;
  }
}

/** Relative imports of a file, resolved to repository paths. */
async function importsOf(file: string): Promise<string[]> {
  const text = await Deno.readTextFile(`${ROOT}${file}`);
  const specs = [
    ...text.matchAll(
      /(?:import|export)[^'"]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g,
    ),
  ]
    .map((m) => m[1] ?? m[2]!)
    .filter((s) => s.startsWith("."));
  return specs.map((s) => new URL(s, `file://${ROOT}${file}`).pathname.slice(ROOT.length));
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
    ["server", "player", "protocol"],
    (_f, to) =>
      to === "main.ts" || to.startsWith("tests/") ? "main.ts composes, tests are leaves" : null,
  );
  assert.deepEqual(found, []);
});

Deno.test("architecture: the checker sees a violation when there is one", async () => {
  // guards against a rule that passes because it reads nothing
  const found = await violations(
    ["server"],
    (_f, to) => (to.startsWith("protocol/") ? "seen" : null),
  );
  assert.ok(found.length > 0);
});
