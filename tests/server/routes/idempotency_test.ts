import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";

const keyed = (key: string) => ({
  headers: { "content-type": "application/json", "idempotency-key": key },
});

Deno.test("Idempotency-Key: a retried action or edit is applied once and answered with the first outcome", async () => {
  const svc = await startTestService();
  try {
    const muted = async () => (await svc.get("/api/v1/app-state")).body.muted;
    const before = await muted();
    const first = await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" }, keyed("mute-1"));
    const retry = await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" }, keyed("mute-1"));
    assert.equal(first.status, 200);
    assert.deepEqual(retry.body, first.body);
    assert.equal(await muted(), !before, "toggled once, not twice");

    const songs = async () => (await svc.get("/api/v1/projects/show/songs")).body.songs.length;
    const count = await songs();
    const add = { name: "song.add", params: { title: "Encore" }, projectID: "show" };
    const [a, b] = await Promise.all([
      svc.post("/api/v1/edit", add, keyed("encore")),
      svc.post("/api/v1/edit", add, keyed("encore")),
    ]);
    assert.equal(a.status, 200);
    assert.deepEqual(b.body, a.body, "a retry while the first runs waits for it");
    assert.equal(await songs(), count + 1);

    const reused = await svc.post(
      "/api/v1/edit",
      { ...add, params: { title: "Other" } },
      keyed("encore"),
    );
    assert.equal(reused.status, 422);
    assert.equal(reused.body.error.code, "IDEMPOTENCY_KEY_REUSED");
    const bad = await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" }, keyed("a b"));
    assert.equal(bad.status, 400);
    assert.equal(bad.body.error.details.field, "Idempotency-Key");

    // Across a player restart: the key is still known.
    const pid = svc.service.supervisor.pid!;
    Deno.kill(pid, "SIGKILL");
    const deadline = performance.now() + 20_000;
    while (
      (svc.service.supervisor.pid === pid || !svc.service.supervisor.isReady) &&
      performance.now() < deadline
    ) await new Promise((r) => setTimeout(r, 20));
    const after = await svc.post("/api/v1/edit", add, keyed("encore"));
    assert.deepEqual(after.body, a.body);
    assert.equal(await songs(), count + 1);
  } finally {
    await svc.stop();
  }
});
