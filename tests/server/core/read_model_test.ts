import assert from "node:assert/strict";
import { ReadModel } from "../../../server/core/read_model.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";
import { NO_RECORDING, type Snapshot } from "../../../protocol/state.ts";
import { BUILT_IN_PRESETS } from "../../../player/presets.ts";

function snapshot(): Snapshot {
  const project = fixtureProject();
  return {
    player: { name: "p", version: "1" },
    entitlements: { apiAccess: true },
    activeProjectId: "show",
    projects: [project],
    now: 0,
    playstates: [{
      projectId: "show",
      at: 0,
      activeSongID: "s1",
      selectedClipID: "c1",
      song: null,
      clips: [],
    }],
    live: { show: { controls: {}, params: {} } },
    library: [],
    problems: [],
    appState: {
      fullScreen: false,
      muted: false,
      volume: 1,
      recording: NO_RECORDING,
      editor: null,
      windowReloads: 0,
      lastReloadAt: null,
      output: { renderScale: 1, reason: null },
      outputDisplay: null,
    },
    presets: [...BUILT_IN_PRESETS],
    cameras: [],
  };
}

Deno.test("ReadModel.apply() keeps every one of the eight update types current", () => {
  const model = new ReadModel();
  model.apply({
    updateType: "volume",
    projectId: null,
    data: { event: "x", level: 0.1, muted: true },
  });
  assert.equal(model.appState, null, "nothing applies before a snapshot");
  model.load(snapshot());

  const song = { ...fixtureProject().songs[1]!, title: "Renamed" };
  model.apply({
    updateType: "song",
    projectId: "show",
    data: { event: "song-changed", song, revision: 4 },
  });
  assert.equal(model.song("show", "s2")!.title, "Renamed");
  assert.equal(model.project("show")!.revision, 4);

  const clip = { ...fixtureProject().clips[0]!, id: "c-new" };
  model.apply({
    updateType: "clip",
    projectId: "show",
    data: { event: "clip-changed", clip, revision: 5 },
  });
  assert.equal(model.clip("show", "c-new")!.id, "c-new");
  model.apply({
    updateType: "clip",
    projectId: "show",
    data: { event: "param-changed", clipID: "c1", parameter: "hue", value: 3 },
  });
  assert.equal(model.live("show").params.c1!.hue, 3);

  const playstate = {
    at: 0,
    projectId: "show",
    activeSongID: "s2",
    selectedClipID: "c5",
    song: null,
    clips: [],
  };
  model.apply({
    updateType: "playstate",
    projectId: "show",
    data: { event: "selection-changed", playstate },
  });
  assert.equal(model.playstate("show")!.activeSongID, "s2");
  model.apply({
    updateType: "playstate",
    projectId: "show",
    data: { event: "control-changed", controlID: "Q", value: 0.7 },
  });
  assert.equal(model.live("show").controls.Q, 0.7);

  model.apply({
    updateType: "volume",
    projectId: null,
    data: { event: "volume-changed", level: 0.2, muted: true },
  });
  assert.deepEqual([model.appState!.volume, model.appState!.muted], [0.2, true]);
  model.apply({
    updateType: "appState",
    projectId: null,
    data: { event: "x", appState: { ...snapshot().appState, fullScreen: true } },
  });
  assert.equal(model.appState!.fullScreen, true);

  model.apply({
    updateType: "presets",
    projectId: null,
    data: { event: "presets-changed", presets: [] },
  });
  assert.equal(model.presets.length, 0);

  const renamed = { ...fixtureProject(), name: "New name" };
  model.apply({
    updateType: "project",
    projectId: "show",
    data: { event: "project-changed", project: renamed },
  });
  assert.equal(model.project("show")!.name, "New name");
  assert.equal(model.clip("show", "c-new"), undefined, "indexes follow a replaced project");

  model.apply({
    updateType: "full",
    projectId: null,
    data: { event: "reloaded", state: snapshot() },
  });
  assert.equal(model.project("show")!.name, "Fixture Show");
  assert.equal(model.presets.length, BUILT_IN_PRESETS.length);
  assert.equal(model.appState!.volume, 1);
});
