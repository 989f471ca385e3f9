/**
 * Image inputs other than `inputImage`, drawn by the real output (issue 45): a two-input Effect
 * on the black Clip reads its second input from the red Clip (playing, at opacity 0), from an
 * image file of the Project, and reads transparent black (IMG_SIZE 1x1) when it is unbound; a
 * preset imported with an `IMPORTED` PNG beside its `.fs` draws that PNG's colour. One player
 * in this process on a virtual clock with a headless output: one browser.
 */
import assert from "node:assert/strict";
import { encodePng } from "../../../lib/png.ts";
import { needs } from "../../../tools/testing/peers.ts";
import {
  near,
  openOutputPlayer,
  type OutputPlayer,
  untilOutput,
} from "../../../tools/testing/output.ts";

/**
 * R: the second input's red; G: half its alpha (0: transparent); B: a quarter, plus the layer's
 * red, plus a half when IMG_SIZE says 1x1 (unbound).
 */
export const MIX_FS = `/*{
  "INPUTS": [
    {"NAME": "inputImage", "TYPE": "image"},
    {"NAME": "other", "TYPE": "image"}
  ]
}*/
void main() {
  vec4 a = IMG_THIS_PIXEL(inputImage);
  vec4 b = IMG_THIS_PIXEL(other);
  float tiny = IMG_SIZE(other).x < 1.5 ? 1.0 : 0.0;
  gl_FragColor = vec4(b.r, 0.5 * b.a, a.r + 0.25 + 0.5 * tiny, 1.0);
}
`;

/** Draws its IMPORTED image `stamp` over the whole picture. */
const STAMP_FS = `/*{
  "INPUTS": [{"NAME": "inputImage", "TYPE": "image"}],
  "IMPORTED": {"stamp": {"PATH": "stamp.png"}}
}*/
void main() {
  gl_FragColor = IMG_NORM_PIXEL(stamp, vec2(0.5)) + 0.0 * IMG_THIS_PIXEL(inputImage);
}
`;

const STAMP_RGB = [0, 200, 100];

async function edit(p: OutputPlayer, name: string, params: Record<string, unknown>) {
  const result = await p.app.applyEdits({ projectId: null, edits: [{ name, params }] });
  return result.edits[0]!.created ?? {};
}

/** Waits until the centre is near `want`; answers it. */
async function centreNear(p: OutputPlayer, want: number[], what: string): Promise<number[]> {
  let last: number[] = [];
  await untilOutput(p.output, `${what} (last ${last})`, async () => {
    last = await p.centre();
    return near(last, want, 16);
  });
  return last;
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name:
    "a second image input reads its Clip, a file, transparent black unbound; an IMPORTED image is drawn",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const p = await openOutputPlayer();
    const dir = await Deno.makeTempDir({ prefix: "cueport-image-inputs-" });
    try {
      const { presetID } = await edit(p, "preset.add", {
        kind: "effect",
        name: "Mix",
        type: "isf",
        code: MIX_FS,
      });
      const { effectID } = await edit(p, "effect.add", { presetID });
      await edit(p, "clip.update", { clipID: "black", options: { effects: [effectID] } });
      // The red Clip plays, unseen: its picture is the input's.
      await edit(p, "clip.update", { clipID: "red", options: { opacity: 0 } });
      await p.run("TRIGGER_CLIP_IN", { clipID: "black" });
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });

      await t.step("unbound, the input is transparent black of 1x1", async () => {
        await centreNear(p, [0, 0, 191], "the unbound input");
      });
      await t.step("bound to the red Clip, it reads red", async () => {
        const input = "other";
        await edit(p, "effect.set_input", {
          effectID,
          input,
          source: { from: "clip", clipID: "red" },
        });
        await centreNear(p, [255, 128, 64], "the red Clip's picture");
      });
      await t.step("bound to the green image file, it reads green", async () => {
        await edit(p, "effect.set_input", {
          effectID,
          input: "other",
          source: { from: "file", fileId: "f-green" },
        });
        await centreNear(p, [0, 128, 64], "the green file");
      });
      await t.step("unbound again (null), it is transparent black again", async () => {
        await edit(p, "effect.set_input", { effectID, input: "other", source: null });
        await centreNear(p, [0, 0, 191], "unbound again");
      });
      await t.step("a preset imported with its IMPORTED PNG draws the PNG's colour", async () => {
        const rgba = new Uint8Array(4 * 4 * 4);
        for (let i = 0; i < 16; i++) rgba.set([...STAMP_RGB, 255], i * 4);
        await Deno.writeFile(`${dir}/stamp.png`, encodePng(4, 4, rgba));
        await Deno.writeTextFile(`${dir}/Stamp.fs`, STAMP_FS);
        const stamp = await edit(p, "preset.import", { path: `${dir}/Stamp.fs` });
        const added = await edit(p, "effect.add", { presetID: stamp.presetID });
        await edit(p, "clip.update", { clipID: "black", options: { effects: [added.effectID] } });
        await centreNear(p, STAMP_RGB, "the IMPORTED image");
      });
      assert.ok(!p.logs.some((l) => l.startsWith("error")), p.logs.join("\n"));
    } finally {
      await p.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});
