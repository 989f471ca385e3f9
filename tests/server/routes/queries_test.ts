import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("HTTP query routes answer from the read model with the spec's field names", async (t) => {
  const svc = await startTestService();
  try {
    await t.step(
      "GET /api/v1/projects lists id, name, song count and the active flag",
      async () => {
        const { status, body } = await svc.get("/api/v1/projects");
        assert.equal(status, 200);
        assert.deepEqual(body, {
          projects: [{
            projectId: "show",
            name: "Fixture Show",
            songCount: 3,
            clipCount: 8,
            active: true,
            state: "open",
            problem: null,
          }],
        });
      },
    );

    await t.step("GET /api/v1/projects/:projectId is the full project", async () => {
      const { status, body } = await svc.get("/api/v1/projects/show");
      assert.equal(status, 200);
      assert.equal(body.projectId, "show");
      assert.deepEqual(body.songs.map((s: { songID: string }) => s.songID), ["s1", "s2", "s3"]);
      assert.equal(body.clips.length, 8);
      const c2 = body.clips.find((c: { clipID: string }) => c.clipID === "c2");
      assert.deepEqual([c2.songID, c2.index, c2.launchMode, c2.loop], ["s1", 1, "Gate", true]);
      const bg = body.clips.find((c: { clipID: string }) => c.clipID === "cbg");
      assert.deepEqual([bg.songID, bg.index], [null, null]);
      assert.equal(body.controls.length, 26);
      assert.equal(body.controls[0].controlID, "A");
      assert.deepEqual(body.backgroundClips, ["cbg"]);
      assert.equal(body.files[0].fileId, "f-audio");
      assert.equal(body.songs[0].pgmId, "10");
    });

    await t.step(
      "GET /api/v1/projects/:projectId/summary gives names and counts only",
      async () => {
        const { body } = await svc.get("/api/v1/projects/show/summary");
        assert.deepEqual(body.counts, { songs: 3, clips: 8, files: 1, effects: 2, visualizers: 1 });
        assert.deepEqual(body.songs[1], { songID: "s2", title: "Two", position: 1, clipCount: 2 });
        assert.equal(body.clips, undefined);
      },
    );

    await t.step("GET /api/v1/projects/:projectId/playstate and /api/v1/active", async () => {
      const play = await svc.get("/api/v1/projects/show/playstate");
      assert.deepEqual(play.body, {
        projectId: "show",
        activeSongID: "s1",
        selectedClipID: "c1",
        song: { songID: "s1", state: "stopped", position: 0, duration: 20, lyricIndex: -1 },
        clips: [],
        controls: {},
      });
      const active = await svc.get("/api/v1/active");
      assert.equal(active.body.project.projectId, "show");
      assert.deepEqual(active.body.playstate, play.body);
    });

    await t.step("GET /api/v1/app-state", async () => {
      const { body } = await svc.get("/api/v1/app-state");
      assert.deepEqual([body.fullScreen, body.muted, body.volume, body.recording.state], [
        false,
        false,
        1,
        "idle",
      ]);
    });

    await t.step("GET songs, one song with timeline, lyrics and its Clips", async () => {
      const songs = await svc.get("/api/v1/projects/show/songs");
      assert.deepEqual(songs.body.songs.map((s: { position: number }) => s.position), [0, 1, 2]);
      const { body } = await svc.get("/api/v1/projects/show/songs/s1");
      assert.deepEqual(body.timeline[0], { cueId: "q1", time: 5, action: "play", clipID: "c4" });
      assert.deepEqual(body.lyrics[1], { time: 6, text: "second" });
      assert.deepEqual(body.audio, { fileId: "f-audio", duration: 20, volume: 1 });
      assert.deepEqual(body.clips.map((c: { clipID: string }) => c.clipID), [
        "c1",
        "c2",
        "c3",
        "c4",
      ]);
      assert.equal(body.clips[0].current.state, "stopped");
      const missing = await svc.get("/api/v1/projects/show/songs/nope");
      assert.equal(missing.status, 404);
      assert.equal(missing.body.error.code, "NOT_FOUND");
    });

    await t.step(
      "GET clips by ids: in the order asked; ids required; missing ids named",
      async () => {
        const { body } = await svc.get("/api/v1/projects/show/clips?ids=c6,c1");
        assert.deepEqual(body.clips.map((c: { clipID: string }) => c.clipID), ["c6", "c1"]);
        assert.equal(body.clips[0].velocitySensitivity, 1);
        const none = await svc.get("/api/v1/projects/show/clips");
        assert.equal(none.status, 400);
        assert.equal(none.body.error.details.field, "ids");
        const empty = await svc.get("/api/v1/projects/show/clips?ids=");
        assert.equal(empty.status, 400);
        const bad = await svc.get("/api/v1/projects/show/clips?ids=c1,zz,yy");
        assert.equal(bad.status, 404);
        assert.deepEqual(bad.body.error.details.missing, ["zz", "yy"]);
      },
    );

    await t.step("GET effects, visualizers and presets", async () => {
      const effects = await svc.get("/api/v1/projects/show/effects");
      assert.deepEqual(
        effects.body.effects.map((
          e: { effectId: string; linked: boolean },
        ) => [e.effectId, e.linked]),
        [
          ["e1", true],
          ["e2", false],
        ],
      );
      const viz = await svc.get("/api/v1/projects/show/visualizers");
      assert.deepEqual(viz.body.visualizers[0].engine, "bars");
      const presets = await svc.get("/api/v1/presets");
      assert.ok(presets.body.presets.some((p: { kind: string }) => p.kind === "visualizer"));
      const one = await svc.get("/api/v1/presets/effect/fx-blur");
      assert.equal(one.body.parameters[0].name, "radius");
      assert.equal((await svc.get("/api/v1/presets/visualizer/fx-blur")).status, 404);
      const badKind = await svc.get("/api/v1/presets/shader/fx-blur");
      assert.equal(badKind.status, 400);
      assert.equal(badKind.body.error.details.field, "kind");
    });

    await t.step("GET /api/v1/cameras lists the synthetic camera at least", async () => {
      const { body } = await svc.get("/api/v1/cameras");
      assert.ok(body.cameras.some((c: { deviceId: string }) => c.deviceId === "test-pattern"));
    });

    await t.step("unknown projects are 404 on every project route", async () => {
      for (
        const path of [
          "",
          "/summary",
          "/playstate",
          "/songs",
          "/effects",
          "/visualizers",
          "/clips?ids=a",
        ]
      ) {
        const { status, body } = await svc.get(`/api/v1/projects/ghost${path}`);
        assert.equal(status, 404, path);
        assert.equal(body.error.message, 'Project "ghost" does not exist');
      }
    });
  } finally {
    await svc.stop();
  }
});
