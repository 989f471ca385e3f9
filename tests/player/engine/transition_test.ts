import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { navigationActions } from "../../../player/actions/navigation.ts";
import { ProjectEngine } from "../../../player/engine/project_engine.ts";
import { buildRenderState } from "../../../player/output/render_state.ts";
import { BUILT_IN_PRESETS } from "../../../player/presets.ts";
import { Project } from "../../../protocol/model.ts";
import { NO_RECORDING, type StateUpdate } from "../../../protocol/state.ts";
import { PlaystateUpdate } from "../../../protocol/state_updates.ts";
import { fixtureProject, openFixture } from "../../../tools/testing/fixture.ts";

const DISSOLVE = { presetId: "tr-dissolve", duration: 2, params: {} };

function engineWith(project: Project) {
  const clock = new VirtualClock();
  const updates: { at: number; update: StateUpdate }[] = [];
  const engine = new ProjectEngine(project, {
    clock,
    emit: (update) => updates.push({ at: clock.now(), update }),
    onClipStarted: () => {},
    positionIntervalMs: 0,
  });
  const events = () => updates.map((u) => `${u.at}:${u.update.data.event}`);
  return { clock, engine, updates, events };
}

function replaceC1ByC2(engine: ProjectEngine) {
  engine.cross("clip", () => {
    engine.stopClip("c1", "navigated");
    engine.startClip("c2", { reason: "navigated" });
  });
}

Deno.test("a Clip replacing another crosses through its transition: progress 0 -> 1 on the clock", () => {
  const project = fixtureProject();
  project.clips.find((c) => c.id === "c2")!.options.transition = DISSOLVE;
  const { clock, engine, events } = engineWith(project);
  engine.startClip("c1");
  clock.advance(3000);
  replaceC1ByC2(engine);
  assert.equal(engine.voice("c1"), undefined, "the outgoing Clip leaves the play state at once");
  const begun = engine.crossing()!;
  assert.deepEqual(
    [begun.cause, begun.progress, begun.incoming, begun.outgoing.map((p) => p.clipID)],
    ["clip", 0, ["c2"], ["c1"]],
  );
  clock.advance(1000);
  const half = engine.crossing()!;
  assert.equal(half.progress, 0.5);
  assert.equal(half.outgoing[0]!.position, 4, "the outgoing voice keeps playing: 3 s + 1 s");
  clock.advance(999);
  assert.ok(engine.crossing()!.progress < 1);
  assert.ok(!events().some((e) => e.endsWith("transition-ended")));
  clock.advance(1);
  assert.equal(engine.crossing(), null, "at progress 1 the outgoing voice ends");
  assert.deepEqual(events().filter((e) => e.includes("transition")), [
    "3000:transition-started",
    "5000:transition-ended",
  ]);
  engine.dispose();
});

Deno.test("without a transition (Clip, Song or Project) a replacement is a cut", () => {
  const { engine } = engineWith(fixtureProject());
  engine.startClip("c1");
  replaceC1ByC2(engine);
  assert.equal(engine.crossing(), null);
  engine.dispose();
});

Deno.test("the Clip's transition wins over its Song's, the Song's over the Project's", () => {
  const project = fixtureProject();
  project.transition = { presetId: "tr-wipe", duration: 1, params: {} };
  project.songs[0]!.transition = { presetId: "tr-dissolve", duration: 3, params: {} };
  const { engine } = engineWith(project);
  engine.startClip("c1");
  replaceC1ByC2(engine);
  assert.deepEqual(engine.crossing()!.transition.duration, 3, "the Song's");
  project.clips.find((c) => c.id === "c1")!.options.transition = DISSOLVE;
  engine.cross("clip", () => {
    engine.stopClip("c2");
    engine.startClip("c1");
  });
  assert.deepEqual(engine.crossing()!.transition.duration, 2, "the Clip's");
  engine.dispose();
});

const appState = {
  fullScreen: false,
  muted: false,
  volume: 1,
  recording: NO_RECORDING,
  editor: null,
  windowReloads: 0,
  lastReloadAt: null,
  output: { renderScale: 1, reason: null },
  outputDisplay: null,
};

