import assert from "node:assert/strict";
import { EDITS } from "../../../protocol/edits/mod.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";

const edit = (svc: TestService, name: string, params: Record<string, unknown> = {}) =>
  svc.post("/api/v1/edit", { name, params });

async function ok(svc: TestService, name: string, params: Record<string, unknown> = {}) {
  const res = await edit(svc, name, params);
  assert.equal(res.status, 200, `${name}: ${JSON.stringify(res.body)}`);
  return res.body;
}

const project = async (svc: TestService) => (await svc.get("/api/v1/projects/show")).body;
const song = async (svc: TestService, id: string) =>
  (await svc.get(`/api/v1/projects/show/songs/${id}`)).body;

Deno.test("GET /api/v1/edit/schema lists every edit; one is JSON Schema; unknown is 404", async () => {
  const svc = await startTestService();
  try {
    const all = await svc.get("/api/v1/edit/schema");
    assert.equal(all.status, 200);
    assert.deepEqual(all.body.edits.map((e: { name: string }) => e.name), EDITS.map((e) => e.name));
    const groups = new Set(all.body.edits.map((e: { group: string }) => e.group));
    for (const g of ["clips", "songs", "project", "effects", "visualizers", "presets"]) {
      assert.ok(groups.has(g), g);
    }
    const one = await svc.get("/api/v1/edit/schema/clip.update");
    assert.equal(one.status, 200);
    const props = one.body.params.properties;
    assert.equal(one.body.params.type, "object");
    assert.deepEqual(one.body.params.required, ["clipID"]);
    assert.deepEqual(props.launchMode.enum, ["Trigger", "Toggle", "Gate", "OneShot"]);
    assert.equal(props.velocitySensitivity.minimum, 0);
    assert.equal(props.velocitySensitivity.maximum, 1);
    assert.match(props.clipID.description, /Clip/);
    const del = await svc.get("/api/v1/edit/schema/song.delete");
    assert.equal(del.body.params.properties.keepClips.default, false);
    const missing = await svc.get("/api/v1/edit/schema/clip.explode");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "NOT_FOUND");
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/edit: Clip edits", async (t) => {
  const svc = await startTestService();
  try {
    await t.step("clip.add creates a Clip at a position and answers its id", async () => {
      const body = await ok(svc, "clip.add", {
        songID: "s2",
        position: 1,
        name: "Added",
        launchMode: "Gate",
      });
      const id = body.edits[0].created.clipID;
      assert.match(id, /^clip-/);
      assert.deepEqual(body.changed.clips, [id]);
      assert.deepEqual((await song(svc, "s2")).clipIDs, ["c5", id, "c6"]);
      const clips = await svc.get(`/api/v1/projects/show/clips?ids=${id}`);
      assert.equal(clips.body.clips[0].launchMode, "Gate");
    });
    await t.step("clip.move moves within and across Songs; past the end is 400", async () => {
      await ok(svc, "clip.move", { clipID: "c1", position: 3 });
      assert.deepEqual((await song(svc, "s1")).clipIDs, ["c2", "c3", "c4", "c1"]);
      await ok(svc, "clip.move", { clipID: "c1", songID: "s3", position: 0 });
      assert.deepEqual((await song(svc, "s3")).clipIDs, ["c1", "c7"]);
      const far = await edit(svc, "clip.move", { clipID: "c7", position: 5 });
      assert.equal(far.status, 400);
      assert.equal(far.body.error.code, "EDIT_REFUSED");
      assert.equal(
        far.body.error.message,
        'Position 5 is past the end: Song "s3" has 2 Clips, so the last position is 1',
        "the counts are the ones the user sees: the moved Clip still counts",
      );
    });
    await t.step("clip.duplicate copies options right after the original", async () => {
      const body = await ok(svc, "clip.duplicate", { clipID: "c7" });
      const id = body.edits[0].created.clipID;
      assert.deepEqual((await song(svc, "s3")).clipIDs, ["c1", "c7", id]);
    });
    await t.step("clip.update changes settings and merges options and filters", async () => {
      await ok(svc, "clip.update", {
        clipID: "c2",
        retrigger: "stop",
        direction: "backward",
        loop: false,
        velocitySensitivity: 0.5,
        options: { opacity: 0.5, filters: { blur: 3 } },
      });
      const c2 = (await svc.get("/api/v1/projects/show/clips?ids=c2")).body.clips[0];
      assert.equal(c2.retrigger, "stop");
      assert.equal(c2.direction, "backward");
      assert.equal(c2.velocitySensitivity, 0.5);
      assert.equal(c2.options.opacity, 0.5);
      assert.equal(c2.options.filters.blur, 3);
      assert.equal(c2.options.filters.contrast, 1);
      const fx = await edit(svc, "clip.update", { clipID: "c2", options: { effects: ["nope"] } });
      assert.equal(fx.status, 404);
      const range = await edit(svc, "clip.update", { clipID: "c2", velocitySensitivity: 2 });
      assert.equal(range.status, 400);
      assert.equal(range.body.error.details.field, "params.velocitySensitivity");
    });
    await t.step("clip.delete removes the Clip, its cues and references", async () => {
      await ok(svc, "clip.delete", { clipID: "c4" });
      const s1 = await song(svc, "s1");
      assert.ok(!s1.clipIDs.includes("c4"));
      assert.equal(s1.timeline.length, 0, "both cues of c4 are gone");
      const gone = await edit(svc, "clip.delete", { clipID: "c4" });
      assert.equal(gone.status, 404);
    });
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/edit: Song edits", async (t) => {
  const svc = await startTestService();
  try {
    let added = "";
    await t.step("song.add, song.move, song.update", async () => {
      added = (await ok(svc, "song.add", { title: "Encore", pgmId: "99", position: 0 }))
        .edits[0].created.songID;
      let songs = (await svc.get("/api/v1/projects/show/songs")).body.songs;
      assert.equal(songs[0].songID, added);
      await ok(svc, "song.move", { songID: added, position: 3 });
      songs = (await svc.get("/api/v1/projects/show/songs")).body.songs;
      assert.deepEqual(songs.map((s: { songID: string }) => s.songID), ["s1", "s2", "s3", added]);
      await ok(svc, "song.update", { songID: added, title: "Encore!", audioFileId: "f-audio" });
      const s = await song(svc, added);
      assert.equal(s.title, "Encore!");
      assert.equal(s.pgmId, "99");
      assert.equal(s.audio.fileId, "f-audio");
      const past = await edit(svc, "song.move", { songID: added, position: 4 });
      assert.equal(past.status, 400);
    });
    await t.step("song.set_timeline and song.set_lyrics replace them, sorted", async () => {
      await ok(svc, "song.set_timeline", {
        songID: "s2",
        cues: [
          { time: 4, action: "stop", clipID: "c5" },
          { time: 1, action: "play", clipID: "c5" },
        ],
      });
      const s2 = await song(svc, "s2");
      assert.deepEqual(s2.timeline.map((c: { time: number }) => c.time), [1, 4]);
      const bad = await edit(svc, "song.set_timeline", {
        songID: "s2",
        cues: [{ time: 1, action: "play", clipID: "ghost" }],
      });
      assert.equal(bad.status, 404);
      await ok(svc, "song.set_lyrics", {
        songID: "s2",
        lyrics: [{ time: 9, text: "b" }, { time: 2, text: "a" }],
      });
      assert.deepEqual((await song(svc, "s2")).lyrics.map((l: { text: string }) => l.text), [
        "a",
        "b",
      ]);
    });
    await t.step("song.duplicate copies its Clips and remaps the timeline", async () => {
      const copy = (await ok(svc, "song.duplicate", { songID: "s2" })).edits[0].created.songID;
      const s = await song(svc, copy);
      assert.equal(s.title, "Two copy");
      assert.equal(s.clipIDs.length, 2);
      assert.ok(!s.clipIDs.includes("c5"));
      assert.ok(s.timeline.every((c: { clipID: string }) => s.clipIDs.includes(c.clipID)));
    });
    await t.step("song.delete deletes its Clips unless keepClips", async () => {
      await ok(svc, "song.delete", { songID: "s3", keepClips: true });
      assert.ok((await project(svc)).clips.some((c: { clipID: string }) => c.clipID === "c7"));
      await ok(svc, "song.delete", { songID: "s2" });
      const clips = (await project(svc)).clips.map((c: { clipID: string }) => c.clipID);
      assert.ok(!clips.includes("c5") && !clips.includes("c6"));
      assert.equal((await svc.get("/api/v1/projects/show/songs/s2")).status, 404);
    });
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/edit: Project, Control, Effect and Visualizer edits", async (t) => {
  const svc = await startTestService();
  try {
    await t.step("project display options, zoom, Background Clips, name", async () => {
      await ok(svc, "project.set_display", {
        width: 1280,
        height: 720,
        backgroundColor: "#112233",
      });
      await ok(svc, "project.set_zoom", { zoom: 2.5 });
      await ok(svc, "project.set_background_clips", { clipIDs: ["cbg", "c1"] });
      await ok(svc, "project.rename", { name: "Renamed Show" });
      const p = await project(svc);
      assert.equal(p.name, "Renamed Show");
      assert.deepEqual(p.display, {
        width: 1280,
        height: 720,
        fps: 30,
        backgroundColor: "#112233",
        zoom: 2.5,
      });
      assert.deepEqual(p.backgroundClips, ["cbg", "c1"]);
      const bad = await edit(svc, "project.set_display", { backgroundColor: "red" });
      assert.equal(bad.status, 400);
      assert.equal(bad.body.error.details.field, "params.backgroundColor");
    });
    await t.step("control settings and Targets (checked like SET_PARAM)", async () => {
      await ok(svc, "control.update", { controlID: "b", name: "Fader B", clamp: false });
      await ok(svc, "control.set_targets", {
        controlID: "B",
        targets: [{ target: "clip:c1/opacity", min: 0.2, max: 0.8 }],
      });
      const act = await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["B", 1] });
      assert.match(act.body.message, /1 Target\(s\) written/);
      const badParam = await edit(svc, "control.set_targets", {
        controlID: "B",
        targets: [{ target: "clip:c1/wobble" }],
      });
      assert.equal(badParam.status, 400);
      const badClip = await edit(svc, "control.set_targets", {
        controlID: "B",
        targets: [{ target: "clip:ghost/opacity" }],
      });
      assert.equal(badClip.status, 404);
    });
    await t.step("effect add/update/copy/remove; params checked against the preset", async () => {
      const fx = (await ok(svc, "effect.add", { presetID: "fx-blur", params: { radius: 10 } }))
        .edits[0].created.effectID;
      const ids = async () =>
        (await svc.get("/api/v1/projects/show/effects")).body.effects.map(
          (e: { effectId: string }) => e.effectId,
        );
      assert.deepEqual(await ids(), ["e1", "e2", fx]);
      await ok(svc, "clip.update", { clipID: "c1", options: { effects: [fx] } });
      const bad = await edit(svc, "effect.update", { effectID: fx, params: { radius: 99 } });
      assert.equal(bad.status, 400);
      assert.match(bad.body.error.message, /"radius" must be at most 50/);
      await ok(svc, "effect.update", { effectID: fx, enabled: false, params: { radius: 20 } });
      const copy = (await ok(svc, "effect.copy", { effectID: fx })).edits[0].created.effectID;
      await ok(svc, "effect.remove", { effectID: fx });
      assert.deepEqual(await ids(), ["e1", "e2", copy]);
      const c1 = (await svc.get("/api/v1/projects/show/clips?ids=c1")).body.clips[0];
      assert.deepEqual(c1.options.effects, [], "a removed Effect leaves its Clips");
    });
    await t.step("visualizer add/copy/remove", async () => {
      const viz = (await ok(svc, "visualizer.add", { presetID: "viz-spectrum" }))
        .edits[0].created.visualizerID;
      await ok(svc, "visualizer.copy", { visualizerID: viz, name: "Second" });
      await ok(svc, "visualizer.remove", { visualizerID: viz });
      const list = (await svc.get("/api/v1/projects/show/visualizers")).body.visualizers;
      assert.deepEqual(list.map((v: { name: string }) => v.name), ["Bars", "Second"]);
      const wrongKind = await edit(svc, "visualizer.add", { presetID: "fx-blur" });
      assert.equal(wrongKind.status, 404);
    });
  } finally {
    await svc.stop();
  }
});

