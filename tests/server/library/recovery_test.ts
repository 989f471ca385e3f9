/**
 * The library's recovery at the level a user meets it: a damaged Project opened again once
 * repaired, or deleted; a closed one deleted or closed again; the trash kept across a
 * player's restart; a Project an import copies into is neither deleted nor closed.
 */
import assert from "node:assert/strict";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { wavHeader } from "../../../player/media/encode.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

function edit(svc: TestService, name: string, params: Record<string, unknown>, projectID?: string) {
  return svc.post("/api/v1/edit", { name, params, ...(projectID ? { projectID } : {}) });
}

async function states(svc: TestService): Promise<Record<string, string>> {
  const { projects } = (await svc.get("/api/v1/projects?all=true")).body;
  return Object.fromEntries(projects.map((p: Any) => [p.projectId, p.state]));
}

/** A service whose data dir holds Projects `tour` and `gig` besides `show`. */
async function withProjects(): Promise<TestService> {
  const svc = await startTestService();
  for (const name of ["Tour", "Gig"]) {
    const created = await edit(svc, "project.create", { name });
    assert.equal(created.status, 200, JSON.stringify(created.body));
  }
  return svc;
}

Deno.test("a damaged Project is opened once repaired, or deleted; a closed one deleted or closed again", async () => {
  let svc = await withProjects();
  const dataDir = svc.dataDir;
  try {
    const good = await Deno.readTextFile(`${dataDir}/projects/tour/project.json`);
    assert.equal((await edit(svc, "project.close", {}, "tour")).status, 200);
    const again = await edit(svc, "project.close", {}, "tour");
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.match(again.body.edits[0].message, /closed already/);
    const deleted = await edit(svc, "project.delete", {}, "tour");
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.equal((await states(svc)).tour, "deleted");
    const restored = await edit(svc, "project.restore", { projectID: "tour" });
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    await svc.stop({ keepData: true });

    for (const id of ["tour", "gig"]) {
      for await (const e of Deno.readDir(`${dataDir}/projects/${id}`)) {
        if (e.name.startsWith("project.json")) {
          await Deno.remove(`${dataDir}/projects/${id}/${e.name}`);
        }
      }
      await Deno.writeTextFile(`${dataDir}/projects/${id}/project.json`, "{");
    }
    svc = await startTestService({}, { dataDir });
    assert.deepEqual(await states(svc), { show: "open", tour: "damaged", gig: "damaged" });
    const stillBroken = await edit(svc, "project.open", { projectID: "tour" });
    assert.equal(stillBroken.status, 404, JSON.stringify(stillBroken.body));
    assert.match(stillBroken.body.error.message, /projects\/tour\/project\.json: not JSON/);
    assert.equal((await states(svc)).tour, "damaged");

    await Deno.writeTextFile(`${dataDir}/projects/tour/project.json`, good);
    const opened = await edit(svc, "project.open", { projectID: "tour" });
    assert.equal(opened.status, 200, JSON.stringify(opened.body));
    assert.equal((await states(svc)).tour, "open");

    const gone = await edit(svc, "project.delete", {}, "gig");
    assert.equal(gone.status, 200, JSON.stringify(gone.body));
    assert.equal((await states(svc)).gig, "deleted");
    assert.ok(!(await exists(`${dataDir}/projects/gig`)));
    const back = await edit(svc, "project.restore", { projectID: "gig" });
    assert.equal(back.status, 200, JSON.stringify(back.body));
    assert.match(
      back.body.edits[0].message,
      /restored, still damaged \(projects\/gig\/project\.json: not JSON/,
    );
  } finally {
    await svc.stop();
  }
});

Deno.test("the trash survives a player's restart; a new service start empties it", async () => {
  let svc = await withProjects();
  const dataDir = svc.dataDir;
  try {
    assert.equal((await edit(svc, "project.delete", {}, "tour")).status, 200);
    assert.equal((await edit(svc, "project.delete", {}, "gig")).status, 200);
    const oldPid = svc.service.supervisor.pid!;
    Deno.kill(oldPid, "SIGKILL");
    await until("a new player", () => {
      const pid = svc.service.supervisor.pid;
      return pid !== null && pid !== oldPid && svc.service.core.isReady;
    });
    const restored = await edit(svc, "project.restore", { projectID: "tour" });
    assert.equal(restored.status, 200, JSON.stringify(restored.body));
    assert.equal((await states(svc)).tour, "open");
    await svc.stop({ keepData: true });

    svc = await startTestService({}, { dataDir });
    const emptied = await edit(svc, "project.restore", { projectID: "gig" });
    assert.equal(emptied.status, 404, JSON.stringify(emptied.body));
    assert.deepEqual([...Deno.readDirSync(`${dataDir}/trash`)], []);
  } finally {
    await svc.stop();
  }
});

Deno.test("a Project an import copies into is neither deleted nor closed until the import ends", async () => {
  const svc = await withProjects();
  const path = `${svc.dataDir}/Big.wav`; // about 2 s of copy on a small machine
  try {
    await Deno.writeFile(path, wavHeader(512 * 2 ** 20 - 44, 48_000));
    await Deno.truncate(path, 512 * 2 ** 20);
    let isSettled = false;
    const importing = edit(svc, "file.import", { path }, "tour")
      .catch((error) => ({ status: 0, body: String(error) })).finally(() => (isSettled = true));
    await until("the import listed", async () => {
      const { imports } = (await svc.get("/api/v1/imports")).body;
      return imports.some((job: Any) => job.projectId === "tour") || isSettled;
    });
    for (const name of ["project.delete", "project.close"]) {
      const refused = await edit(
        svc,
        name,
        name === "project.delete" ? { force: true } : {},
        "tour",
      );
      assert.ok(!isSettled, "the copy outlasted the requests");
      assert.equal(refused.status, 400, JSON.stringify(refused.body));
      assert.match(refused.body.error.message, /wait for the import of 1 file\(s\) to finish/);
    }
    assert.equal((await importing).status, 200);
    const deleted = await edit(svc, "project.delete", {}, "tour");
    assert.equal(deleted.status, 200, JSON.stringify(deleted.body));
    assert.ok(!(await exists(`${svc.dataDir}/projects/tour`)));
  } finally {
    await svc.stop();
  }
});

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

Deno.test("project.delete over MCP says how to restore in MCP's spelling (projectId)", async () => {
  const svc = await withProjects();
  const mcp = await connectMcp(svc.base);
  try {
    const deleted = await mcp.call("app_project_edit", {
      projectId: "tour",
      edits: [{ name: "project.delete", params: {} }],
    });
    assert.ok(!deleted.isError, JSON.stringify(deleted.content));
    const { message } = deleted.structuredContent.edits[0];
    assert.match(message, /project\.restore \{"projectId": "tour"\} brings it back/);
    const restored = await mcp.call("app_project_edit", {
      edits: [{ name: "project.restore", params: JSON.parse(message.match(/\{.*?\}/)![0]) }],
    });
    assert.ok(!restored.isError, JSON.stringify(restored.content));
  } finally {
    await mcp.close();
    await svc.stop();
  }
});
