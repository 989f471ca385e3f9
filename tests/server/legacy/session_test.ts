import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";
import { runV5Session, V5Http, V5Socket } from "../../../tools/testing/v5_session.ts";
import { V5_ERROR_TYPES, V5_STATUSES, V5_UPDATE_TYPES } from "../../../server/legacy/mod.ts";

Deno.test("a scripted 5.0.0 client session runs unchanged against the 5.0.0 ports", async () => {
  const svc = await startTestService({ legacyHttpPort: 0, legacyWsPort: 0 });
  try {
    const { legacyHttp, legacyWs } = svc.service.ports;
    assert.ok(legacyHttp && legacyWs);
    const report = await runV5Session("127.0.0.1", { http: legacyHttp, ws: legacyWs });
    assert.equal(report.steps.length, 9, report.steps.join("\n"));
    // Everything it read was in the 5.0.0 shapes.
    for (const m of report.messages) {
      assert.ok(["event", "action-response"].includes(m.type), JSON.stringify(m));
      if (m.type === "event" && m.payload.event === "state-update") {
        assert.equal(m.event, undefined, "the event name is inside the payload");
        for (const u of m.payload.updates) assert.ok(V5_UPDATE_TYPES.has(u.updateType));
      }
      if (m.payload?.error) assert.ok(V5_ERROR_TYPES.includes(m.payload.error.type));
    }
    assert.equal(report.messages[0].payload.event, "connected", "the first message follows auth");
    for (const status of report.statuses) {
      assert.ok(status === 200 || V5_STATUSES.includes(status), `${status}`);
    }
  } finally {
    await svc.stop();
  }
});

Deno.test("the 5.0.0 session leaves the show as it found it: Song, selected Clip, direction, output level", async () => {
  const svc = await startTestService({ legacyHttpPort: 0, legacyWsPort: 0 });
  const action = async (name: string, params: unknown[] = []) => {
    const answer = await svc.post("/api/v1/action", { name, params });
    assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
  };
  /** The show as the 6.0 interface reads it; the revision grows with any change, put back or not. */
  const show = async () => {
    const { revision: _revision, ...project } = (await svc.get("/api/v1/projects/show")).body;
    return {
      appState: (await svc.get("/api/v1/app-state")).body,
      playstate: (await svc.get("/api/v1/projects/show/playstate")).body,
      project,
    };
  };
  try {
    // Not the defaults: another Song, not its first Clip, a Clip the session turns played backward,
    // a lower level.
    await action("SONG_SELECT_BY_ID", ["s2"]);
    await action("PLAY_CLIP_IN", ["c6"]);
    await action("STOP_ALL_CLIPS_IN");
    await action("CLIP_DIRECTION", ["c1", "backward"]);
    await action("OUTPUT_LEVEL_IN", [0.8]);
    const before = await show();
    assert.equal(before.playstate.activeSongID, "s2");
    assert.equal(before.playstate.selectedClipID, "c6");

    const { legacyHttp, legacyWs } = svc.service.ports;
    const report = await runV5Session("127.0.0.1", { http: legacyHttp!, ws: legacyWs! });
    assert.match(report.steps.at(-1)!, /^Put back: Song "s2", Clip "c6", .*output level 0\.8/);
    assert.deepEqual(await show(), before);
  } finally {
    await svc.stop();
  }
});

Deno.test("the 5.0.0 session refuses to run while the show plays, and changes nothing", async () => {
  const svc = await startTestService({ legacyHttpPort: 0, legacyWsPort: 0 });
  try {
    assert.equal(
      (await svc.post("/api/v1/action", { name: "PLAY_CLIP_IN", params: ["c2"] })).status,
      200,
    );
    const before = (await svc.get("/api/v1/projects/show/playstate")).body;
    const { legacyHttp, legacyWs } = svc.service.ports;
    await assert.rejects(
      runV5Session("127.0.0.1", { http: legacyHttp!, ws: legacyWs! }),
      /The show is playing \(Clip c2\): run the check when it is stopped/,
    );
    assert.deepEqual((await svc.get("/api/v1/projects/show/playstate")).body, before);
  } finally {
    await svc.stop();
  }
});

Deno.test("a 5.0.0 client and a 6.0 client side by side see the same state", async () => {
  const svc = await startTestService({ legacyHttpPort: 0, legacyWsPort: 0 });
  const ports = svc.service.ports;
  const v6 = await TestSocket.open(`ws://127.0.0.1:${ports.ws}/v1`);
  const v5 = await V5Socket.open("127.0.0.1", ports.legacyWs!);
  const http5 = new V5Http("127.0.0.1", ports.legacyHttp!);
  try {
    await v6.take();
    await v6.auth();
    await v5.auth();
    // A 6.0 action reaches the 5.0.0 client, a 5.0.0 action the 6.0 client.
    await v6.request({ type: "action", action: { name: "PLAY_CLIP_IN", params: ["c2"] } });
    await v5.update((u) => u.data.event === "clip-play-state-changed" && u.data.clipID === "c2");
    assert.ok((await v5.action("PlayClipByIndexAction", [2])).payload.success);
    await v6.take((m) =>
      m.event === "state-update" &&
      m.payload.some((u: { data: { clipID?: string } }) => u.data.clipID === "c3")
    );
    // Both HTTP interfaces answer from the one read model.
    const state6 = (await svc.get("/api/v1/projects/show/playstate")).body;
    const state5 = (await http5.call("GET", "/api/projects/show/playstate")).body;
    assert.deepEqual(
      state5.clips.map((c: { clipID: string }) => c.clipID),
      state6.clips.map((c: { clipID: string }) => c.clipID),
    );
    assert.deepEqual(state5.clips.map((c: { clipID: string }) => c.clipID).sort(), ["c2", "c3"]);
    const project6 = (await svc.get("/api/v1/projects/show")).body;
    const project5 = (await http5.call("GET", "/api/projects/show")).body;
    // The same Project; only the word for a backward Clip differs (c7).
    assert.deepEqual(
      JSON.parse(JSON.stringify(project5).replaceAll('"reverse"', '"backward"')),
      project6,
    );
    assert.equal(
      project5.clips.find((c: { clipID: string }) => c.clipID === "c7").direction,
      "reverse",
    );
    assert.equal(
      project6.clips.find((c: { clipID: string }) => c.clipID === "c7").direction,
      "backward",
    );
  } finally {
    await v6.close();
    await v5.close();
    await svc.stop();
  }
});
