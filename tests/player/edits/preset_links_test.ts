import assert from "node:assert/strict";
import { Refusal } from "../../../player/errors.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { editIn, withApp } from "../../../tools/testing/player_app.ts";

const PRESET = {
  kind: "effect",
  name: "Glow",
  type: "shader",
  code: "void main() {}",
  parameters: [],
};

Deno.test("Editor: a preset another Project uses cannot be taken away, by remove, undo or redo", async () => {
  await withApp(async (app) => {
    const edit = editIn(app);
    const refusal = (message: RegExp) => (error: unknown) => {
      assert.ok(error instanceof Refusal);
      assert.equal(error.code, RpcErrorCode.ACTION_REFUSED);
      assert.match(error.message, message);
      return true;
    };
    const presetID = (await edit("show", "preset.add", PRESET)).edits[0]!.created!.presetID!;
    const effectID = (await edit("tour", "effect.add", { presetID })).edits[0]!.created!.effectID!;
    const used = new RegExp(
      `Preset "${presetID}" is used by Effect "${effectID}" of Project "tour": remove that Effect first`,
    );

    await assert.rejects(
      edit("show", "preset.remove", { kind: "effect", presetID }),
      refusal(used),
    );
    await assert.rejects(edit("show", "project.undo"), refusal(used), "undoing the add");
    const tour = () => app.snapshot().projects.find((p) => p.id === "tour")!;
    assert.equal(tour().effects.find((e) => e.id === effectID)?.presetId, presetID);
    assert.ok(app.presets().some((p) => p.id === presetID), "nothing changed");

    await edit("tour", "effect.remove", { effectID });
    await edit("show", "preset.remove", { kind: "effect", presetID });
    assert.ok(!app.presets().some((p) => p.id === presetID));
    await edit("show", "project.undo");
    await edit("tour", "project.undo"); // the Effect is back, linked again
    await assert.rejects(edit("show", "project.redo"), refusal(used), "redoing the remove");

    // In its own Project, remove unlinks what uses the preset, as one step.
    const own = (await edit("show", "effect.add", { presetID })).edits[0]!.created!.effectID!;
    await edit("tour", "effect.remove", { effectID });
    await edit("show", "preset.remove", { kind: "effect", presetID });
    const show = app.snapshot().projects.find((p) => p.id === "show")!;
    assert.equal(show.effects.find((e) => e.id === own)?.presetId, null);
  }, { tour: true });
});

const TRANSITION_FS = `/*{
  "INPUTS": [
    {"NAME": "startImage", "TYPE": "image"},
    {"NAME": "endImage", "TYPE": "image"},
    {"NAME": "progress", "TYPE": "float", "MIN": 0.0, "MAX": 1.0, "DEFAULT": 0.0}
  ]
}*/
void main() {
  gl_FragColor = mix(IMG_THIS_NORM_PIXEL(startImage), IMG_THIS_NORM_PIXEL(endImage), progress);
}
`;

Deno.test("Editor: a transition preset another Project uses cannot be taken away; its own Project's cut", async () => {
  await withApp(async (app) => {
    const edit = editIn(app);
    const presetID = (await edit("show", "preset.add", {
      kind: "transition",
      name: "Mix",
      type: "isf",
      code: TRANSITION_FS,
    })).edits[0]!.created!.presetID!;
    const transition = { presetId: presetID, duration: 1 };
    await edit("tour", "song.update", { songID: "s2", transition });
    await assert.rejects(
      edit("show", "preset.remove", { kind: "transition", presetID }),
      new RegExp(`Preset "${presetID}" is used by the transition of Song "s2" of Project "tour"`),
    );
    await edit("tour", "song.update", { songID: "s2", transition: null });
    await edit("show", "project.set_transition", { transition });
    await edit("show", "clip.update", { clipID: "c2", options: { transition } });
    await edit("show", "song.update", { songID: "s1", transition });
    await edit("show", "preset.remove", { kind: "transition", presetID });
    const show = app.snapshot().projects.find((p) => p.id === "show")!;
    assert.deepEqual(
      [
        show.transition ?? null,
        show.clips.find((c) => c.id === "c2")!.options.transition ?? null,
        show.songs.find((s) => s.id === "s1")!.transition ?? null,
      ],
      [null, null, null],
      "unlinked: a cut",
    );
  }, { tour: true });
});
