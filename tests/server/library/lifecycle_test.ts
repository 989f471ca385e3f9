import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const isUpdate = (m: { event?: string }) => m.event === "state-update";

async function sha256(path: string): Promise<string> {
  const digest = await crypto.subtle.digest("SHA-256", await Deno.readFile(path));
  return new Uint8Array(digest).toHex();
}

/** The `project` updates of the library the socket got so far: `event reason projectId`. */
function libraryEvents(ws: TestSocket): string[] {
  return ws.messages.filter(isUpdate).flatMap((m) => m.payload)
    .filter((u: Any) =>
      u.updateType === "project" && /^(project-opened|project-closed|active-)/.test(u.data.event)
    )
    .map((u: Any) =>
      [u.data.event, u.data.reason ?? u.data.activeProjectId, u.projectId].join(" ")
    );
}

Deno.test("the Project lifecycle over HTTP, MCP and the WebSocket", async (t) => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  const mcp = await connectMcp(svc.base);
  const edit = (name: string, params: Record<string, unknown> = {}, projectID?: string) =>
    svc.post("/api/v1/edit", { name, params, ...(projectID ? { projectID } : {}) });
  const library = async () =>
    Object.fromEntries(
      (await svc.get("/api/v1/projects?all=true")).body.projects
        .map((p: Any) => [p.projectId, p.state]),
    );
  try {
    await ws.take();
    await ws.auth();

    await t.step("create, empty and from the demo", async () => {
      const empty = await edit("project.create", { name: "Tour" });
      assert.equal(empty.status, 200, JSON.stringify(empty.body));
      assert.deepEqual(empty.body.edits[0].created, { projectId: "tour" });
      const demo = await edit("project.create", { name: "Gig", template: "demo" });
      assert.equal(demo.body.projectId, "gig");
      const gig = (await svc.get("/api/v1/projects/gig")).body;
      assert.ok(gig.songs.length >= 3, JSON.stringify(gig).slice(0, 200));
      assert.deepEqual(await library(), { show: "open", tour: "open", gig: "open" });
    });

    let before: Any;
    await t.step("duplicate: the media equal", async () => {
      const dup = await edit("project.duplicate", { name: "Gig B" }, "gig");
      assert.equal(dup.body.projectId, "gig-b");
      before = (await svc.get("/api/v1/projects/gig-b")).body;
      const doc = JSON.parse(await Deno.readTextFile(`${svc.dataDir}/projects/gig-b/project.json`));
      assert.ok(doc.files.length > 5);
      for (const file of doc.files) {
        assert.equal(
          await sha256(`${svc.dataDir}/projects/gig-b/${file.path}`),
          await sha256(`${svc.dataDir}/projects/gig/${file.path}`),
        );
      }
    });

    await t.step("delete: refused while playing, then forced", async () => {
      const play = await svc.post("/api/v1/action", { name: "PLAY_IN", projectID: "gig-b" });
      assert.equal(play.status, 200, JSON.stringify(play.body));
      const refused = await edit("project.delete", {}, "gig-b");
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.equal(refused.body.error.code, "EDIT_REFUSED");
      assert.match(refused.body.error.message, /is playing: .*"force": true/);
      const forced = await edit("project.delete", { force: true }, "gig-b");
      assert.equal(forced.status, 200, JSON.stringify(forced.body));
      assert.equal((await library())["gig-b"], "deleted");
      const listed = (await svc.get("/api/v1/projects")).body.projects.map((p: Any) => p.projectId);
      assert.ok(!listed.includes("gig-b"));
      const undo = await edit("project.undo", {}, "gig-b");
      assert.equal(undo.status, 404);
      assert.match(undo.body.error.message, /is deleted: send project\.restore/);
    });

    await t.step("restore over MCP: the data equal", async () => {
      const result = await mcp.call("app_project_edit", {
        edits: [{ name: "project.restore", params: { projectId: "gig-b" } }],
      });
      assert.ok(!result.isError, JSON.stringify(result.content));
      assert.equal(result.structuredContent.projectId, "gig-b");
      assert.deepEqual((await svc.get("/api/v1/projects/gig-b")).body, before);
    });

    await t.step("close and open over MCP", async () => {
      const closed = await mcp.call("app_project_edit", {
        projectId: "tour",
        edits: [{ name: "project.close", params: {} }],
      });
      assert.ok(!closed.isError, JSON.stringify(closed.content));
      assert.equal((await library()).tour, "closed");
      assert.equal((await svc.get("/api/v1/projects/tour")).status, 404);
      const opened = await mcp.call("app_project_edit", {
        edits: [{ name: "project.open", params: { projectId: "tour" } }],
      });
      assert.ok(!opened.isError, JSON.stringify(opened.content));
      assert.equal((await library()).tour, "open");
    });

    await t.step("deleting the active Project moves the active one; clients are told", async () => {
      assert.equal((await edit("project.delete", {}, "show")).status, 200);
      const list = (await svc.get("/api/v1/projects")).body.projects;
      assert.equal(list.find((p: Any) => p.active)?.projectId, "gig"); // the first open one
      await ws.request({ type: "ping" });
      svc.service.core.bus.flush();
      await ws.take((m) =>
        isUpdate(m) && m.payload.some((u: Any) => u.data.event === "active-project-changed")
      ).then((m) => ws.messages.push(m)); // the last of them: back at the end
      assert.deepEqual(libraryEvents(ws), [
        "project-opened created tour",
        "project-opened created gig",
        "project-opened duplicated gig-b",
        "project-closed deleted gig-b",
        "project-opened restored gig-b",
        "project-closed closed tour",
        "project-opened opened tour",
        "project-closed deleted show",
        "active-project-changed gig gig",
      ]);
    });
  } finally {
    await mcp.close();
    await ws.close();
    await svc.stop();
  }
});
