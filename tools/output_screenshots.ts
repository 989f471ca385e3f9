/**
 * `deno task docs:output`: the pictures of `docs/output.md` and `docs/presets.md`, made by the
 * output itself. A player on the demo show (a fresh data dir) with a
 * headless output draws a few moments of the show; each picture is the
 * page's own (`output.frame`), written under `docs/`.
 * @module
 */
import { PlayerApp } from "../player/app.ts";
import { MonotonicClock } from "../player/clock.ts";
import type { NormalizedAction } from "../protocol/actions.ts";
import { CHROMIUM } from "./testing/browser.ts";

const DOCS = new URL("../docs/", import.meta.url).pathname;

const dataDir = await Deno.makeTempDir({ prefix: "cueport-output-docs-" });
const app = await PlayerApp.open({
  dataDir,
  clock: new MonotonicClock(),
  // A frame budget no load exceeds: the render scale stays 1, every picture at full size.
  output: { mode: "headless", browser: CHROMIUM, frameBudgetMs: 1e9 },
  log: (level, message) => level !== "info" && console.error(`${level}: ${message}`),
});
const run = (name: string, params: Record<string, string | number | boolean> = {}) =>
  app.runAction({ name, params, projectId: null } as NormalizedAction);
const edit = (name: string, params: Record<string, unknown>) =>
  app.applyEdits({ projectId: null, edits: [{ name, params }] });
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function shot(name: string): Promise<void> {
  const png = await app.output!.frame();
  await Deno.writeFile(`${DOCS}${name}`, png);
  console.log(`docs/${name}: ${png.length} bytes`);
}

/**
 * A wipe half way: the plain Checker (its Effects cleared) replaced by the Plasma Clip (the
 * GO step, `NEXT_CLIP_IN`) through a 4 s `tr-wipe` of the Song, the frame taken about 2 s in.
 */
async function transitionShot(plasmaClipId: string): Promise<void> {
  const seconds = 4;
  await run("STOP_IN");
  await edit("clip.update", { clipID: "clip-checker", options: { effects: [] } });
  await run("TRIGGER_CLIP_IN", { clipID: "clip-checker", activateSong: true });
  const wipe = { presetId: "tr-wipe", duration: seconds, params: { angle: 0, softness: 0.05 } };
  await edit("song.update", { songID: "song-opening", transition: wipe });
  await sleep(1000);
  const next = await run("NEXT_CLIP_IN");
  if (!JSON.stringify(next).includes(plasmaClipId)) throw new Error(JSON.stringify(next));
  await sleep((seconds * 1000) / 2);
  await shot("output-transition.png");
  await edit("song.update", { songID: "song-opening", transition: null });
  await sleep((seconds * 1000) / 2);
}

/**
 * A two-input Effect: the collection's Layer Mask imported, on the Aurora, its `maskImage`
 * bound to the Checker Clip, which plays unseen (opacity 0): the Aurora shows through the
 * Checker's white squares, black under its black ones.
 */
async function twoInputShot(): Promise<void> {
  await run("STOP_IN");
  const fixture = new URL("../tests/fixtures/isf_files/Layer Mask.fs", import.meta.url);
  const file = decodeURIComponent(fixture.pathname);
  const imported = await edit("preset.import", { path: file });
  const presetID = imported.edits[0]!.created!.presetID!;
  const added = await edit("effect.add", { presetID, params: { applyAlpha: true } });
  const effectID = added.edits[0]!.created!.effectID!;
  const source = { from: "clip", clipID: "clip-checker" };
  await edit("effect.set_input", { effectID, input: "maskImage", source });
  await edit("clip.update", { clipID: "clip-aurora", options: { effects: [effectID] } });
  await edit("clip.update", { clipID: "clip-checker", options: { opacity: 0 } });
  await run("TRIGGER_CLIP_IN", { clipID: "clip-checker" });
  await run("TRIGGER_CLIP_IN", { clipID: "clip-aurora" });
  await sleep(1000);
  await shot("output-two-inputs.png");
}

try {
  if (!app.output) throw new Error("No output: is Chromium installed?");
  await edit("project.set_display", { width: 960, height: 540 });
  // Two layers: the Aurora with its Soft Blur, the Rings over it at half opacity.
  await edit("clip.update", { clipID: "clip-rings", options: { opacity: 0.5 } });
  await run("TRIGGER_CLIP_IN", { clipID: "clip-aurora" });
  await run("TRIGGER_CLIP_IN", { clipID: "clip-rings" });
  await shot("output-layers.png");
  // The Checker through the kaleidoscope, its segments on Control K.
  const added = await edit("effect.add", { presetID: "fx-kaleidoscope", params: { segments: 8 } });
  const effectId = (added.edits[0]!.created as Record<string, string>).effectID!;
  await edit("clip.update", { clipID: "clip-checker", options: { effects: [effectId] } });
  await run("STOP_IN");
  await run("TRIGGER_CLIP_IN", { clipID: "clip-checker" });
  await shot("output-kaleidoscope.png");
  // The Sunset's Song playing: its audio feeds the spectrum bars over the Sunset.
  await run("STOP_IN");
  await run("TRIGGER_CLIP_IN", { clipID: "clip-sunset", activateSong: true });
  await run("PLAY_IN");
  await sleep(1500);
  await shot("output-visualizer.png");
  // A generator Clip: the built-in Plasma drawn with no file, a second into the Clip.
  await run("STOP_IN");
  const plasma = await edit("clip.add", {
    songID: "song-opening",
    generator: { presetId: "gen-plasma", params: { scale: 6 } },
  });
  await run("TRIGGER_CLIP_IN", { clipID: plasma.edits[0]!.created!.clipID! });
  await sleep(1000);
  await shot("output-generator.png");
  await transitionShot(plasma.edits[0]!.created!.clipID!);
  await twoInputShot();
  // Nothing plays: the background Clip.
  await run("STOP_IN");
  await shot("output-background.png");
} finally {
  await app.close();
  await Deno.remove(dataDir, { recursive: true });
}
