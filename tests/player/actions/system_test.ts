import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";

Deno.test("OUTPUT_LEVEL_IN, MUTE_TOGGLE, FULLSCREEN_TOGGLE change app state and emit updates", async () => {
  const f = await openFixture();
  try {
    await f.run("OUTPUT_LEVEL_IN", { level: 0.4 });
    assert.equal(f.app.appState.volume, 0.4);
    assert.deepEqual(f.events().slice(-2), ["volume:volume-changed", "appState:volume-changed"]);
    const volume = f.updates.at(-2)!;
    assert.equal(volume.projectId, null);
    assert.deepEqual({ level: volume.data.level, muted: volume.data.muted }, {
      level: 0.4,
      muted: false,
    });
    assert.equal((await f.run("OUTPUT_LEVEL_IN", { level: 0.4 })).applied, false);
    await f.run("MUTE_TOGGLE");
    assert.equal(f.app.appState.muted, true);
    await f.run("FULLSCREEN_TOGGLE");
    assert.equal(f.app.appState.fullScreen, true);
    await f.app.close(); // flushes settings
    const saved = JSON.parse(await Deno.readTextFile(`${f.dataDir}/player.json`));
    assert.deepEqual(
      { volume: saved.volume, muted: saved.muted, fullScreen: saved.fullScreen },
      { volume: 0.4, muted: true, fullScreen: true },
    );
  } finally {
    await f.close();
  }
});

Deno.test("RECORD_TOGGLE follows the state table and writes a log of what played", async () => {
  const f = await openFixture();
  try {
    await f.run("RECORD_TOGGLE", { mode: "next-trigger" });
    assert.equal(f.app.appState.recording.state, "armed");
    await f.run("RECORD_TOGGLE", { mode: "now" }); // armed -> idle, mode ignored
    assert.equal(f.app.appState.recording.state, "idle");
    await f.run("RECORD_TOGGLE", { mode: "next-trigger" });
    await f.run("SEEK_CLIP_IN", { clipID: "c3", percent: 0.5 }); // cueing a Clip is not a trigger
    assert.equal(f.app.appState.recording.state, "armed");
    await f.run("TRIGGER_CLIP_IN", { clipID: "c1" });
    assert.equal(f.app.appState.recording.state, "recording");
    const file = f.app.appState.recording.file!;
    f.clock.advance(1500);
    await f.run("STOP_CLIP_IN", { clipID: "c1" });
    await f.run("RECORD_TOGGLE", { mode: "next-trigger" }); // recording -> idle
    assert.equal(f.app.appState.recording.state, "idle");
    const lines = (await Deno.readTextFile(`${f.dataDir}/${file}`)).trim().split("\n").map((l) =>
      JSON.parse(l)
    );
    assert.equal(lines[0].event, "recording-started");
    assert.equal(lines[0].trigger, "next-trigger");
    const stop = lines.find((l) =>
      l.event === "clip-play-state-changed" && l.newState === "stopped"
    );
    assert.equal(stop.clipID, "c1");
    assert.equal(stop.ms, 1500);
    assert.equal(lines.at(-1).event, "recording-stopped");
    await f.run("RECORD_TOGGLE");
    assert.equal(f.app.appState.recording.state, "recording", "mode defaults to now");
  } finally {
    await f.close();
  }
});

Deno.test("PANIC reloads windows; OPEN_EDITOR opens an existing preset of the right kind", async () => {
  const f = await openFixture();
  try {
    await f.run("PANIC");
    await f.run("PANIC");
    assert.equal(f.app.appState.windowReloads, 2);
    assert.ok(f.app.appState.lastReloadAt);
    await f.run("OPEN_EDITOR", { kind: "visualizer", presetID: "viz-spectrum" });
    assert.deepEqual(
      { kind: f.app.appState.editor?.kind, presetId: f.app.appState.editor?.presetId },
      { kind: "visualizer", presetId: "viz-spectrum" },
    );
    // No output runs here: the editor is open in the state, and says its window is not shown.
    assert.equal(f.app.appState.editor?.shown, false);
    await assert.rejects(
      f.run("OPEN_EDITOR", { kind: "effect", presetID: "viz-spectrum" }),
      /is a visualizer preset, not effect/,
    );
    await assert.rejects(
      f.run("OPEN_EDITOR", { kind: "effect", presetID: "nope" }),
      /Preset "nope" does not exist/,
    );
  } finally {
    await f.close();
  }
});

Deno.test("runAction refuses invalid normalized params and unknown projects", async () => {
  const f = await openFixture();
  try {
    await assert.rejects(
      f.run("SEEK_CLIP_IN", { clipID: "c1", percent: 2 }),
      /Invalid params for SEEK_CLIP_IN: percent/,
    );
    await assert.rejects(f.run("NOPE"), /Unknown action "NOPE"/);
    await assert.rejects(
      f.app.runAction({ name: "PLAY_IN", params: {}, projectId: "ghost" }),
      /Project "ghost" does not exist/,
    );
  } finally {
    await f.close();
  }
});
