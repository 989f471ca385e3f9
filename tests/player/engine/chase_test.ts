import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { ProjectEngine } from "../../../player/engine/project_engine.ts";
import { chaseSettings } from "../../../player/engine/chase.ts";
import type { StateUpdate } from "../../../protocol/state.ts";
import {
  formatTimecode,
  type ProjectTimecode,
  type TimecodeState,
} from "../../../protocol/timecode.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";

const FRAME = 1 / 25;
const HOUR = 3600;

/**
 * An engine of the fixture Project (Song s1: 20 s of audio, cue q1 at 5 s, q2 at 8 s) on a
 * virtual clock, chasing code at 25 fps that starts at 01:00:00:00 unless a test says otherwise.
 */
function setup(timecode: Partial<ProjectTimecode> = {}, songOffsets: Record<string, string> = {}) {
  const clock = new VirtualClock(0);
  const updates: StateUpdate[] = [];
  const reports: TimecodeState[] = [];
  const project = fixtureProject();
  project.timecode = {
    chase: true,
    frameRate: 25,
    offset: "01:00:00:00",
    freewheel: 0.5,
    ...timecode,
  };
  for (const [songId, offset] of Object.entries(songOffsets)) {
    project.songs.find((s) => s.id === songId)!.timecode = { chase: null, offset };
  }
  const engine = new ProjectEngine(project, {
    clock,
    emit: (u) => updates.push(u),
    onClipStarted: () => {},
    positionIntervalMs: 0,
    onTimecode: (s) => reports.push(s),
  });
  const code = (seconds: number, motion: "forward" | "locate" | "stopped" = "forward") =>
    engine.timecode({ seconds, rate: 25, motion, source: "test" });
  /** Sends running code from `from` for `ms`, a sample every 2 frames, the code at `speed`. */
  const run = (from: number, ms: number, speed = 1) => {
    for (let t = 80; t <= ms; t += 80) {
      clock.advance(80);
      code(from + (t / 1000) * speed);
    }
    return from + (ms / 1000) * speed;
  };
  const song = () => engine.songTransport!;
  const events = (name: string) => updates.filter((u) => u.data.event === name);
  return { clock, engine, code, run, song, events, reports };
}

Deno.test("Chase starts the Song at the code's position less the offset, within 2 frames", () => {
  const { code, run, song, clock, engine } = setup();
  const state = code(HOUR + 2);
  assert.equal(state.status, "locked");
  assert.equal(state.timecode, "01:00:02:00");
  assert.equal(song().state, "playing");
  assert.equal(song().position(clock.now()), 2);
  const at = run(HOUR + 2, 2000);
  assert.ok(Math.abs(song().position(clock.now()) - (at - HOUR)) <= 2 * FRAME);
  assert.equal(engine.playState().song?.state, "playing");
});

Deno.test("Chase corrects drift past a frame: code 0.5% fast stays within 2 frames", () => {
  const { run, song, clock, code } = setup();
  code(HOUR);
  let worst = 0;
  let at = HOUR;
  for (let i = 0; i < 100; i++) {
    at = run(at, 80, 1.005);
    worst = Math.max(worst, Math.abs(song().position(clock.now()) - (at - HOUR)));
  }
  assert.ok(worst <= 2 * FRAME, `worst ${worst}`);
});

Deno.test("Chase follows a jump of the code at once, both ways", () => {
  const { run, song, clock, code, events } = setup();
  code(HOUR + 1);
  run(HOUR + 1, 400);
  clock.advance(80);
  code(HOUR + 12);
  assert.equal(song().position(clock.now()), 12);
  clock.advance(80);
  code(HOUR + 3);
  assert.equal(song().position(clock.now()), 3);
  assert.deepEqual(events("song-seeked").map((u) => u.data.position), [1, 12, 3]);
});

Deno.test("Chase freewheels over a 0.3 s dropout and locks again without a seek", () => {
  const { run, song, clock, code, engine, events } = setup();
  code(HOUR);
  let at = run(HOUR, 400);
  clock.advance(300);
  assert.equal(
    engine.timecode({ seconds: at, rate: 25, motion: "stopped", source: "" }).status,
    "freewheeling",
  );
  assert.equal(song().state, "playing");
  assert.ok(
    Math.abs(song().position(clock.now()) - (at + 0.3 - HOUR)) < 1e-9,
    "plays on at speed 1",
  );
  at += 0.3;
  const seeks = events("song-seeked").length;
  at = run(at, 160);
  assert.equal(code(at).status, "locked");
  assert.equal(events("song-seeked").length, seeks, "no seek: the Song kept time");
});

Deno.test("Chase says freewheeling when samples stop, without a stopped sample", () => {
  const { run, clock, code, reports } = setup();
  code(HOUR);
  run(HOUR, 160);
  clock.advance(200);
  assert.equal(reports.at(-1)?.status, "freewheeling");
});

Deno.test("Chase pauses the Song at the code's last position once the freewheel runs out", () => {
  const { run, song, clock, code, reports } = setup({ freewheel: 0.5 });
  code(HOUR);
  const at = run(HOUR, 800);
  clock.advance(499);
  assert.equal(song().state, "playing");
  clock.advance(1);
  assert.equal(song().state, "paused");
  assert.ok(Math.abs(song().position(clock.now()) - (at - HOUR)) < 1e-9);
  assert.equal(reports.at(-1)?.status, "waiting");
});

