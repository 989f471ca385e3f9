import assert from "node:assert/strict";
import { nodeUnfit, peer } from "../../tools/peers.ts";

/** A folder with a fake `node` printing `version` (and `npm` when asked), as PATH. */
async function fakeNode(version: string, withNpm: boolean): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-node-" });
  const programs: [string, string][] = [["node", version]];
  if (withNpm) programs.push(["npm", "10.9.0"]);
  for (const [name, out] of programs) {
    await Deno.writeTextFile(`${dir}/${name}`, `#!/bin/sh\necho ${out}\n`);
    await Deno.chmod(`${dir}/${name}`, 0o755);
  }
  return dir;
}

Deno.test("the node peer fits only when it is >= 20.19 and has npm (bookworm's nodejs 18 does not)", async () => {
  const path = Deno.env.get("PATH") ?? "";
  const dirs: string[] = [];
  try {
    const cases: [string, boolean, RegExp | null][] = [
      ["v18.19.0", true, /node v18\.19\.0 is older than 20\.19/],
      ["v20.18.3", true, /older than 20\.19/],
      ["v22.20.0", false, /has no npm/],
      ["v20.19.0", true, null],
      ["v22.20.0", true, null],
    ];
    for (const [version, withNpm, expected] of cases) {
      const dir = await fakeNode(version, withNpm);
      dirs.push(dir);
      Deno.env.set("PATH", dir);
      const problem = nodeUnfit(`${dir}/node`);
      if (expected) assert.match(problem ?? "", expected, version);
      else assert.equal(problem, null, version);
    }
    assert.match(peer("node").why, /node >= 20\.19 with npm/);
  } finally {
    Deno.env.set("PATH", path);
    for (const dir of dirs) await Deno.remove(dir, { recursive: true });
  }
});
