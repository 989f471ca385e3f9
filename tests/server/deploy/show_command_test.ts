import assert from "node:assert/strict";
import { relative as relativePath } from "node:path";
import { startTestService } from "../../../tools/testing/service.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { runCli } from "../../../server/cli.ts";
import { SHOW_USAGE } from "../../../server/deploy/show_command.ts";

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

Deno.test("cueport show export NAME FILE and show import FILE carry a Project between services", async () => {
  const from = await startTestService({}, { demo: true });
  const to = await startTestService({}, { demo: true });
  const dir = await Deno.makeTempDir({ prefix: "cueport-show-cli-" });
  const lines: string[] = [];
  const print = (line: string) => lines.push(line);
  const show = (svc: typeof from, ...args: string[]) =>
    runCli("show", [...args, "--http-port", String(svc.service.ports.http)], print);
  try {
    const file = `${dir}/Demo.cueport.zip`;
    // What an export killed mid-way left: the next export to the same file removes it.
    await Deno.writeTextFile(`${file}.partial`, "cut short");
    assert.equal(await show(from, "export", "Demo Show", file), 0, lines.join("\n"));
    const size = (await Deno.stat(file)).size;
    assert.deepEqual(lines, [`Exported demo to ${file} (${size} bytes)`]);
    lines.length = 0;

    assert.equal(await show(to, "import", file), 0, lines.join("\n"));
    assert.deepEqual(lines, [`Imported demo-2 "Demo Show" (renamed from demo) (${size} bytes)`]);
    lines.length = 0;
    for await (const e of Deno.readDir(`${from.dataDir}/projects/demo/media`)) {
      assert.equal(
        await sha256(`${to.dataDir}/projects/demo-2/media/${e.name}`),
        await sha256(`${from.dataDir}/projects/demo/media/${e.name}`),
        e.name,
      );
    }

    const play = await to.post("/api/v1/action", { name: "PLAY_IN", projectID: "demo" });
    assert.equal(play.status, 200, JSON.stringify(play.body));
    assert.equal(await show(to, "import", file, "--replace"), 1);
    assert.match(lines[0]!, /^cueport show import: Project "demo" is playing: stop it first/);
    lines.length = 0;
    assert.equal(await show(to, "import", file, "--replace", "--force"), 0, lines.join("\n"));
    assert.deepEqual(lines, [`Imported demo "Demo Show" (replaced) (${size} bytes)`]);
    lines.length = 0;

    const closed = await to.post("/api/v1/edit", {
      name: "project.close",
      projectID: "demo-2",
      params: {},
    });
    assert.equal(closed.status, 200, JSON.stringify(closed.body));
    assert.equal(await show(to, "export", "No Such Show", `${dir}/x.zip`), 1);
    assert.deepEqual(lines, [
      `cueport show export: No open Project has the id or name "No Such Show" (open: demo)`,
    ]);
    lines.length = 0;
    assert.equal(await show(to, "export", "demo-2", `${dir}/x.zip`), 1);
    assert.deepEqual(lines, [
      `cueport show export: Project "demo-2" is closed: send project.open {"projectID": "demo-2"} to open it`,
    ]);
    lines.length = 0;
    // A relative path is the process's folder's (a checkout's, under `deno task`): the lines
    // name the file whole, so that it can be found.
    const relative = `${relativePath(Deno.cwd(), dir)}/Rel.cueport.zip`;
    assert.equal(await show(to, "export", "demo", relative), 0, lines.join("\n"));
    const relSize = (await Deno.stat(`${dir}/Rel.cueport.zip`)).size;
    assert.deepEqual(lines, [`Exported demo to ${dir}/Rel.cueport.zip (${relSize} bytes)`]);
    lines.length = 0;
    assert.equal(await show(to, "import", `${relativePath(Deno.cwd(), dir)}/none.zip`), 1);
    assert.match(lines[0]!, new RegExp(`^cueport show import: cannot read ${dir}/none\\.zip: `));
    await Deno.remove(`${dir}/Rel.cueport.zip`);
    lines.length = 0;
    await Deno.writeTextFile(`${dir}/not.zip`, "not a zip");
    assert.equal(await show(to, "import", `${dir}/not.zip`), 1);
    assert.match(lines[0]!, /^cueport show import: Invalid show file: not a whole zip file/);
    lines.length = 0;
    assert.equal(await show(to, "import"), 2);
    assert.deepEqual(lines, [SHOW_USAGE]);
    const left = [];
    for await (const e of Deno.readDir(dir)) left.push(e.name);
    assert.deepEqual(left.sort(), ["Demo.cueport.zip", "not.zip"], "no partial export is left");
  } finally {
    await from.stop();
    await to.stop();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cueport show export: a damaged Project is not listed as open, and its export says what is wrong", async () => {
  const dataDir = await fixtureDataDir();
  await Deno.mkdir(`${dataDir}/projects/broken`);
  await Deno.writeTextFile(`${dataDir}/projects/broken/project.json`, "{ not json");
  const svc = await startTestService({}, { dataDir });
  const lines: string[] = [];
  const show = (...args: string[]) =>
    runCli("show", [...args, "--http-port", String(svc.service.ports.http)], (l) => lines.push(l));
  try {
    assert.equal(await show("export", "No Such Show", `${dataDir}/x.zip`), 1);
    assert.deepEqual(lines, [
      `cueport show export: No open Project has the id or name "No Such Show" (open: show)`,
    ]);
    lines.length = 0;
    assert.equal(await show("export", "broken", `${dataDir}/x.zip`), 1);
    assert.match(
      lines[0]!,
      /^cueport show export: Project "broken" is damaged \(projects\/broken\/project\.json: .+\); repair or replace the file, then open it$/,
    );
  } finally {
    await svc.stop();
  }
});
