import assert from "node:assert/strict";
import { buildRenderState, shaderPass } from "../../../player/output/render_state.ts";
import { BUILT_IN_PRESETS } from "../../../player/presets.ts";
import { NO_RECORDING, type PlayState } from "../../../protocol/state.ts";
import { outputProject } from "../../../tools/testing/output.ts";

const appState = {
  fullScreen: false,
  muted: false,
  volume: 0.8,
  recording: NO_RECORDING,
  editor: null,
  windowReloads: 0,
  lastReloadAt: null,
  output: { renderScale: 1, reason: null },
  outputDisplay: null,
};

function playState(clips: PlayState["clips"], song: PlayState["song"] = null): PlayState {
  return { projectId: "out", at: 1000, activeSongID: "song", selectedClipID: null, song, clips };
}

const play = (clipID: string, extra: Partial<PlayState["clips"][number]> = {}) => ({
  clipID,
  songID: null,
  state: "playing" as const,
  position: 1,
  duration: 10,
  direction: "forward" as const,
  loop: false,
  speed: 1,
  velocity: 127,
  gain: 1,
  held: false,
  ...extra,
});

/** The Song playing 3 s in. */
const song = {
  songID: "song",
  state: "playing" as const,
  position: 3,
  duration: 30,
  lyricIndex: -1,
};

function build(clips: PlayState["clips"], options: {
  live?: { controls: Record<string, number>; params: Record<string, Record<string, number>> };
  song?: PlayState["song"];
  muted?: boolean;
  presets?: typeof BUILT_IN_PRESETS;
} = {}) {
  return buildRenderState({
    project: outputProject(),
    playState: playState(clips, options.song ?? null),
    live: options.live ?? { controls: {}, params: {} },
    appState: { ...appState, muted: options.muted ?? false },
    presets: options.presets ?? BUILT_IN_PRESETS,
    cameras: [],
  }, { seq: 7, clock: { now: 1500, rate: 1 }, idleSince: 400 });
}

Deno.test("buildRenderState() lays the playing Clips in the Project's order, not the play order", () => {
  const state = build([play("white"), play("black")]);
  assert.deepEqual(state.layers.map((l) => l.clipId), ["black", "white"]);
  assert.equal(state.layers[1]!.opacity, 0.5);
  assert.equal(state.layers[0]!.source, "media/out/f-black");
  assert.equal(state.seq, 7);
});

Deno.test("buildRenderState() gives a backward Clip a negative rate and a paused one none", () => {
  const state = build([
    play("ramp-back", { direction: "backward", speed: 2 }),
    play("red", { state: "paused" }),
  ]);
  const rates = Object.fromEntries(state.layers.map((l) => [l.clipId, l.rate]));
  assert.deepEqual(rates, { red: 0, "ramp-back": -2 });
});

Deno.test("buildRenderState() takes live parameters over the Clip's, Effect ones included", () => {
  const state = build([play("quad", { gain: 0.5 })], {
    live: { controls: {}, params: { quad: { brightness: 0.3, volume: 0.8, "kal.segments": 9 } } },
  });
  const layer = state.layers[0]!;
  assert.equal(layer.filters.brightness, 0.3);
  assert.equal(layer.volume, 0.4, "volume times the velocity gain");
  assert.deepEqual(layer.effects, [{
    program: "kaleidoscope",
    uniforms: { segments: 9, mirror: false },
  }]);
});

Deno.test("buildRenderState() plays the background Clip from when nothing played", () => {
  const state = build([]);
  assert.equal(state.layers.length, 1);
  assert.deepEqual(
    [state.layers[0]!.clipId, state.layers[0]!.at, state.layers[0]!.rate, state.layers[0]!.loop],
    ["green", 400, 1, true],
  );
});

Deno.test("buildRenderState() plays the Song's audio with its visualizers; muted is level 0", () => {
  const state = build([play("red")], { song, muted: true });
  assert.deepEqual(state.song, {
    source: "media/out/f-tone",
    position: 3,
    at: 1000,
    rate: 1,
    volume: 1,
  });
  assert.deepEqual(state.visualizers, [{ program: "bars", uniforms: { bands: 64, style: 0 } }]);
  assert.equal(state.level, 0);
  assert.deepEqual(build([play("red")], { song: { ...song, state: "stopped" } }).song, null);
});

Deno.test("buildRenderState() draws the Effects and Visualizers of a quarantined preset as if off", () => {
  const quarantine = { at: "2026-11-29T09:00:00.000Z", reason: "the page drew no frame" };
  const presets = BUILT_IN_PRESETS.map((p) =>
    p.id === "fx-kaleidoscope" || p.id === "viz-spectrum" ? { ...p, quarantine } : p
  );
  const drawn = build([play("quad")], { song });
  assert.equal(drawn.layers[0]!.effects.length, 1);
  assert.equal(drawn.visualizers.length, 1);
  const off = build([play("quad")], { song, presets });
  assert.deepEqual(off.layers[0]!.effects, []);
  assert.deepEqual(off.visualizers, []);
  assert.equal(off.layers[0]!.clipId, "quad", "the Clip itself still plays");
});

Deno.test("shaderPass() turns colours into RGB and enums into their index", () => {
  const pass = shaderPass(
    {
      id: "c",
      name: "c",
      type: "color-shift",
      presetId: null,
      enabled: true,
      params: { tint: "#ff8000" },
    },
    { presets: BUILT_IN_PRESETS },
  );
  assert.deepEqual(pass.uniforms, { hue: 0, tint: [1, 128 / 255, 0] });
  const bars = shaderPass(
    {
      id: "v",
      name: "v",
      engine: "bars",
      presetId: "viz-spectrum",
      enabled: true,
      params: { style: "outline" },
    },
    { presets: BUILT_IN_PRESETS },
  );
  assert.equal(bars.uniforms.style, 1);
});

Deno.test("buildRenderState() gives a Visualizer the live values written through any Clip", () => {
  const state = build([play("red")], {
    song,
    live: { controls: {}, params: { black: { "bars.bands": 12 } } },
  });
  assert.deepEqual(state.visualizers, [{ program: "bars", uniforms: { bands: 12, style: 0 } }]);
});
