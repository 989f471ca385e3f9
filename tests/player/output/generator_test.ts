/**
 * Generator Clips drawn by the real output: a Clip with no file plays the built-in Solid Colour
 * and draws its colour; a Clip of a user generator draws `level` set by a Control, `TIME` the
 * Clip's position on the player's clock, and an Effect of the Clip applies to its picture.
 * One player in this process on a virtual clock with a headless output: one browser.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { near, openOutputPlayer } from "../../../tools/testing/output.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

/** A generator of one colour: red `level`, green `1 - level`, blue `TIME / 10`. */
const LEVEL = `/*{
  "DESCRIPTION": "Level in red, TIME in blue",
  "INPUTS": [{ "NAME": "level", "TYPE": "float", "MIN": 0, "MAX": 1, "DEFAULT": 0 }]
}*/
void main() {
  gl_FragColor = vec4(level, 1.0 - level, TIME / 10.0, 1.0);
}
`;

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "a generator Clip draws without a file: its colour, a Control's value, TIME, its Effect",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const p = await openOutputPlayer();
    const edit = async (name: string, params: Record<string, unknown>) =>
      (await p.app.applyEdits({ projectId: null, edits: [{ name, params }] })).edits[0]!.created;
    try {
      const solid = await edit("clip.add", {
        songID: "song",
        generator: { presetId: "gen-solid", params: { color: "#0000ff" } },
      });
      await p.run("PLAY_CLIP_IN", { clipID: solid!.clipID! });
      const blue = await p.centre();
      assert(near(blue, [0, 0, 255]), `the built-in Solid Colour draws its colour: ${blue}`);

      const preset = await edit("preset.add", {
        kind: "generator",
        name: "Level",
        type: "isf",
        code: LEVEL,
      });
      const clip = await edit("clip.add", {
        songID: "song",
        duration: 10,
        generator: { presetId: preset!.presetID! },
      });
      const clipID = clip!.clipID!;
      await edit("control.set_targets", {
        controlID: "K",
        targets: [{ target: `clip:${clipID}/generator.level` }],
      });
      await p.run("STOP_ALL_CLIPS_IN");
      await p.run("PLAY_CLIP_IN", { clipID });
      const start = await p.centre();
      assert(near(start, [0, 255, 0]), `level 0 at position 0: ${start}`);
      await p.run("SET_CONTROL", { controlID: "K", value: 1 });
      p.advance(5000);
      const driven = await p.centre();
      assert(near(driven, [255, 0, 128], 16), `level 1 from the Control, TIME 5 s: ${driven}`);

      const invert = await edit("preset.add", {
        kind: "effect",
        name: "Invert",
        type: "isf",
        code: INVERT,
      });
      const effect = await edit("effect.add", { presetID: invert!.presetID! });
      await edit("clip.update", { clipID, options: { effects: [effect!.effectID!] } });
      const inverted = await p.centre();
      assert(near(inverted, [0, 255, 127], 16), `its Effect inverts its picture: ${inverted}`);
      assert.ok(!p.logs.some((l) => l.startsWith("error")), p.logs.join("\n"));
    } finally {
      await p.close();
    }
  },
});
