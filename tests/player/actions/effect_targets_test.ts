/**
 * Controls and SET_PARAM reach an Effect of a Clip as `clip:<clipId>/<effectId>.<param>`,
 * and a Visualizer through any Clip as `clip:<clipId>/<visualizerId>.<param>`.
 */
import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";

Deno.test("a Target may name a parameter of an Effect in the Clip's chain", async () => {
  const f = await openFixture();
  const edit = (name: string, params: Record<string, unknown>) =>
    f.app.applyEdits({ projectId: null, edits: [{ name, params }] });
  try {
    await edit("clip.update", { clipID: "c1", options: { effects: ["e1"] } });
    await edit("control.set_targets", {
      controlID: "D",
      targets: [{ target: "clip:c1/e1.radius", min: 0, max: 40 }],
    });
    await f.run("SET_CONTROL", { controlID: "D", value: 0.5 });
    assert.equal(f.app.snapshot().live.show!.params.c1!["e1.radius"], 20);
    await f.run("SET_PARAM", { targetID: "clip:c1/e1.radius", value: 7 });
    assert.equal(f.app.snapshot().live.show!.params.c1!["e1.radius"], 7);
    await assert.rejects(
      f.run("SET_PARAM", { targetID: "clip:c1/e1.wobble", value: 1 }),
      /Clip parameter "e1.wobble" does not exist/,
    );
    await assert.rejects(
      f.run("SET_PARAM", { targetID: "clip:c2/e1.radius", value: 1 }),
      /does not exist/,
      "e1 is not in c2's chain",
    );
    await assert.rejects(
      edit("control.set_targets", { controlID: "D", targets: [{ target: "clip:c1/e2.radius" }] }),
      /unknown parameter "e2.radius"/,
    );
    // A Visualizer is drawn over everything: any Clip reaches it.
    await f.run("SET_PARAM", { targetID: "clip:c2/v1.bands", value: 16 });
    assert.equal(f.app.snapshot().live.show!.params.c2!["v1.bands"], 16);
    await assert.rejects(
      f.run("SET_PARAM", { targetID: "clip:c2/v1.wobble", value: 1 }),
      /Clip parameter "v1.wobble" does not exist/,
    );
  } finally {
    await f.close();
  }
});