Deno.test("the render state carries the crossing: both Clips as layers, the pass at its progress", () => {
  const project = fixtureProject();
  project.transition = { presetId: "tr-wipe", duration: 2, params: { angle: 90 } };
  const { clock, engine } = engineWith(project);
  engine.startClip("c1");
  replaceC1ByC2(engine);
  clock.advance(500);
  engine.setParam("c2", "transition.softness", 0.25);
  const state = buildRenderState({
    project,
    playState: engine.playState(),
    live: engine.live,
    appState,
    presets: BUILT_IN_PRESETS,
    cameras: [],
    crossing: engine.crossing(),
  }, { seq: 1, clock: { now: clock.now(), rate: 0 }, idleSince: 0 });
  assert.deepEqual(state.layers.map((l) => l.clipId), ["c1", "c2"]);
  const t = state.transition!;
  assert.deepEqual([t.outgoing, t.incoming, t.progress, t.start, t.duration], [
    ["c1"],
    ["c2"],
    0.25,
    0,
    2,
  ]);
  assert.equal(t.pass.uniforms.progress, 0.25);
  assert.equal(t.pass.uniforms.angle, 90, "the transition's own params");
  assert.equal(t.pass.uniforms.softness, 0.25, "a live value through clip:<id>/transition.<p>");
  clock.advance(1500);
  const after = buildRenderState({
    project,
    playState: engine.playState(),
    live: engine.live,
    appState,
    presets: BUILT_IN_PRESETS,
    cameras: [],
    crossing: engine.crossing(),
  }, { seq: 2, clock: { now: clock.now(), rate: 0 }, idleSince: 0 });
  assert.deepEqual(after.layers.map((l) => l.clipId), ["c2"]);
  assert.equal(after.transition, undefined);
  engine.dispose();
});

Deno.test("NEXT_CLIP_IN, a Song change and STOP_ALL_CLIPS_IN cross through the Project's default", async () => {
  const f = await openFixture();
  try {
    await f.app.applyEdits({
      projectId: null,
      edits: [{
        name: "project.set_transition",
        params: { transition: { presetId: "tr-dissolve", duration: 2 } },
      }],
    });
    const started = () =>
      f.updates.flatMap((u) => u.data.event === "transition-started" ? [String(u.data.cause)] : []);
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("NEXT_CLIP_IN");
    assert.equal(f.clipState("c1"), "stopped");
    assert.deepEqual(started(), ["clip"]);
    for (const u of f.updates.filter((u) => String(u.data.event).startsWith("transition-"))) {
      // The wire form: the play state as clients see it (no clock stamp, the Controls).
      const { at: _, ...view } = u.data.playstate as Record<string, unknown>;
      PlaystateUpdate.parse({ ...u, data: { ...u.data, playstate: { ...view, controls: {} } } });
    }
    f.clock.advance(2000);
    assert.ok(f.events().includes("playstate:transition-ended"));
    await f.run("NEXT_SONG_IN");
    assert.deepEqual(started(), ["clip", "song"]);
    await f.run("PLAY_CLIP_IN", { clipID: "c5" });
    await f.run("STOP_ALL_CLIPS_IN", { maybePlayBackground: true });
    assert.deepEqual(started(), ["clip", "song", "stop-all"]);
    assert.equal(f.clipState("cbg"), "playing");
    await f.run("STOP_ALL_CLIPS_IN");
    assert.equal(started().length, 4, "the background Clip crosses out too");
  } finally {
    await f.close();
  }
});

Deno.test("a transition edit names a preset that is not a transition's: refused at its field, undoable", async () => {
  const f = await openFixture();
  try {
    const apply = (name: string, params: Record<string, unknown>) =>
      f.app.applyEdits({ projectId: null, edits: [{ name, params }] });
    await assert.rejects(
      apply("clip.update", {
        clipID: "c2",
        options: { transition: { presetId: "fx-blur", duration: 1 } },
      }),
      (e: Error & { data?: { field?: string } }) =>
        /options\.transition\.presetId: preset "fx-blur" is an effect preset/.test(e.message) &&
        e.data?.field === "options.transition.presetId",
    );
    await assert.rejects(
      apply("song.update", { songID: "s1", transition: { presetId: "nope", duration: 1 } }),
      /transition\.presetId: preset "nope" does not exist/,
    );
    await assert.rejects(
      apply("song.update", {
        songID: "s1",
        transition: { presetId: "tr-dissolve", duration: 1, params: { angle: 3 } },
      }),
      /transition\.params\.angle: preset "tr-dissolve" has no parameter "angle"/,
    );
    await assert.rejects(
      apply("song.update", {
        songID: "s1",
        transition: { presetId: "tr-wipe", duration: 1, params: { angle: "left" } },
      }),
      (e: Error & { data?: { field?: string } }) =>
        /transition\.params: .*angle/.test(e.message) && e.data?.field === "transition.params",
    );
    await apply("song.update", { songID: "s1", transition: DISSOLVE });
    const song = () => f.app.snapshot().projects[0]!.songs.find((s) => s.id === "s1")!;
    assert.deepEqual(song().transition, DISSOLVE);
    await apply("project.undo", {});
    assert.equal(song().transition ?? null, null);
  } finally {
    await f.close();
  }
});

