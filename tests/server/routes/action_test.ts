import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("POST /api/v1/action runs the catalog with its rules over real HTTP", async (t) => {
  const svc = await startTestService();
  const act = (body: unknown) => svc.post("/api/v1/action", body);
  const clip = async (id: string) =>
    (await svc.get(`/api/v1/projects/show/clips?ids=${id}`)).body.clips[0];
  try {
    await t.step("the answer says what was done; a read right after shows it", async () => {
      const res = await act({ name: "PLAY_CLIP_BY_INDEX_IN", params: [2], base: 1, velocity: 100 });
      assert.equal(res.status, 200);
      assert.deepEqual(res.body, {
        ok: true,
        action: "PLAY_CLIP_BY_INDEX_IN",
        projectId: "show",
        params: { index: 1 },
        velocity: 100,
        applied: true,
        message: 'Clip "c2" playing',
      });
      const play = await svc.get("/api/v1/projects/show/playstate");
      assert.deepEqual(play.body.clips.map((c: { clipID: string }) => c.clipID), ["c2"]);
    });

    await t.step(
      "a release must use the trigger's base, or it releases the neighbour (rule 6)",
      async () => {
        const wrong = await act({ name: "RELEASE_CLIP_BY_INDEX_IN", params: [2], base: 0 }); // c3, a Toggle Clip
        assert.equal(wrong.body.applied, false);
        assert.match(wrong.body.message, /"c3" is in Toggle mode; release does nothing/);
        assert.equal((await clip("c2")).current.state, "playing");
        const right = await act({ name: "RELEASE_CLIP_BY_INDEX_IN", params: ["2"], base: 1 });
        assert.equal(right.body.message, 'Clip "c2" released');
        assert.equal((await clip("c2")).current.state, "stopped");
      },
    );

    await t.step("base 1 shifts only the three positional actions", async () => {
      const song = await act({ name: "SONG_SELECT_IN", params: [3], base: 1 });
      assert.deepEqual(song.body.params, { index: 2 });
      assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.activeSongID, "s3");
      const seek = await act({ name: "SEEK_CLIP_IN", params: ["c1", 1], base: 1 });
      assert.deepEqual(seek.body.params, { clipID: "c1", percent: 1 });
      const zero = await act({ name: "SONG_SELECT_IN", params: [0], base: 1 });
      assert.equal(zero.status, 400);
      assert.equal(zero.body.error.details.field, "params[0] (index)");
      await act({ name: "STOP_ALL_CLIPS_IN" });
      await act({ name: "SONG_SELECT_IN", params: [0] });
    });

    await t.step(
      "velocity feeds Velocity Sensitivity; omitted counts as full; range checked",
      async () => {
        await act({ name: "TRIGGER_CLIP_IN", params: ["c6"], velocity: 0 });
        assert.equal((await clip("c6")).current.gain, 0);
        await act({ name: "RESTART_CLIP_IN", params: ["c6"] });
        assert.deepEqual([(await clip("c6")).current.gain, (await clip("c6")).current.velocity], [
          1,
          127,
        ]);
        const ignored = await act({ name: "STOP_CLIP_IN", params: ["c6"], velocity: 5 });
        assert.equal(ignored.status, 200);
        assert.equal(ignored.body.velocity, undefined, "velocity is ignored by other actions");
        for (const velocity of [128, -1, 2.5, "64"]) {
          const res = await act({ name: "PLAY_CLIP_IN", params: ["c6"], velocity });
          assert.equal(res.status, 400, `velocity ${velocity}`);
          assert.equal(res.body.error.details.field, "velocity");
        }
      },
    );

    await t.step("400 names the field for every bad request", async () => {
      const cases: Array<[unknown, string]> = [
        [{ name: "NOPE" }, "name"],
        [{}, "name"],
        [{ name: "SEEK_CLIP_IN", params: ["c1", 1.5] }, "params[1] (percent)"],
        [{ name: "SEEK_SONG_IN", params: ["s1", "-0.1"] }, "params[1] (percent)"],
        [{ name: "OUTPUT_LEVEL_IN", params: [2] }, "params[0] (level)"],
        [{ name: "SEEK_CLIP_IN", params: ["c1"] }, "params[1] (percent)"],
        [{ name: "SET_CONTROL", params: ["1", 0.5] }, "params[0] (controlID)"],
        [{ name: "SET_PARAM", params: ["c1.opacity", 0.5] }, "params[0] (targetID)"],
        [{ name: "PLAY_IN", base: 2 }, "base"],
        [{ name: "PLAY_IN", params: {} }, "params"],
        [{ name: "PLAY_CLIP_IN", params: [{ id: "c1" }] }, "params[0] (clipID)"],
        [{ name: "PLAY_IN", extra: 1 }, "extra"],
        [{ action: { name: "SetControlAction", params: ["A", 1] } }, "action"],
        [[1, 2], "body"],
      ];
      for (const [body, field] of cases) {
        const res = await act(body);
        assert.equal(res.status, 400, JSON.stringify(body));
        assert.equal(res.body.error.code, "INVALID_MESSAGE");
        assert.equal(res.body.error.details.field, field, JSON.stringify(body));
      }
      const notJson = await act("{name: PLAY_IN");
      assert.deepEqual([notJson.status, notJson.body.error.message], [
        400,
        "Invalid body: not valid JSON",
      ]);
      // The 6.0 port takes the 6.0 body only: a 5.0.0 one is refused, saying how to write it
      // here and where the 5.0.0 form is taken (docs/compat.md, "One body per port").
      const legacy = await act({ action: { name: "NextSongAction" } });
      assert.equal(legacy.status, 400);
      assert.equal(legacy.body.error.details.field, "action");
      assert.match(legacy.body.error.message, /is the 5\.0\.0 body: send \{"name": /);
      // The 5.0.0 port as it is here: off in the tests' service (its port when bound, below).
      assert.match(
        legacy.body.error.message,
        /to the 5\.0\.0 port \(off here: the setting legacyHttpPort opens it\)$/,
      );
      assert.match(legacy.body.error.message, /send \{"name": "NEXT_SONG_IN", "params"/);
      const named = await act({ action: { name: "next_song_in" } });
      assert.match(
        named.body.error.message,
        /send \{"name": "NEXT_SONG_IN", "params": \[\.\.\.\]\}/,
      );
      const v5Name = await act({ name: "NextSongAction" });
      assert.deepEqual([v5Name.status, v5Name.body.error.details.field], [400, "name"]);
      assert.match(
        v5Name.body.error.message,
        /"NextSongAction" is the 5\.0\.0 name of NEXT_SONG_IN: send \{"name": "NEXT_SONG_IN"\}/,
      );
    });

    await t.step("an unknown projectID is 404; a given one is used", async () => {
      const ghost = await act({ name: "PLAY_IN", projectID: "ghost" });
      assert.equal(ghost.status, 404);
      assert.equal(ghost.body.error.details.field, "projectID");
      const named = await act({ name: "MUTE_TOGGLE", projectID: "show" });
      assert.equal(named.body.projectId, "show");
      await act({ name: "MUTE_TOGGLE" });
    });

    await t.step("a refused action is 500 whose message says why (rule 7)", async () => {
      await act({ name: "STOP_IN" });
      const res = await act({ name: "PAUSE_IN" });
      assert.equal(res.status, 500);
      assert.deepEqual(res.body, {
        error: { code: "ACTION_FAILED", message: "Nothing is playing" },
      });
      const missing = await act({ name: "PLAY_CLIP_IN", params: ["zz"] });
      assert.equal(missing.status, 500);
      assert.match(missing.body.error.message, /Clip "zz" does not exist/);
    });

    await t.step("Control values and clock-driven changes show in reads", async () => {
      await act({ name: "SET_CONTROL", params: ["a", 0.5] });
      assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.controls.A, 0.5);
      assert.deepEqual((await clip("c1")).current.live, { opacity: 0.5 });
      await act({ name: "PLAY_CLIP_IN", params: ["c1"] });
      await svc.advance(2500);
      assert.equal((await clip("c1")).current.position, 2.5);
      await svc.advance(10_000);
      assert.equal((await clip("c1")).current.state, "stopped");
    });

    await t.step("POST /api/v1/refresh reloads from disk and stops playback", async () => {
      await act({ name: "PLAY_CLIP_IN", params: ["c3"] });
      const res = await svc.post("/api/v1/refresh", {});
      assert.deepEqual(res.body, {
        ok: true,
        projects: 1,
        message: "Reloaded 1 project(s) from disk",
      });
      assert.deepEqual((await svc.get("/api/v1/projects/show/playstate")).body.clips, []);
    });

    await t.step("503 while the player is down, then back", async () => {
      const pid = svc.service.supervisor.pid!;
      Deno.kill(pid, "SIGKILL");
      let sawDown = false;
      while (!sawDown) {
        const res = await svc.get("/api/v1/projects");
        if (res.status === 503) {
          sawDown = true;
          assert.equal(res.body.error.code, "NOT_READY");
          const action = await act({ name: "PLAY_IN" });
          assert.equal(action.status, 503);
        } else if (svc.service.supervisor.pid !== pid) break; // restarted before we looked
      }
      // A hang guard, not a speed limit: a player starting on a busy machine can take seconds.
      assert.ok(await svc.service.supervisor.waitReady(120_000));
      assert.equal((await svc.get("/api/v1/projects")).status, 200);
      const health = await svc.get("/health");
      assert.equal(health.body.ready, true);
    });
  } finally {
    await svc.stop();
  }
});