Deno.test("POST /api/v1/edit: user presets are validated, and the open editor follows them", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    const preset = {
      kind: "effect",
      name: "Glow",
      type: "glow",
      parameters: [{ name: "amount", type: "number", min: 0, max: 1, default: 0.5 }],
    };
    const check = await ok(svc, "preset.validate", {
      ...preset,
      parameters: [{ name: "amount", type: "number", min: 0, max: 1, default: 3 }],
    });
    assert.equal(check.edits[0].result.valid, false);
    assert.match(check.edits[0].result.problems[0], /default: "amount" must be at most 1/);
    assert.equal(check.history.undo, 0, "validating writes nothing");
    const invalid = await edit(svc, "preset.add", { ...preset, name: "Blur" });
    assert.equal(invalid.status, 400);
    assert.match(invalid.body.error.message, /preset named "Blur" exists/);
    const id = (await ok(svc, "preset.add", preset)).edits[0].created.presetID;
    assert.equal((await svc.get(`/api/v1/presets/effect/${id}`)).status, 200);
    const builtIn = await edit(svc, "preset.update", { kind: "effect", presetID: "fx-blur" });
    assert.equal(builtIn.status, 400);
    assert.match(builtIn.body.error.message, /built in/);

    await svc.post("/api/v1/action", { name: "OPEN_EDITOR", params: ["effect", id] });
    await ok(svc, "preset.update", { kind: "effect", presetID: id, code: "void main() {}" });
    const editor = (await svc.get("/api/v1/app-state")).body.editor;
    assert.equal(editor.presetId, id);
    assert.equal(editor.preset.code, "void main() {}");
    assert.ok(editor.updatedAt);
    const update = await ws.take((m) =>
      m.payload?.some?.((u: { data: { event: string } }) => u.data.event === "presets-changed")
    );
    assert.ok(update);
    await ok(svc, "preset.remove", { kind: "effect", presetID: id });
    assert.equal((await svc.get("/api/v1/app-state")).body.editor, null);
    assert.equal((await svc.get(`/api/v1/presets/effect/${id}`)).status, 404);
    await ok(svc, "project.undo");
    assert.equal((await svc.get(`/api/v1/presets/effect/${id}`)).status, 200, "undo restores it");
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("POST /api/v1/edit: validation, batches, undo/redo and the updates they emit", async (t) => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    await t.step("bad bodies and references name the field", async () => {
      const unknown = await edit(svc, "clip.explode");
      assert.equal(unknown.status, 400);
      assert.equal(unknown.body.error.details.field, "name");
      const missing = await edit(svc, "clip.move", { clipID: "c1" });
      assert.equal(missing.body.error.details.field, "params.position");
      const extra = await edit(svc, "clip.delete", { clipID: "c1", force: true });
      assert.equal(extra.status, 400);
      const both = await svc.post("/api/v1/edit", { name: "project.undo", edits: [] });
      assert.equal(both.status, 400);
      const project = await svc.post("/api/v1/edit", {
        name: "project.rename",
        params: { name: "x" },
        projectID: "ghost",
      });
      assert.equal(project.status, 404);
      const inBatch = await svc.post("/api/v1/edit", {
        edits: [{ name: "song.add", params: { title: "A" } }, {
          name: "clip.move",
          params: { clipID: "c1", position: "first" },
        }],
      });
      assert.equal(inBatch.body.error.details.field, "edits.1.params.position");
    });
    await t.step("a batch applies all or none", async () => {
      const before = (await svc.get("/api/v1/projects/show")).body;
      const failed = await svc.post("/api/v1/edit", {
        edits: [
          { name: "song.add", params: { title: "Never" } },
          { name: "clip.delete", params: { clipID: "ghost" } },
        ],
      });
      assert.equal(failed.status, 404);
      assert.deepEqual((await svc.get("/api/v1/projects/show")).body, before);
    });
    let songID = "";
    await t.step("a batch is one undo step; undo, redo; a new edit clears redo", async () => {
      const batch = await svc.post("/api/v1/edit", {
        edits: [
          { name: "song.add", params: { title: "Batch" } },
          { name: "project.rename", params: { name: "Batched" } },
          { name: "clip.move", params: { clipID: "c1", position: 2 } },
        ],
      });
      assert.equal(batch.status, 200);
      songID = batch.body.edits[0].created.songID;
      assert.deepEqual(batch.body.history, { undo: 1, redo: 0 });
      const event = await ws.take((m) =>
        m.payload?.some?.((u: { data: { event: string } }) => u.data.event === "project-edited")
      );
      const kinds = event.payload.map((u: { updateType: string; data: { event: string } }) =>
        `${u.updateType}:${u.data.event}`
      );
      assert.ok(kinds.includes("project:project-edited"));
      assert.ok(kinds.includes("song:song-changed"));
      const undo = await ok(svc, "project.undo");
      assert.deepEqual(undo.history, { undo: 0, redo: 1 });
      const p = await svc.get("/api/v1/projects/show/summary");
      assert.equal(p.body.name, "Fixture Show");
      assert.equal((await svc.get(`/api/v1/projects/show/songs/${songID}`)).status, 404);
      assert.deepEqual((await song(svc, "s1")).clipIDs, ["c1", "c2", "c3", "c4"]);
      await ok(svc, "project.redo");
      assert.equal((await svc.get("/api/v1/projects/show/summary")).body.name, "Batched");
      assert.deepEqual((await song(svc, "s1")).clipIDs, ["c2", "c3", "c1", "c4"]);
      await ok(svc, "project.undo");
      const fresh = await ok(svc, "project.set_zoom", { zoom: 3 });
      assert.deepEqual(fresh.history, { undo: 1, redo: 0 });
      const redo = await edit(svc, "project.redo");
      assert.equal(redo.status, 400);
      assert.match(redo.body.error.message, /Nothing to redo/);
    });
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("POST /api/v1/edit needs the edit scope; file.import by path is local-only", async () => {
  const svc = await startTestService();
  const port = svc.service.ports.http;
  try {
    const pair = async (scopes: string[]) => {
      const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
      const paired = await remoteRequest(port, "POST", "/api/v1/pair", { body: { otp, scopes } });
      return { authorization: `Bearer ${paired.body.token}` };
    };
    const body = { name: "project.rename", params: { name: "Remote" } };
    const controller = await pair(["view", "control"]);
    const refused = await remoteRequest(port, "POST", "/api/v1/edit", {
      headers: controller,
      body,
    });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.error.code, "INSUFFICIENT_SCOPE");
    const editor = await pair(["view", "edit"]);
    const done = await remoteRequest(port, "POST", "/api/v1/edit", { headers: editor, body });
    assert.equal(done.status, 200);
    const local = await remoteRequest(port, "POST", "/api/v1/edit", {
      headers: editor,
      body: { name: "file.import", params: { path: "/etc/hostname" } },
    });
    assert.equal(local.status, 403);
    assert.equal(local.body.error.code, "LOCAL_ONLY");
  } finally {
    await svc.stop();
  }
});