Deno.test("PLAY_NEXT_SONG_IN crosses: the new Song's Clips are the incoming picture", () => {
  const project = fixtureProject();
  project.transition = DISSOLVE;
  project.songs[1]!.timeline = [{ id: "q5", time: 0, action: "play", clipID: "c5" }];
  const { engine } = engineWith(project);
  engine.startClip("c1");
  const ctx = { engine, hasEngine: true, app: {} as never, params: {}, velocity: 1 };
  navigationActions.PLAY_NEXT_SONG_IN!(ctx);
  const crossing = engine.crossing()!;
  assert.deepEqual([crossing.cause, crossing.outgoing.map((p) => p.clipID)], ["song", ["c1"]]);
  assert.deepEqual(crossing.incoming, ["c5"], "the Song's cue at 0 s starts in the crossing");
  engine.dispose();
});

Deno.test("a Song change mid-crossing cuts it: it ends then, its outgoing Clip with it", () => {
  const project = fixtureProject();
  project.transition = DISSOLVE;
  const { clock, engine, events } = engineWith(project);
  engine.startClip("c1");
  replaceC1ByC2(engine);
  clock.advance(500);
  engine.cross("song", () => {
    engine.stopClip("c2");
    engine.selectSong("s2", { keepPlaying: false });
  });
  const crossing = engine.crossing()!;
  assert.deepEqual([crossing.cause, crossing.outgoing.map((p) => p.clipID)], ["song", ["c2"]]);
  clock.advance(2000);
  assert.equal(engine.crossing(), null);
  assert.deepEqual(events().filter((e) => e.includes("transition")), [
    "0:transition-started",
    "500:transition-ended",
    "500:transition-started",
    "2500:transition-ended",
  ]);
  engine.dispose();
});

Deno.test("a crossing whose outgoing picture is only the background Clip is not drawn: one layer", () => {
  const project = fixtureProject();
  project.transition = DISSOLVE;
  const { clock, engine } = engineWith(project);
  engine.startClip("cbg");
  engine.cross("stop-all", () => engine.stopClip("cbg"));
  assert.ok(engine.crossing(), "the engine crosses");
  clock.advance(500);
  const state = buildRenderState({
    project,
    playState: engine.playState(),
    live: engine.live,
    appState,
    presets: BUILT_IN_PRESETS,
    cameras: [],
    crossing: engine.crossing(),
  }, { seq: 1, clock: { now: clock.now(), rate: 0 }, idleSince: 0 });
  assert.deepEqual(state.layers.map((l) => l.clipId), ["cbg"]);
  assert.equal(state.transition, undefined);
  engine.dispose();
});

Deno.test("STOP_ALL_CLIPS_IN (the panic note) crosses the picture only: the outgoing sound stops at once", () => {
  const project = fixtureProject();
  project.transition = { ...DISSOLVE, duration: 60 };
  const { clock, engine } = engineWith(project);
  engine.startClip("c1");
  const render = () =>
    buildRenderState({
      project,
      playState: engine.playState(),
      live: engine.live,
      appState,
      presets: BUILT_IN_PRESETS,
      cameras: [],
      crossing: engine.crossing(),
    }, { seq: 1, clock: { now: clock.now(), rate: 0 }, idleSince: 0 });
  const before = render().layers.find((l) => l.clipId === "c1")!.volume;
  assert.ok(before > 0);
  engine.cross("stop-all", () => engine.stopClip("c1"));
  clock.advance(100);
  const state = render();
  assert.deepEqual(state.transition?.outgoing, ["c1"], "the picture crosses");
  assert.equal(state.layers.find((l) => l.clipId === "c1")!.volume, 0, "its sound is stopped");
  engine.startClip("c2");
  engine.cross("clip", () => {
    engine.stopClip("c2");
    engine.startClip("c3");
  });
  const replaced = render().layers.find((l) => l.clipId === "c2")!;
  assert.ok(replaced.volume > 0, "a replaced Clip's sound plays to the crossing's end");
  engine.dispose();
});
