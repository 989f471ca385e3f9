/** `GET /api/v1/projects` lists in one order, the same before and after a restart. */
import assert from "node:assert/strict";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

async function listed(svc: TestService): Promise<string[]> {
  const { projects } = (await svc.get("/api/v1/projects?all=true")).body;
  return projects.map((p: Any) => `${p.state} ${p.name}`);
}

Deno.test("GET /api/v1/projects: open ones by name then id, then the others by name, across restarts", async () => {
  let svc = await startTestService();
  const dataDir = svc.dataDir;
  try {
    const show = (await svc.get("/api/v1/projects")).body.projects[0].name;
    for (const name of ["Zed", "Alpha", "Mid", "Beta"]) {
      const created = await svc.post("/api/v1/edit", { name: "project.create", params: { name } });
      assert.equal(created.status, 200, JSON.stringify(created.body));
    }
    for (const id of ["mid", "beta"]) {
      const closed = await svc.post("/api/v1/edit", {
        name: "project.close",
        params: {},
        projectID: id,
      });
      assert.equal(closed.status, 200, JSON.stringify(closed.body));
    }
    const open = ["Alpha", show, "Zed"].sort((a, b) => a.localeCompare(b));
    const expected = [...open.map((n) => `open ${n}`), "closed Beta", "closed Mid"];
    assert.deepEqual(await listed(svc), expected);
    await svc.stop({ keepData: true });
    svc = await startTestService({}, { dataDir });
    assert.deepEqual(await listed(svc), expected);
  } finally {
    await svc.stop();
  }
});
