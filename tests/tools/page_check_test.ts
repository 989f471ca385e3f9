/**
 * The browser pages' scripts are type-checked (`deno task check`): the output and editor pages
 * (`player/output/page/`) and the web remote (`server/web/page/`). Each script opts in with
 * `// @ts-check` on its first line, and the `check` task checks each folder with its own
 * `check.json` (the DOM's types, the repository's strict options). A script without the pragma,
 * or a folder dropped from the task, would pass the check unchecked: this test says so.
 */
import assert from "node:assert/strict";
import { REMOTE_PATHS } from "../../server/web/mod.ts";

const ROOT = new URL("../../", import.meta.url);

/** The folders of page scripts, each checked with its `check.json`. */
const PAGE_DIRS = ["player/output/page", "server/web/page"];

/** The compiler options every page folder's `check.json` keeps (as `deno.json` does). */
const STRICT_OPTIONS = {
  strict: true,
  noUncheckedIndexedAccess: true,
  exactOptionalPropertyTypes: true,
  noImplicitOverride: true,
  noFallthroughCasesInSwitch: true,
};

/** The `.js` files under `dir` (a repository path), as repository paths, sorted. */
async function scriptsUnder(dir: string): Promise<string[]> {
  const found: string[] = [];
  for await (const entry of Deno.readDir(new URL(`${dir}/`, ROOT))) {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory) found.push(...await scriptsUnder(path));
    else if (entry.isFile && entry.name.endsWith(".js")) found.push(path);
  }
  return found.sort();
}

/** The scripts among `files` whose first line is not `// @ts-check`. */
async function unchecked(files: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const file of files) {
    const text = await Deno.readTextFile(new URL(file, ROOT));
    if (text.split("\n", 1)[0]?.trimEnd() !== "// @ts-check") missing.push(file);
  }
  return missing;
}

Deno.test("page check: every script of the pages starts with // @ts-check", async () => {
  for (const dir of PAGE_DIRS) {
    const files = await scriptsUnder(dir);
    assert.ok(files.length > 0, `${dir} has scripts`);
    assert.deepEqual(await unchecked(files), [], `${dir}: first line // @ts-check`);
  }
});

Deno.test("page check: deno task check checks each page folder with its check.json", async () => {
  const config = JSON.parse(await Deno.readTextFile(new URL("deno.json", ROOT)));
  const task: string = config.tasks.check;
  const commands = task.split("&&").map((command) => command.trim());
  for (const dir of PAGE_DIRS) {
    assert.ok(
      commands.includes(`deno check --config ${dir}/check.json ${dir}/`),
      `the check task checks ${dir}/ with ${dir}/check.json: ${task}`,
    );
    const check = JSON.parse(await Deno.readTextFile(new URL(`${dir}/check.json`, ROOT)));
    assert.deepEqual(check.compilerOptions.lib, ["dom", "dom.iterable", "esnext"], dir);
    for (const [option, value] of Object.entries(STRICT_OPTIONS)) {
      assert.equal(check.compilerOptions[option], value, `${dir}/check.json: ${option}`);
    }
  }
});

Deno.test("page check: the web remote serves its scripts, never its check.json", () => {
  assert.ok(REMOTE_PATHS.some((path) => path.endsWith(".js")), "the remote's scripts are served");
  assert.deepEqual(REMOTE_PATHS.filter((path) => path.endsWith(".json")), []);
});

Deno.test("page check: a script without the pragma is found", async () => {
  // guards against a check that passes because it reads nothing
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/checked.js`, "// @ts-check\nexport const a = 1;\n");
    await Deno.writeTextFile(`${dir}/unchecked.js`, "// A page script.\n// @ts-check\n");
    const files = [`file://${dir}/checked.js`, `file://${dir}/unchecked.js`];
    assert.deepEqual(await unchecked(files), [files[1]]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
