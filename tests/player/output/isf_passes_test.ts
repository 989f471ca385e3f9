/**
 * ISF's PASSES and GLSL ES 3.00 on the output, in the real browser's pixels:
 * each pass renders into its target at the size its expressions give, with
 * its PASSINDEX, and later passes read it by name; a two-pass blur blurs; a
 * persistent target keeps its contents from frame to frame (and one that is
 * not, does not), also when the Clip's filters change; a FLOAT target keeps values above 1; an ES 3.00 shader
 * draws. A bad PASSES header is refused over HTTP with its field path. One
 * service in this process, its player in this process too (on a virtual
 * clock) with a headless output: one browser.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
import { decodePng, pixel } from "../../../tools/testing/images.ts";
import {
  HOLD_SCALE_BUDGET_MS,
  near,
  openOutputService,
  outputDataDir,
  untilOutput,
  W,
} from "../../../tools/testing/output.ts";
import {
  FLOAT_TARGET,
  HOLD,
  HOLD_PICTURE,
  INVERT_300,
  LOOP_BOUND,
  SIZES,
  TWO_PASS_BLUR,
} from "../isf/_passes_shaders.ts";

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "The output draws ISF PASSES (targets, sizes, persistent, float) and GLSL ES 3.00",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dataDir = await outputDataDir();
    const s = await openOutputService(dataDir, { clock: new VirtualClock() });
    const post = async (name: string, params: unknown) => {
      const res = await fetch(`${s.base}/api/v1/edit`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, params }),
      });
      return { status: res.status, body: await res.json() };
    };
    const edit = async (name: string, params: unknown) => {
      const answer = await post(name, params);
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body.edits[0];
    };
    let count = 0;
    /** Adds `code` as a preset, an Effect of it alone on the Clip shown; answers its id. */
    const show = async (code: string) => {
      const preset = { kind: "effect", name: `Passes ${++count}`, type: "isf", code };
      const { presetID } = (await edit("preset.add", preset)).created;
      const { effectID } = (await edit("effect.add", { presetID })).created;
      await edit("clip.update", { clipID: "quad-plain", options: { effects: [effectID] } });
      return effectID as string;
    };
    const action = async (name: string, ...params: string[]) => {
      const res = await fetch(`${s.base}/api/v1/action`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, params }),
      });
      const text = await res.text();
      assert.equal(res.status, 200, text);
    };
    const picture = async () => decodePng(await s.output.frame());
    const centre = async () => {
      const p = await picture();
      return pixel(p, Math.floor(p.width / 2), Math.floor(p.height / 2)).slice(0, 3);
    };
    try {
      // Left half red, right half blue.
      await action("TRIGGER_CLIP_IN", "quad-plain");

      await t.step(
        "each pass renders into its target at its size, with its PASSINDEX",
        async () => {
          const effectID = await show(SIZES);
          assert.deepEqual(await centre(), [W / 4, 1, 100], "small: W/4 x 1; full: PASSINDEX 1");
          await edit("effect.update", { effectID, params: { scale: 8 } });
          assert.deepEqual((await centre())[0], W / 8, "the width follows the input $scale");
        },
      );

      await t.step("a two-pass blur mixes red and blue across the edge only", async () => {
        await show(TWO_PASS_BLUR);
        const p = await picture();
        const y = Math.floor(p.height / 2);
        const [r, , b] = pixel(p, W / 2, y);
        assert(r! > 60 && b! > 60, `red and blue mixed at the edge: ${r}, ${b}`);
        assert(near(pixel(p, 4, y).slice(0, 3), [255, 0, 0]), "red far from the edge");
        assert(near(pixel(p, W - 5, y).slice(0, 3), [0, 0, 255]), "blue far from the edge");
      });

      await t.step("a persistent target keeps its first frame while TIME moves", async () => {
        await show(HOLD);
        const before = await centre();
        await s.advance(250);
        assert.deepEqual(await centre(), before, "held");
        await show(HOLD.replace(`"PERSISTENT": true`, `"PERSISTENT": false`));
        const first = (await centre())[0]!;
        await s.advance(250);
        const moved = ((((await centre())[0]! - first) / 255) % 1 + 1) % 1;
        assert(Math.abs(moved - 0.25) < 0.03, `not persistent: follows TIME (${moved})`);
      });

      await t.step(
        "a persistent target keeps its picture when the render scale changes",
        async () => {
          await show(HOLD);
          const held = await centre();
          await s.advance(250);
          // Every second slow from now on: the page steps down to its smallest scale.
          s.output.setFrameBudget(0.001);
          try {
            await untilOutput(s.output, "scale 0.35", () => s.output.stats.renderScale === 0.35);
            assert.deepEqual(await centre(), held, "held through 0.75, 0.5 and 0.35");
          } finally {
            s.output.setFrameBudget(HOLD_SCALE_BUDGET_MS);
          }
          await untilOutput(s.output, "scale 1 again", () => s.output.stats.renderScale === 1);
        },
      );

      await t.step(
        "a persistent target keeps its contents when the Clip's filters or Effects before it change",
        async () => {
          const holdID = await show(HOLD);
          const held = await centre();
          await s.advance(250);
          const filters = async (brightness: number) => {
            await edit("clip.update", {
              clipID: "quad-plain",
              options: { filters: { brightness } },
            });
            return await centre();
          };
          assert.deepEqual(await filters(0.01), held, "a filter pass added before it");
          await s.advance(250);
          assert.deepEqual(await filters(0), held, "and taken away");
          const preset = { kind: "effect", name: "Invert before", type: "isf", code: INVERT };
          const { presetID } = (await edit("preset.add", preset)).created;
          const invertID = (await edit("effect.add", { presetID })).created.effectID;
          const effects = async (ids: string[]) => {
            await edit("clip.update", { clipID: "quad-plain", options: { effects: ids } });
            return await centre();
          };
          assert.deepEqual(await effects([invertID, holdID]), held, "an Effect put before it");
          await s.advance(250);
          assert.deepEqual(await effects([holdID]), held, "and taken away");
        },
      );

      await t.step("a FLOAT target keeps values above 1", async () => {
        await show(FLOAT_TARGET);
        assert(near(await centre(), [255, 255, 255], 3), `2.0 halved is white: ${await centre()}`);
        await show(FLOAT_TARGET.replace(`"FLOAT": true`, `"FLOAT": false`));
        assert(near(await centre(), [128, 128, 128], 3), "8-bit: 2.0 is kept as 1.0");
      });

      await t.step("an ISF shader in GLSL ES 3.00 draws", async () => {
        await show(INVERT_300);
        const p = await picture();
        const y = Math.floor(p.height / 2);
        assert(near(pixel(p, 4, y).slice(0, 3), [0, 255, 255]), "red inverted: cyan");
        assert(near(pixel(p, W - 5, y).slice(0, 3), [255, 255, 0]), "blue inverted: yellow");
      });

      await t.step(
        "ES 1.00 code beyond ES 1.00's loop limits is taken and drawn as ES 3.00",
        async () => {
          await show(LOOP_BOUND);
          const p = await picture();
          const y = Math.floor(p.height / 2);
          assert(near(pixel(p, 4, y).slice(0, 3), [0, 255, 255]), "red inverted: cyan");
        },
      );

      await t.step("a bad PASSES header is refused with its field path", async () => {
        const code = SIZES.replace(`"floor($WIDTH / $scale)"`, `"floor($WIDTH / $zoom)"`);
        const preset = { kind: "effect", name: "Bad passes", type: "isf", code };
        const answer = await post("preset.add", preset);
        assert.equal(answer.status, 422, JSON.stringify(answer.body));
        assert.equal(answer.body.error.details.field, "params.code");
        const [problem] = answer.body.error.details.problems;
        assert.match(problem.message, /^PASSES\.0\.WIDTH: .*\$zoom/);
        const line = code.split("\n").findIndex((l) => l.includes("$zoom")) + 1;
        assert.equal(problem.line, line);
      });

      await t.step("a size expression of 20 000 terms is refused with its field path", async () => {
        const code = SIZES.replace(`"floor($WIDTH / $scale)"`, `"${"1+".repeat(20000)}1"`);
        const preset = { kind: "effect", name: "Deep", type: "isf", code };
        const answer = await post("preset.add", preset);
        assert.equal(answer.status, 422, JSON.stringify(answer.body).slice(0, 300));
        const [problem] = answer.body.error.details.problems;
        assert.match(problem.message, /^PASSES\.0\.WIDTH: the expression is over 256 characters/);
        const check = await post("preset.validate", preset);
        assert.equal(check.status, 200, JSON.stringify(check.body).slice(0, 300));
        assert.equal(
          check.body.edits[0].result.valid,
          false,
          JSON.stringify(check.body).slice(0, 300),
        );
      });

      await t.step("one Effect on two Clips keeps a persistent target for each", async () => {
        const effectID = await show(HOLD_PICTURE);
        await edit("clip.update", { clipID: "quad-plain", options: { opacity: 0.5 } });
        await edit("clip.update", { clipID: "red", options: { effects: [effectID] } });
        await action("TRIGGER_CLIP_IN", "red");
        const p = await picture();
        const y = Math.floor(p.height / 2);
        // Red below, the picture (red | blue) at half opacity over it.
        assert(near(pixel(p, 4, y).slice(0, 3), [255, 0, 0]), "left: red over red");
        const right = pixel(p, W - 5, y).slice(0, 3);
        assert(near(right, [128, 0, 128]), `right: blue over red, each its own: ${right}`);
      });
    } finally {
      await s.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
