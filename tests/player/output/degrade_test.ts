/**
 * The output degrades, it does not go dark: a page that cannot draw its frames in their
 * budget draws at a lower scale, says so once per change (`appState.output`, one log
 * line, `Output.stats.renderScale`), and its picture still shows the show. Forced here by
 * a tiny frame budget (every second is slow), not by loading the machine: the real
 * headless Chromium, on a virtual clock.
 */
import assert from "node:assert/strict";
import type { AppState, StateUpdate } from "../../../protocol/state.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { H, near, openOutputPlayer, untilOutput, W } from "../../../tools/testing/output.ts";

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "Output: a page over its frame budget draws at a lower scale and says so once per step",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const p = await openOutputPlayer({ frameBudgetMs: 0.001 });
    const updates: StateUpdate[] = [];
    p.app.onUpdate = (update) => void updates.push(update);
    try {
      assert.deepEqual(p.app.appState.output, { renderScale: 1, reason: null });
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      await untilOutput(p.output, "the smallest scale", () => p.output.stats.renderScale === 0.35);
      const said = updates.filter((u) => u.data.event === "output-scale-changed");
      assert.deepEqual(
        said.map((u) => (u.data.appState as AppState).output.renderScale),
        [0.75, 0.5, 0.35],
        "one appState update per step",
      );
      assert.equal(p.app.appState.output.renderScale, 0.35);
      assert.match(
        p.app.appState.output.reason!,
        /^the page drew [\d.]+ frames a second of 30 at scale 0\.5$/,
      );
      const lines = p.logs.filter((l) => l.includes("Output: drawing at scale"));
      assert.deepEqual(lines.map((l) => /scale ([\d.]+) \(was ([\d.]+)\)/.exec(l)!.slice(1)), [
        ["0.75", "1"],
        ["0.5", "0.75"],
        ["0.35", "0.5"],
      ]);
      assert.match(lines[0]!, /^warn: Output: drawing at scale 0\.75 \(was 1\): the page drew /);
      // The picture keeps the display's size and shows the show, drawn smaller and scaled up.
      const picture = await p.frame();
      assert.deepEqual([picture.width, picture.height], [W, H]);
      assert(near(await p.centre(), [255, 0, 0]), "the red Clip at the smallest scale");
    } finally {
      await p.close();
    }
  },
});

/**
 * The frame sizes of a WebM's video, in order, and their count, as ffprobe decodes them; of a file
 * still being written (`isWhole` false), those it decodes so far.
 */
async function frameSizes(path: string, isWhole = true): Promise<string[]> {
  const out = await new Deno.Command("ffprobe", {
    args: ["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height"]
      .concat(["-of", "csv=p=0", path]),
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (isWhole) assert(out.success, new TextDecoder().decode(out.stderr));
  return new TextDecoder().decode(out.stdout).trim().split("\n");
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "Output: a recording follows the render scale down, and ffprobe decodes every frame of it",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const p = await openOutputPlayer({ frameBudgetMs: 0.001 });
    try {
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      await p.run("RECORD_TOGGLE", { mode: "now" });
      await untilOutput(p.output, "the smallest scale", () => p.output.stats.renderScale === 0.35);
      // The encoder lags the page (seconds on a busy machine): the frames counted after the step
      // may have been drawn before it. The file is read as it grows until it holds a small one.
      const small = `${Math.round(W * 0.35)},${Math.round(H * 0.35)}`;
      const path = `${p.dataDir}/${p.app.appState.recording.file}`;
      let probedAt = -1;
      await untilOutput(p.output, "a frame at the smallest scale in the file", async () => {
        const frames = p.app.appState.recording.videoFrames;
        if (frames === probedAt) return false;
        probedAt = frames;
        return (await frameSizes(path, false)).includes(small);
      });
      await p.run("RECORD_TOGGLE", { mode: "now" });
      const recording = p.app.appState.recording;
      assert.equal(recording.error, null);
      const sizes = await frameSizes(`${p.dataDir}/${recording.file}`);
      assert.equal(sizes.length, recording.videoFrames, "every frame counted decodes");
      assert.equal(sizes[0], `${W},${H}`, "it began at the display's size");
      assert.equal(sizes.at(-1), small, "it ends at the lowered scale's size");
    } finally {
      await p.close();
    }
  },
});