Deno.test("Chase leaves a Song selected during the freewheel alone when it runs out", () => {
  const { run, song, clock, code, engine } = setup({ freewheel: 0.5 });
  code(HOUR);
  run(HOUR, 400);
  engine.selectSong("s2", { keepPlaying: false });
  engine.playSong();
  clock.advance(1000);
  assert.equal(song().songId, "s2");
  assert.equal(song().state, "playing");
});

Deno.test("Chase turned off by an edit while the code runs leaves the Song playing, status off", () => {
  const { run, song, clock, code, engine, reports } = setup({ freewheel: 0.5 });
  code(HOUR);
  run(HOUR, 400);
  engine.setProject({ ...engine.project, timecode: { ...engine.project.timecode!, chase: false } });
  clock.advance(1000);
  assert.equal(song().state, "playing");
  assert.equal(reports.at(-1)?.status, "off");
});

Deno.test("Chase takes a Song's own offset over the Project's", () => {
  const { code, song, clock, engine } = setup({}, { s2: "01:02:00:00" });
  engine.selectSong("s2", { keepPlaying: false });
  const state = code(HOUR + 125);
  assert.equal(state.songID, "s2");
  assert.equal(state.position, 5);
  assert.equal(song().position(clock.now()), 5);
});

Deno.test("Chase leaves the Song alone when chasing is off for it", () => {
  const { code, song } = setup({ chase: false });
  assert.equal(code(HOUR + 2).status, "off");
  assert.equal(song().state, "stopped");
});

Deno.test("Chase waits before the Song's start (a pre-roll) and starts at 0", () => {
  const { code, run, song, clock } = setup();
  assert.equal(code(HOUR - 1).status, "waiting");
  assert.equal(song().state, "stopped");
  run(HOUR - 1, 1040);
  assert.equal(song().state, "playing");
  assert.ok(song().position(clock.now()) <= 2 * FRAME);
});

Deno.test("Chase fires each cue once while drift corrections step back over it", () => {
  const { run, code, events, clock, song } = setup();
  code(HOUR + 4.9);
  clock.advance(120); // the Song passes q1 (5 s) at 5.02 ...
  assert.deepEqual(events("cue-fired").map((u) => u.data.cueId), ["q1"]);
  code(HOUR + 4.96); // ... while the code, late, says 4.96: a correction back over q1
  assert.ok(Math.abs(song().position(clock.now()) - 4.96) < 1e-9);
  run(HOUR + 4.96, 3200); // and on past q2 (8 s)
  assert.deepEqual(events("cue-fired").map((u) => u.data.cueId), ["q1", "q2"]);
});

Deno.test("Chase: a locate (full frame) moves the stopped Song there, paused", () => {
  const { code, song, clock } = setup();
  assert.equal(code(HOUR + 7, "locate").status, "waiting");
  assert.notEqual(song().state, "playing");
  assert.equal(song().position(clock.now()), 7);
});

Deno.test("chaseSettings() refuses an offset past the rate (project.json edited by hand), naming the edit", () => {
  const project = fixtureProject();
  project.timecode = { chase: true, frameRate: 24, offset: "01:00:00:00", freewheel: 1 };
  project.songs[0]!.timecode = { chase: null, offset: "01:00:00:24" };
  assert.throws(
    () => chaseSettings(project, "s1"),
    /frames go 00-23; set the offset with song.set_timecode of "s1"/,
  );
  assert.equal(chaseSettings(project, "s2")?.offset, 3600);
  assert.equal(chaseSettings(project, null), null);
});

Deno.test("Chase tells its state on a change of status, else at most once a second", () => {
  const { code, run, reports } = setup();
  code(HOUR);
  run(HOUR, 2400); // 30 samples, all locked
  assert.deepEqual(reports.map((r) => r.status), ["locked", "locked", "locked"]);
  assert.deepEqual(reports.map((r) => r.timecode), ["01:00:00:00", "01:00:01:01", "01:00:02:02"]);
});

Deno.test("Chase: code running backwards holds the Song paused at the position named", () => {
  const { code, run, song, clock, engine } = setup();
  code(HOUR + 6);
  run(HOUR + 6, 400);
  clock.advance(80);
  const state = engine.timecode({ seconds: HOUR + 5, rate: 25, motion: "backward", source: "" });
  assert.equal(state.status, "waiting");
  assert.equal(song().state, "paused");
  assert.equal(song().position(clock.now()), 5);
});

Deno.test("Chase counts a sample's age: one that waited does not set the running Song back", () => {
  const { run, song, clock, code, engine, events } = setup();
  code(HOUR);
  const at = run(HOUR, 400);
  clock.advance(200);
  const before = song().position(clock.now());
  assert.ok(Math.abs(before - (at + 0.2 - HOUR)) < 1e-9);
  // Read 120 ms ago, when the code said at + 0.08: it is at + 0.2 now, where the Song is.
  const state = engine.timecode({
    seconds: at + 0.08,
    rate: 25,
    motion: "forward",
    source: "test",
    age: 120,
  });
  assert.equal(state.status, "locked");
  assert.equal(song().position(clock.now()), before, "not re-anchored backwards");
  assert.ok(Math.abs(state.position! - (at + 0.2 - HOUR)) < 1e-9, `${state.position}`);
  assert.equal(state.timecode, formatTimecode(at + 0.08, 25), "the code as read");
  const seeks = events("song-seeked").length;
  // A locate stands where it says, whatever its age.
  engine.timecode({ seconds: HOUR + 7, rate: 25, motion: "locate", source: "test", age: 500 });
  assert.equal(song().position(clock.now()), 7);
  assert.equal(events("song-seeked").length, seeks + 1);
});
