/**
 * The play state is one schema and one content on every way out: the
 * `playstate` of a WebSocket update, the play states of a `full` update and
 * `GET /api/v1/projects/:projectId/playstate` are equal field for field,
 * Control values included (the player's clock stamp `at` stays inside).
 */
import assert from "node:assert/strict";
import { PlayStateView } from "../../../protocol/state.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";

// deno-lint-ignore no-explicit-any
type Msg = any;

/** The first update of `event` in the state-update events received so far (or to come). */
async function updateOf(ws: TestSocket, match: (u: Msg) => boolean): Promise<Msg> {
  const event = await ws.take((m) =>
    m.type === "event" && m.event === "state-update" && m.payload.some(match)
  );
  return event.payload.findLast(match);
}

Deno.test("play state: an update, a full update and GET .../playstate agree field for field", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", 0.25] });
    await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["C", 0.75] });
    // Another client triggers a Clip: the update this client gets carries the whole play state.
    await svc.post("/api/v1/action", { name: "PLAY_CLIP_IN", params: ["c1"] });
    const update = await updateOf(
      ws,
      (u) => u.data.event === "clip-play-state-changed" && u.data.clipID === "c1",
    );
    const read = (await svc.get("/api/v1/projects/show/playstate")).body;
    PlayStateView.parse(update.data.playstate);
    assert.deepEqual(read.controls, { A: 0.25, C: 0.75 });
    assert.deepEqual(update.data.playstate, read);

    const full = await ws.request({ type: "full" });
    assert.equal(full.type, "response");
    const state = (await updateOf(ws, (u) => u.updateType === "full")).data.state;
    const inFull = state.playstates.find((p: Msg) => p.projectId === "show");
    assert.deepEqual(inFull, (await svc.get("/api/v1/projects/show/playstate")).body);
  } finally {
    await ws.close();
    await svc.stop();
  }
});
