/**
 * The output degrades, it does not go dark: a page that cannot draw its frames in their
 * budget draws at a lower scale, says so once per change (`appState.output`, one log
 * line, `Output.stats.renderScale`), and its picture still shows the show. Forced here by
 * a tiny frame budget (every second is slow), not by loading the machine: the real
 * headless Chromium, on a virtual clock.
 */
import assert from "node:assert/strict";
import type { AppState, StateUpdate } from "../../../protocol/state.ts";
import { needs } from "../../_helpers/peers.ts";
import { H, near, openOutputPlayer, untilOutput, W } from "../../_helpers/output.ts";

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
