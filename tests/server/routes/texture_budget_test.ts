/**
 * The output's texture budget over HTTP: the service's `outputTextureBudgetMb` reaches the
 * bundled player, and the Effect that would pass it is refused as EDIT_REFUSED with the
 * figures in `details`.
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { FLOAT_TARGET } from "../../player/isf/_passes_shaders.ts";

Deno.test("POST /api/v1/edit: an Effect past the texture budget is EDIT_REFUSED with its figures", async () => {
  const svc = await startTestService({ outputTextureBudgetMb: 64 });
  try {
    const edit = (name: string, params: Record<string, unknown>) =>
      svc.post("/api/v1/edit", { name, params });
    const added = await edit("preset.add", {
      kind: "effect",
      name: "Float",
      type: "isf",
      code: FLOAT_TARGET,
    });
    assert.equal(added.status, 200, JSON.stringify(added.body));
    const presetID = added.body.edits[0].created.presetID;
    for (let i = 0; i < 2; i++) assert.equal((await edit("effect.add", { presetID })).status, 200);
    const refused = await edit("effect.add", { presetID });
    assert.equal(refused.status, 400);
    assert.equal(refused.body.error.code, "EDIT_REFUSED");
    assert.match(refused.body.error.message, /over the output's budget of 64 MB/);
    assert.deepEqual(refused.body.error.details, {
      reason: "TEXTURE_BUDGET",
      budgetBytes: 64 * 2 ** 20,
      wouldUseBytes: 3 * 1920 * 1080 * 16,
    });
  } finally {
    await svc.stop();
  }
});
