/**
 * One texture budget for all Effects and Visualizers of a Project: their ISF pass targets
 * counted at their real byte size at the display's size, and every edit that would pass the
 * budget refused with its figures (adding an Effect or Visualizer, changing its preset or a
 * preset's code, changing the display size, putting an Effect on another Clip), over the
 * player's edit path; an edit that does not add to the textures passes.
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { Refusal } from "../../../player/errors.ts";
import { itemTextureBytes } from "../../../player/output/texture_budget.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import type { Preset } from "../../../protocol/model.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { FLOAT_TARGET, HOLD, SIZES, TWO_PASS_BLUR } from "../isf/_passes_shaders.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

const FULL_HD = { width: 1920, height: 1080 };
/** A FLOAT target at 1920 x 1080: 16 bytes a texel. */
const FLOAT_BYTES = 1920 * 1080 * 16;
const MB = 2 ** 20;
/** FLOAT_TARGET's target kept from frame to frame: two float textures. */
const PERSISTENT_FLOAT = FLOAT_TARGET.replace('"FLOAT": true', '"FLOAT": true, "PERSISTENT": true');

function preset(code: string): Preset {
  return {
    id: "fx-user-1",
    kind: "effect",
    name: "P",
    type: "isf",
    builtIn: false,
    parameters: [],
    code,
    quarantine: null,
  };
}
const effect = {
  id: "fx1",
  name: "E",
  type: "isf",
  presetId: "fx-user-1",
  enabled: true,
  params: {},
};

Deno.test("itemTextureBytes() counts each pass target at its real byte size", () => {
  assert.equal(itemTextureBytes(effect, preset(INVERT), FULL_HD), 0, "no passes, no targets");
  assert.equal(itemTextureBytes(effect, preset(FLOAT_TARGET), FULL_HD), FLOAT_BYTES);
  assert.equal(
    itemTextureBytes(effect, preset(HOLD), FULL_HD),
    1920 * 1080 * 4 * 2,
    "persistent: two",
  );
  assert.ok(itemTextureBytes(effect, preset(TWO_PASS_BLUR), FULL_HD) > 0);
  const quarantine = { at: "2026-11-29T09:00:00.000Z", reason: "stalled" };
  assert.equal(itemTextureBytes(effect, { ...preset(FLOAT_TARGET), quarantine }, FULL_HD), 0);
});

Deno.test("itemTextureBytes() counts a target sized by an input at the largest its range allows", () => {
  const full = 1920 * 1080 * 4;
  // SIZES: a target "floor($WIDTH / $scale)" x 1, $scale 1 to 16 (a Control may set it live).
  for (const scale of [4, 16]) {
    const item = { ...effect, params: { scale } };
    assert.equal(itemTextureBytes(item, preset(SIZES), FULL_HD), 1920 * 4 + full, `at ${scale}`);
  }
  // No range: the most a side can take, twice the render's.
  const unbounded = SIZES.replace(', "MIN": 1, "MAX": 16', "");
  assert.notEqual(unbounded, SIZES);
  assert.equal(itemTextureBytes(effect, preset(unbounded), FULL_HD), 2 * 1920 * 4 + full);
});

/** A player on the fixture Project (1920 x 1080) with a budget of `mb`. */
async function open(mb: number) {
  const app = await PlayerApp.open({
    dataDir: await fixtureDataDir(),
    clock: new VirtualClock(),
    textureBudgetMb: mb,
  });
  const edit = async (name: string, params: Record<string, unknown> = {}) =>
    (await app.applyEdits({ projectId: null, edits: [{ name, params }] })).edits[0]!;
  const refused = async (name: string, params: Record<string, unknown>, wouldUseBytes: number) => {
    const revision = app.snapshot().projects[0]!.revision;
    await assert.rejects(edit(name, params), (error: unknown) => {
      assert.ok(error instanceof Refusal, String(error));
      assert.equal(error.code, RpcErrorCode.ACTION_REFUSED, error.message);
      assert.equal(error.code, RpcErrorCode.ACTION_REFUSED);
      assert.deepEqual(error.data, {
        reason: "TEXTURE_BUDGET",
        budgetBytes: mb * MB,
        wouldUseBytes,
      });
      assert.match(error.message, /over the output's budget of \d+ MB: remove an Effect/);
      assert.match(error.message, /raise the outputTextureBudgetMb setting$/);
      return true;
    });
    assert.equal(app.snapshot().projects[0]!.revision, revision, `${name}: nothing written`);
  };
  return { app, edit, refused };
}

Deno.test("Editor refuses the Effect or Visualizer added past the texture budget", async () => {
  const { app, edit, refused } = await open(64);
  try {
    const float = { kind: "effect", name: "Float", type: "isf", code: FLOAT_TARGET };
    const presetID = (await edit("preset.add", float)).created!.presetID!;
    const count = () => app.snapshot().projects[0]!.effects.length;
    const before = count();
    await edit("effect.add", { presetID });
    await edit("effect.add", { presetID });
    await refused("effect.add", { presetID }, 3 * FLOAT_BYTES);
    assert.equal(count(), before + 2);
  } finally {
    await app.close();
  }
});

Deno.test("Editor refuses a preset's code changed, the display grown or a Clip linked past the budget", async () => {
  const { app, edit, refused } = await open(64);
  try {
    const add = async (name: string, code: string) =>
      (await edit("preset.add", { kind: "effect", name, type: "isf", code })).created!.presetID!;
    const float = await add("Float", FLOAT_TARGET);
    const plain = await add("Plain", INVERT);
    const a = (await edit("effect.add", { presetID: float })).created!.effectID!;
    await edit("effect.add", { presetID: plain });
    await edit("project.set_display", { width: 1920, height: 1080 });
    await refused("project.set_display", { width: 3840, height: 2160 }, 4 * FLOAT_BYTES);
    await refused(
      "preset.update",
      { kind: "effect", presetID: plain, code: PERSISTENT_FLOAT },
      3 * FLOAT_BYTES,
    );
    const clips = app.snapshot().projects[0]!.clips;
    await edit("clip.update", { clipID: clips[0]!.id, options: { effects: [a] } });
    await edit("clip.update", { clipID: clips[1]!.id, options: { effects: [a] } });
    await refused(
      "clip.update",
      { clipID: clips[2]!.id, options: { effects: [a] } },
      3 * FLOAT_BYTES,
    );
  } finally {
    await app.close();
  }
});

Deno.test("Editor lets an edit that adds no textures pass a budget the Project is already over", async () => {
  const { app, edit } = await open(64);
  try {
    const float = { kind: "effect", name: "Float", type: "isf", code: FLOAT_TARGET };
    const presetID = (await edit("preset.add", float)).created!.presetID!;
    await edit("effect.add", { presetID });
    await edit("effect.add", { presetID });
    await app.close();
    const lower = await PlayerApp.open({
      dataDir: app.store.dataDir,
      clock: new VirtualClock(),
      textureBudgetMb: 16,
    });
    try {
      const ids = lower.snapshot().projects[0]!.effects.map((e) => e.id);
      await lower.applyEdits({
        projectId: null,
        edits: [{ name: "effect.remove", params: { effectID: ids.at(-1)! } }],
      });
      await lower.applyEdits({
        projectId: null,
        edits: [{ name: "project.rename", params: { name: "Still over" } }],
      });
    } finally {
      await lower.close();
    }
  } catch (error) {
    await app.close().catch(() => {});
    throw error;
  }
});
