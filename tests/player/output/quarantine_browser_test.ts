/**
 * A shader that stops the output's frames, in the real headless browser: an
 * endless loop and a 10^7-iteration loop (each capped by the check, and still seconds a frame
 * at 1920x1080 in software GL), each put on the playing Clip, are
 * quarantined (the preset's field, the log line), the output draws again, and
 * the show's clock never stopped. Waits are on the output's progress, never
 * on the wall clock.
 */
import assert from "node:assert/strict";
import type { EditApplyParams } from "../../../protocol/edits/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { openOutputPlayer, type OutputPlayer, untilOutput } from "../../../tools/testing/output.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** INVERT whose every pixel first runs `loop` (which must leave `k` a float). */
function looping(loop: string): string {
  return INVERT.replace("void main() {", `void main() {\n  float k = 0.0;\n  ${loop}`)
    .replace("c.a);", "c.a + k * 1e-9);");
}

/** Never ends: `i` never moves, and the compiler cannot prove the break unreachable. */
const ENDLESS = looping(
  "for (int i = 0; i < 1; i += 0) { k = fract(k * 1.1 + gl_FragCoord.x * 0.001); if (k > 2.0) break; }",
);
/** Ends, after 10^7 iterations a pixel. */
const TEN_MILLION = looping(
  "for (int i = 0; i < 10000000; i++) { k = fract(k * 1.1 + gl_FragCoord.x * 0.001); }",
);

// deno-lint-ignore no-explicit-any
async function edit(p: OutputPlayer, name: string, params: unknown): Promise<any> {
  const result = await p.app.applyEdits(
    { projectId: null, edits: [{ name, params }] } as EditApplyParams,
  );
  return result.edits[0];
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "A shader that stops the output's frames is quarantined and the picture comes back",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const p = await openOutputPlayer({ realClock: true });
    try {
      await p.run("TRIGGER_CLIP_IN", { clipID: "green" });
      await untilOutput(p.output, "the green Clip drawn", () => p.output.stats.framesDrawn > 0);
      // Every loop is capped (LOOP_CAP iterations a pixel, player/isf/bounds.ts): at the tests'
      // small display either shader would draw. At 1920x1080 a capped loop still costs software GL
      // seconds a frame, as the uncapped one cost it for ever: the page's frames stop.
      await edit(p, "project.set_display", { width: 1920, height: 1080 });
      const clockAtStart = p.clock.now();
      for (const [name, code] of [["Endless", ENDLESS], ["Ten million", TEN_MILLION]]) {
        await t.step(`"${name}" on the playing Clip is quarantined, frames resume`, async () => {
          const preset = { kind: "effect", name, type: "isf", code };
          const presetID = (await edit(p, "preset.add", preset)).created.presetID;
          const effectID = (await edit(p, "effect.add", { presetID })).created.effectID;
          await edit(p, "clip.update", { clipID: "green", options: { effects: [effectID] } });
          const quarantined = () => p.app.presets().find((x) => x.id === presetID)?.quarantine;
          await untilOutput(p.output, `${name} quarantined`, () => !!quarantined());
          const drawnAt = p.output.stats.framesDrawn;
          await untilOutput(p.output, "frames again", () => p.output.stats.framesDrawn > drawnAt);
          assert(
            p.logs.some((l) => l.includes("quarantined") && l.includes(presetID)),
            p.logs.join("\n"),
          );
          const stored = JSON.parse(await Deno.readTextFile(`${p.dataDir}/presets.json`));
          assert.equal(
            stored.find((x: { id: string }) => x.id === presetID).quarantine.reason,
            quarantined()!.reason,
          );
          assert.deepEqual(await p.centre(), [0, 255, 0], "the Effect drawn as if off");
        });
      }
      const play = p.app.snapshot().playstates[0]!.clips.find((c) => c.clipID === "green");
      assert.equal(play?.state, "playing", "the Clip plays on");
      assert(p.clock.now() > clockAtStart, "the show's clock moved on");
    } finally {
      await p.close();
    }
  },
});
