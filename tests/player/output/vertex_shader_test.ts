/**
 * A preset's own vertex shader on the output, in the real browser's pixels: ISF-Files'
 * `3d Rotate` (its `.fs` draws the input as it is, its `.vs` turns the quad in 3D), imported
 * with its `.vs`, draws the picture unchanged with no rotation and moved with `xrot` set; a
 * `.vs` GL refuses is reported at its own line.
 * One service in this process, its player in this process too (on a virtual clock) with a
 * headless output: one browser.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { decodePng, pixel, type Pixels } from "../../../tools/testing/images.ts";
import {
  H,
  near,
  openOutputService,
  outputDataDir,
  untilOutput,
  W,
} from "../../../tools/testing/output.ts";

const ISF_FILES = new URL("../../fixtures/isf_files/", import.meta.url);

/** How many pixels of `a` and `b` differ by more than 48 in a channel. */
function differing(a: Pixels, b: Pixels): number {
  let count = 0;
  for (let y = 0; y < H; y++) {
    for (let x = 0; x < W; x++) {
      const [p, q] = [pixel(a, x, y), pixel(b, x, y)];
      if (p.slice(0, 3).some((v, i) => Math.abs(v - q[i]!) > 48)) count++;
    }
  }
  return count;
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "3d Rotate's .vs moves the picture: the same with no rotation, moved with xrot set",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dataDir = await outputDataDir();
    const s = await openOutputService(dataDir, { clock: new VirtualClock() });
    const call = async (path: string, body: unknown) => {
      const res = await fetch(`${s.base}${path}`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await res.json();
      assert.equal(res.status, 200, JSON.stringify(answer));
      return answer;
    };
    const edit = async (name: string, params: unknown) =>
      (await call("/api/v1/edit", { name, params })).edits[0];
    const picture = async () => decodePng(await s.output.frame());
    try {
      // Left half red, right half blue.
      await call("/api/v1/action", { name: "TRIGGER_CLIP_IN", params: ["quad-plain"] });
      const input = await picture();
      const dir = await Deno.makeTempDir({ prefix: "cueport-vs-" });
      for (const ext of ["fs", "vs"]) {
        const file = new URL(`3d%20Rotate.${ext}`, ISF_FILES);
        await Deno.copyFile(file, `${dir}/3d Rotate.${ext}`);
      }
      const { presetID } = (await edit("preset.import", { path: `${dir}/3d Rotate.fs` })).created;
      await Deno.remove(dir, { recursive: true });
      const still = { xrot: 0, yrot: 0, zrot: 0, zoom: 1 };
      const { effectID } = (await edit("effect.add", { presetID, params: still })).created;
      await edit("clip.update", { clipID: "quad-plain", options: { effects: [effectID] } });
      const unmoved = await picture();
      const y = Math.floor(H / 2);
      assert(near(pixel(unmoved, W / 4, y).slice(0, 3), [255, 0, 0]), "red on the left");
      assert(near(pixel(unmoved, (3 * W) / 4, y).slice(0, 3), [0, 0, 255]), "blue on the right");
      assert.ok(differing(unmoved, input) <= W * 2, "no rotation draws the input");
      // A quarter turn's half about x (45 degrees): the picture tilts away, in perspective.
      await edit("effect.update", { effectID, params: { xrot: 0.25 } });
      const tilted = await picture();
      const moved = differing(tilted, input);
      assert.ok(moved > (W * H) / 10, `xrot 0.25 moves the picture: ${moved} pixels differ`);
      // Half a turn about y shows the quad from behind: the halves swap sides.
      await edit("effect.update", { effectID, params: { xrot: 0, yrot: 1 } });
      const turned = await picture();
      assert(near(pixel(turned, W / 4, y).slice(0, 3), [0, 0, 255]), "blue on the left");
      assert(near(pixel(turned, (3 * W) / 4, y).slice(0, 3), [255, 0, 0]), "red on the right");
      // A .vs the check's compiler takes (glslang: ES 3.10's ldexp) and WebGL2's does not: the
      // page's compile() refuses it, said at the .vs's own line.
      const broken =
        "void main() {\n  isf_vertShaderInit();\n  gl_Position.w = ldexp(1.0, 0);\n}\n";
      await edit("preset.update", { kind: "effect", presetID, vertexCode: broken });
      const refused = () => s.output.faults.find((f) => f.includes("vertexCode"));
      await untilOutput(s.output, "the .vs refused", () => refused() !== undefined);
      assert.match(refused()!, /line 3, column \d+: vertexCode: .*ldexp/, refused()!);
    } finally {
      await s.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
