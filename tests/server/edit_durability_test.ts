import assert from "node:assert/strict";
import { startTestService } from "../../tools/testing/service.ts";

Deno.test("Edits survive a service restart, and so does their undo history", async () => {
  const first = await startTestService();
  const dataDir = first.dataDir;
  try {
    const batch = await first.post("/api/v1/edit", {
      edits: [
        { name: "song.add", params: { title: "Kept" } },
        { name: "project.rename", params: { name: "Restarted" } },
      ],
    });
    assert.equal(batch.status, 200);
    await first.post("/api/v1/edit", { name: "project.set_zoom", params: { zoom: 4 } });
    await first.service.shutdown();

    const second = await startTestService({ dataDir });
    try {
      const summary = (await second.get("/api/v1/projects/show/summary")).body;
      assert.equal(summary.name, "Restarted");
      assert.ok(summary.songs.some((s: { title: string }) => s.title === "Kept"));
      assert.equal((await second.get("/api/v1/projects/show")).body.display.zoom, 4);
      const undo = await second.post("/api/v1/edit", { name: "project.undo" });
      assert.deepEqual(undo.body.history, { undo: 1, redo: 1 });
      const undoBatch = await second.post("/api/v1/edit", { name: "project.undo" });
      assert.equal(undoBatch.body.edits[0].message, "Undid song.add, project.rename");
      assert.equal((await second.get("/api/v1/projects/show/summary")).body.name, "Fixture Show");
    } finally {
      await second.stop();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true }).catch(() => {});
  }
});

Deno.test("A player killed during a stream of edits loses no acknowledged edit", async () => {
  const svc = await startTestService();
  try {
    const pid = svc.service.supervisor.pid!;
    const sends = Array.from(
      { length: 40 },
      (_, i) => svc.post("/api/v1/edit", { name: "song.add", params: { title: `Song ${i}` } }),
    );
    // Kill the player once some edits are acknowledged, while others are in flight.
    await sends[5];
    Deno.kill(pid, "SIGKILL");
    const answers = await Promise.all(sends);
    const acknowledged = answers.flatMap((a, i) => a.status === 200 ? [`Song ${i}`] : []);
    assert.ok(acknowledged.length >= 6, `${acknowledged.length} acknowledged`);
    assert.ok(
      answers.every((a) => a.status === 200 || a.status === 503),
      "the others failed cleanly",
    );
    // Ready again means a new player, with the read model whole: the old one may not
    // have been noticed as dead yet when the last answer came (a busy machine).
    const deadline = performance.now() + 20_000;
    while (
      (svc.service.supervisor.pid === pid || !svc.service.core.isReady) &&
      performance.now() < deadline
    ) await new Promise((r) => setTimeout(r, 20));
    assert.ok(svc.service.core.isReady, "the player is back");
    const titles = (await svc.get("/api/v1/projects/show/songs")).body.songs.map((
      s: { title: string },
    ) => s.title);
    for (const title of acknowledged) assert.ok(titles.includes(title), title);
  } finally {
    await svc.stop();
  }
});
