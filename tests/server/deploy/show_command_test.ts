import assert from "node:assert/strict";
import { startTestService } from "../../_helpers/service.ts";
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

    assert.equal(await show(from, "export", "No Such Show", `${dir}/x.zip`), 1);
    assert.match(
      lines[0]!,
      /^cueport show export: No open Project has the id or name "No Such Show"/,
    );
    assert.equal(lines.length, 1);
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
