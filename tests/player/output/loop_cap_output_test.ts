/**
 * A preset whose shader loops without end, put on the playing Clip, is drawn: its loops stop
 * at the cap the check inserted (`player/isf/loop_cap.ts`), the page draws the frame, and the
 * picture is what the shader made of LOOP_CAP iterations. One service in this process, its
 * player in this process too (on a virtual clock) with a headless output: one browser.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/mod.ts";
import { LOOP_CAP } from "../../../player/isf/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { decodePng, pixel } from "../../../tools/testing/images.ts";
import { near, openOutputService, outputDataDir } from "../../../tools/testing/output.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** An effect whose main loops for ever (`loop`), then shows magenta once it ran LOOP_CAP times. */
function endless(loop: string): string {
  return INVERT.replace(
    /void main\(\) \{[\s\S]*\}/,
    `void main() {
  float n = 0.0;
  ${loop}
  gl_FragColor = n >= ${LOOP_CAP}.0 ? vec4(1.0, 0.0, 1.0, 1.0) : vec4(0.0, 1.0, 0.0, 1.0);
}`,
  );
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "A capped endless loop on the playing Clip still lets the output draw its frames",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dataDir = await outputDataDir();
    const { output, base, stop } = await openOutputService(dataDir, { clock: new VirtualClock() });
    const edit = async (name: string, params: unknown) => {
      const res = await fetch(`${base}/api/v1/edit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, params }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body;
    };
    const centre = async () => {
      const picture = decodePng(await output.frame());
      return pixel(picture, picture.width / 2, picture.height / 2).slice(0, 3);
    };
    try {
      await fetch(`${base}/api/v1/action`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "TRIGGER_CLIP_IN", params: ["red"] }),
      }).then((r) => r.body?.cancel());
      assert(near(await centre(), [255, 0, 0]), "red before the effect");
      for (const loop of ["for (;;) { n += 1.0; }", "while (true) n += 1.0;"]) {
        const preset = {
          kind: "effect",
          name: `Endless ${loop.slice(0, 5)}`,
          type: "isf",
          code: endless(loop),
        };
        const presetID = (await edit("preset.add", preset)).edits[0].created.presetID;
        const effectID = (await edit("effect.add", { presetID })).edits[0].created.effectID;
        await edit("clip.update", { clipID: "red", options: { effects: [effectID] } });
        const rgb = await centre();
        assert(near(rgb, [255, 0, 255]), `${loop}: drawn, its loop stopped at the cap: ${rgb}`);
        const before = output.reports.length;
        await centre();
        assert.ok(output.reports.length >= before, "frames still reported");
      }
    } finally {
      await stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
