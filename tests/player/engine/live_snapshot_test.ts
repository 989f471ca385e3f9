import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { ProjectEngine } from "../../../player/engine/project_engine.ts";
import { captureEngine, ProjectLive, restoreEngine } from "../../../player/engine/live_snapshot.ts";
import type { Project } from "../../../protocol/model.ts";
import type { PlayState, StateUpdate } from "../../../protocol/state.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";

function engineOn(project: Project = fixtureProject(), clock = new VirtualClock()) {
  const updates: StateUpdate[] = [];
  const engine = new ProjectEngine(project, {
    clock,
    emit: (u) => updates.push(u),
    onClipStarted: () => {},
    positionIntervalMs: 0,
  });
  return { engine, clock, updates };
}

/** Through JSON and the schema, as the file is written and read. */
const throughDisk = (saved: ProjectLive) => ProjectLive.parse(JSON.parse(JSON.stringify(saved)));

const withoutAt = ({ at: _at, ...rest }: PlayState) => rest;

/** A show in progress: Song s1 at 3 s, c1 playing at speed 1.5, cbg paused, c2 held, Controls set. */
function showAt3s() {
  const a = engineOn(undefined, new VirtualClock(1000));
  a.engine.selectSong("s1", { keepPlaying: false });
  a.engine.playSong();
  a.engine.startClip("c1", { velocity: 100 });
  a.engine.startClip("cbg");
  a.engine.startClip("c2"); // Gate: held while playing
  a.engine.setControlValue("A", 0.25);
  a.engine.setParam("c1", "opacity", 0.25);
  a.engine.setParam("c1", "speed", 1.5);
  a.engine.settle();
  a.clock.advance(2000);
  a.engine.pauseClip("cbg");
  a.clock.advance(1000);
  a.engine.selectClip("c3");
  return a;
}

Deno.test("captureEngine() and restoreEngine() round trip the show on a fresh clock", () => {
  const a = showAt3s();
  const saved = throughDisk(captureEngine(a.engine));
  assert.equal(saved.song?.position, 3);

  const b = engineOn(); // a restarted player: its clock starts again at 0
  const skipped = restoreEngine(b.engine, saved, 0);
  assert.deepEqual(skipped, []);
  assert.deepEqual(withoutAt(b.engine.playState()), withoutAt(a.engine.playState()));
  assert.deepEqual(b.engine.live, a.engine.live);
  assert.equal(b.engine.voice("c2")?.held, true);
  assert.equal(b.engine.voice("c1")?.velocity, 100);
  assert.deepEqual(b.updates, [], "a restore announces nothing: the snapshot carries it");

  // Both continue alike.
  a.clock.advance(3500);
  b.clock.advance(3500);
  assert.deepEqual(withoutAt(b.engine.playState()), withoutAt(a.engine.playState()));
  assert.equal(b.engine.playState().song?.lyricIndex, 1);
  assert.ok(b.engine.voice("c4"), "the cue at 5 s fired after the restore");
  a.engine.dispose();
  b.engine.dispose();
});

Deno.test("restoreEngine() continues what played by the time that passed, ending what would have ended", () => {
  const a = engineOn();
  a.engine.selectSong("s1", { keepPlaying: false });
  a.engine.playSong();
  a.engine.startClip("c1"); // 10 s
  a.engine.startClip("c3"); // 6 s
  a.engine.startClip("c7"); // 10 s, backward
  a.engine.startClip("cbg"); // 30 s loop
  a.engine.settle();
  a.clock.advance(3000);
  a.engine.pauseClip("c1");
  const saved = throughDisk(captureEngine(a.engine));

  const b = engineOn();
  restoreEngine(b.engine, saved, 4000); // the player was down 4 s
  const ps = b.engine.playState();
  assert.equal(ps.song?.position, 7);
  assert.equal(ps.song?.lyricIndex, 1, "the lyric at 6 s shows");
  const at = (id: string) => ps.clips.find((c) => c.clipID === id);
  assert.equal(at("c1")?.state, "paused", "a paused Clip stays where it was");
  assert.equal(at("c1")?.position, 3);
  assert.equal(at("c3"), undefined, "c3 (6 s) would have ended at 6 s: it ended");
  assert.equal(at("c7")?.position, 3, "backward from 10 s, 7 s later");
  assert.equal(at("cbg")?.position, 7);
  assert.equal(at("c4")?.state, "playing", "the cue at 5 s, missed while down, fired");
  assert.equal(b.engine.voice("c4")?.anchorPos, 0);

  // Far later: the Song ended, the loop goes on.
  const c = engineOn();
  restoreEngine(c.engine, saved, 60_000);
  const later = c.engine.playState();
  assert.equal(later.song?.state, "stopped");
  assert.deepEqual(later.clips.map((x) => x.clipID).sort(), ["c1", "cbg"]);
  assert.equal(later.clips.find((x) => x.clipID === "cbg")?.position, 3);
  for (const e of [a, b, c]) e.engine.dispose();
});

Deno.test("restoreEngine() skips what no longer exists and keeps the rest", () => {
  const a = showAt3s();
  const saved = throughDisk(captureEngine(a.engine));
  a.engine.dispose();

  // The project changed while the player was down: c1 and Song s1 are gone.
  const project = fixtureProject();
  project.clips = project.clips.filter((c) => c.id !== "c1");
  project.songs = project.songs.filter((s) => s.id !== "s1");
  const b = engineOn(project);
  const skipped = restoreEngine(b.engine, saved, 0);
  assert.deepEqual(skipped.sort(), [
    'Clip "c1" (parameters)',
    'Clip "c1" (voice)',
    'Song "s1"',
  ]);
  const ps = b.engine.playState();
  assert.equal(ps.activeSongID, "s2", "the first Song, as at any start");
  assert.equal(ps.song?.state, "stopped");
  assert.deepEqual(ps.clips.map((c) => c.clipID).sort(), ["c2", "cbg"]);
  assert.deepEqual(b.engine.live, { controls: { A: 0.25 }, params: {} });
  b.engine.dispose();
});

Deno.test("ProjectLive rejects a saved state that is not one", () => {
  assert.throws(() => ProjectLive.parse({ activeSongId: 3 }));
  assert.throws(() =>
    ProjectLive.parse({
      activeSongId: null,
      selectedClipId: null,
      song: null,
      voices: [{ clipId: "c1", state: "playing", position: "far" }],
      live: { controls: {}, params: {} },
    })
  );
});
