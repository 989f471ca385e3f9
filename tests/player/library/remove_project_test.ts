import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";
import { writeJsonAtomic } from "../../../lib/atomic_write.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";

Deno.test("PlayerApp.removeProject() disposes, lists it closed, moves the active and says so", async () => {
  const f = await openFixture();
  try {
    await writeJsonAtomic(`${f.dataDir}/projects/other/project.json`, {
      ...fixtureProject(),
      id: "other",
      name: "Other",
    });
    await f.app.adoptProject("other", "created");
    f.updates.length = 0;
    f.app.removeProject("show", "closed");
    const snap = f.app.snapshot();
    assert.deepEqual(snap.projects.map((p) => p.id), ["other"]);
    assert.equal(snap.activeProjectId, "other");
    assert.deepEqual(
      snap.library.map((e) => [e.projectId, e.state]),
      [["other", "open"], ["show", "closed"]],
    );
    assert.deepEqual(f.events(), ["project:project-closed", "project:active-project-changed"]);
    assert.equal(f.updates[0]!.projectId, "show");
    assert.deepEqual(f.updates[1]!.data, {
      event: "active-project-changed",
      activeProjectId: "other",
    });
    await assert.rejects(
      f.app.runAction({ name: "STOP_IN", params: {}, projectId: "show" }),
      /Project "show"/,
    );
    assert.throws(() => f.app.removeProject("show", "deleted"), /Project "show" is not open/);
  } finally {
    await f.close();
  }
});

Deno.test("PlayerApp.removeProject() of a replaced Project keeps it active and out of the library", async () => {
  const f = await openFixture();
  try {
    f.app.removeProject("show", "replaced");
    const snap = f.app.snapshot();
    assert.equal(snap.activeProjectId, "show");
    assert.deepEqual(snap.library, []);
    assert.deepEqual(f.events(), ["project:project-closed"]);
    await f.app.adoptProject("show", "imported");
    assert.deepEqual(f.app.snapshot().projects.map((p) => p.id), ["show"]);
  } finally {
    await f.close();
  }
});
