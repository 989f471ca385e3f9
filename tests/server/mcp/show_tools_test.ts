import assert from "node:assert/strict";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("app_project_export writes a show file by path; app_project_import brings it back", async () => {
  const svc = await startTestService({}, { demo: true });
  const mcp = await connectMcp(svc.base);
  const dir = await Deno.makeTempDir({ prefix: "cueport-show-" });
  try {
    const path = `${dir}/Demo.cueport.zip`;
    await Deno.writeTextFile(`${path}.partial`, "what a killed export left");
    const exported = await mcp.call("app_project_export", { projectId: "demo", path });
    assert.ok(!exported.isError, JSON.stringify(exported.content));
    assert.equal(exported.structuredContent.path, path);
    assert.equal(exported.structuredContent.bytes, (await Deno.stat(path)).size);
    const names = [];
    for await (const e of Deno.readDir(dir)) names.push(e.name);
    assert.deepEqual(names, ["Demo.cueport.zip"], "no temp file is left beside it");

    const imported = await mcp.call("app_project_import", { path });
    assert.ok(!imported.isError, JSON.stringify(imported.content));
    assert.equal(imported.structuredContent.projectId, "demo-2");
    assert.equal(imported.structuredContent.renamedFrom, "demo");
    const listed = (await svc.get("/api/v1/projects")).body;
    assert.ok(JSON.stringify(listed).includes("demo-2"));

    const play = await svc.post("/api/v1/action", { name: "PLAY_IN", projectID: "demo" });
    assert.equal(play.status, 200, JSON.stringify(play.body));
    const busy = await mcp.callError("app_project_import", { path, replace: true });
    assert.equal(busy.code, "EDIT_REFUSED");
    assert.match(busy.message, /"demo" is playing: .*"force": true/);
    const forced = await mcp.call("app_project_import", { path, replace: true, force: true });
    assert.ok(!forced.isError, JSON.stringify(forced.content));
    assert.equal(forced.structuredContent.replaced, true);

    const missing = await mcp.callError("app_project_import", { path: `${dir}/none.zip` });
    assert.equal(missing.code, "NOT_FOUND");
    const badPath = await mcp.callError("app_project_export", { projectId: "demo", path: "x.zip" });
    assert.equal(badPath.details.field, "path");
  } finally {
    await mcp.close();
    await svc.stop();
    await Deno.remove(dir, { recursive: true });
  }
});
