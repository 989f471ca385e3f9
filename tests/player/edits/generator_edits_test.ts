/**
 * Generator Clips: `clip.add` with a generator and `clip.set_generator` set the generator
 * preset a Clip plays instead of a file (undoable, refused by field when the preset is not a
 * generator or a param is wrong); `preset.remove` clears its own Project's links; its
 * parameters are Targets `clip:<id>/generator.<param>`, drawn in the render state's layer; another
 * Project's Clip that plays a preset keeps it from removal.
 */
import assert from "node:assert/strict";
import { Refusal } from "../../../player/errors.ts";
import { buildRenderState } from "../../../player/output/render_state.ts";
import { IsfPrograms } from "../../../player/output/isf_programs.ts";
import { parseIsf } from "../../../player/isf/mod.ts";
import { SOLID_COLOR_SHADER } from "../../../player/isf/built_in_shaders.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { type FixturePlayer, openFixture } from "../../../tools/testing/fixture.ts";
import { editIn, withApp } from "../../../tools/testing/player_app.ts";
import { startTestService } from "../../../tools/testing/service.ts";

const edits = (f: FixturePlayer, ...list: Array<[string, Record<string, unknown>]>) =>
  f.app.applyEdits({ projectId: null, edits: list.map(([name, params]) => ({ name, params })) });

const clipOf = (f: FixturePlayer, id: string) =>
  f.app.snapshot().projects.find((p) => p.id === "show")!.clips.find((c) => c.id === id);

/** A refusal of `field` with INVALID_PARAMS whose message matches `message`. */
function fieldRefusal(field: string, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, RpcErrorCode.INVALID_PARAMS, error.message);
    assert.equal((error.data as { field?: string } | undefined)?.field, field, error.message);
    assert.match(error.message, message);
    return true;
  };
}

async function withFixture(fn: (f: FixturePlayer) => Promise<void>): Promise<void> {
  const f = await openFixture();
  try {
    await fn(f);
  } finally {
    await f.close();
  }
}

Deno.test("clip.add with a generator makes a Clip that plays it (no file); undo and redo", async () => {
  await withFixture(async (f) => {
    const added = await edits(f, ["clip.add", {
      songID: "s1",
      generator: { presetId: "gen-plasma", params: { speed: 2 } },
    }]);
    const id = added.edits[0]!.created!.clipID!;
    assert.deepEqual(
      { ...clipOf(f, id)!, id: "" },
      {
        ...clipOf(f, id)!,
        id: "",
        name: "Plasma",
        fileId: null,
        duration: 5,
        generator: { presetId: "gen-plasma", params: { speed: 2 } },
      },
    );
    await edits(f, ["project.undo", {}]);
    assert.equal(clipOf(f, id), undefined);
    await edits(f, ["project.redo", {}]);
    assert.deepEqual(clipOf(f, id)?.generator, { presetId: "gen-plasma", params: { speed: 2 } });
  });
});

Deno.test("clip.set_generator sets, replaces the file, clears with null; each step undoes", async () => {
  await withFixture(async (f) => {
    await edits(f, ["clip.update", { clipID: "c1", fileId: "f-audio" }]);
    await edits(f, ["clip.set_generator", {
      clipID: "c1",
      generator: { presetId: "gen-solid", params: { color: "#ff0000" } },
    }]);
    assert.equal(clipOf(f, "c1")!.fileId, null, "a generator replaces the file");
    assert.deepEqual(clipOf(f, "c1")!.generator, {
      presetId: "gen-solid",
      params: { color: "#ff0000" },
    });
    await edits(f, ["clip.set_generator", { clipID: "c1", generator: null }]);
    assert.equal(clipOf(f, "c1")!.generator, undefined);
    await edits(f, ["project.undo", {}]);
    assert.equal(clipOf(f, "c1")!.generator?.presetId, "gen-solid");
    await edits(f, ["project.undo", {}]);
    assert.equal(clipOf(f, "c1")!.generator, undefined);
    assert.equal(clipOf(f, "c1")!.fileId, "f-audio");
    await edits(f, ["project.redo", {}]);
    await edits(f, ["clip.update", { clipID: "c1", fileId: "f-audio" }]);
    assert.equal(clipOf(f, "c1")!.generator, undefined, "a file replaces the generator");
  });
});

Deno.test("a generator is refused by field: not a generator preset, unknown, a wrong param, beside a file", async () => {
  await withFixture(async (f) => {
    const set = (generator: unknown) =>
      edits(f, ["clip.set_generator", { clipID: "c1", generator }]);
    await assert.rejects(
      set({ presetId: "fx-blur" }),
      fieldRefusal("generator.presetId", /preset "fx-blur" is an effect preset.*kind "generator"/),
    );
    await assert.rejects(
      set({ presetId: "gen-nothing" }),
      fieldRefusal("generator.presetId", /preset "gen-nothing" does not exist/),
    );
    await assert.rejects(
      set({ presetId: "gen-plasma", params: { zoom: 2 } }),
      fieldRefusal("generator.params", /"zoom" is not a parameter of preset "gen-plasma"/),
    );
    await assert.rejects(
      set({ presetId: "gen-plasma", params: { speed: "fast" } }),
      fieldRefusal("generator.params", /speed/),
    );
    await assert.rejects(
      edits(f, ["clip.add", {
        songID: "s1",
        fileId: "f-audio",
        generator: { presetId: "gen-solid" },
      }]),
      fieldRefusal("generator", /give fileId or generator, not both/),
    );
    assert.equal(clipOf(f, "c1")!.generator, undefined, "nothing written");
  });
});

Deno.test("preset.remove of a generator preset clears its Project's generator Clips", async () => {
  await withFixture(async (f) => {
    const code = SOLID_COLOR_SHADER.replace("Fills the picture", "Mine: fills the picture");
    const added = await edits(f, ["preset.add", {
      kind: "generator",
      name: "Mine",
      type: "isf",
      code,
    }]);
    const presetID = added.edits[0]!.created!.presetID!;
    assert.match(presetID, /^gen-user-/);
    await edits(f, ["clip.set_generator", { clipID: "c2", generator: { presetId: presetID } }]);
    await edits(f, ["preset.remove", { kind: "generator", presetID }]);
    assert.equal(clipOf(f, "c2")!.generator, undefined);
    await edits(f, ["project.undo", {}]);
    assert.equal(clipOf(f, "c2")!.generator?.presetId, presetID);
  });
});

Deno.test("preset.remove of a generator preset another Project's Clip plays is refused, naming it", async () => {
  await withApp(async (app) => {
    const edit = editIn(app);
    const code = SOLID_COLOR_SHADER.replace("Fills the picture", "Tour: fills the picture");
    const presetID = (await edit("show", "preset.add", {
      kind: "generator",
      name: "Tour colour",
      type: "isf",
      code,
    })).edits[0]!.created!.presetID!;
    await edit("tour", "clip.set_generator", { clipID: "c3", generator: { presetId: presetID } });
    await assert.rejects(
      edit("show", "preset.remove", { kind: "generator", presetID }),
      new RegExp(`Preset "${presetID}" is used by the generator of Clip "c3" of Project "tour"`),
    );
  }, { tour: true });
});

Deno.test("clip:<id>/generator.<param> is a Target: a Control drives it into the layer's generator pass", async () => {
  await withFixture(async (f) => {
    await assert.rejects(
      edits(f, ["control.set_targets", {
        controlID: "D",
        targets: [{ target: "clip:c1/generator.speed" }],
      }]),
      /unknown parameter "generator.speed"/,
      "no generator on c1 yet",
    );
    await edits(f, ["clip.set_generator", { clipID: "c1", generator: { presetId: "gen-plasma" } }]);
    await edits(f, ["control.set_targets", {
      controlID: "D",
      targets: [{ target: "clip:c1/generator.speed", min: 0, max: 4 }],
    }]);
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("SET_CONTROL", { controlID: "D", value: 0.75 });
    const snap = f.app.snapshot();
    const programs = new IsfPrograms((code, kind) => parseIsf(code, kind));
    const state = buildRenderState({
      project: snap.projects.find((p) => p.id === "show")!,
      playState: snap.playstates[0]!,
      live: snap.live.show!,
      appState: snap.appState,
      presets: f.app.presets(),
      cameras: [],
      programs,
    }, { seq: 1, clock: { now: f.clock.now(), rate: 0 }, idleSince: 0 });
    const layer = state.layers.find((l) => l.clipId === "c1")!;
    assert.equal(layer.kind, "generator");
    assert.equal(layer.source, null);
    assert.equal(layer.generator?.uniforms.speed, 3, "0.75 of 0-4");
    assert.equal(layer.generator?.uniforms.scale, 4, "the preset's default");
    assert.equal(layer.generator?.id, "generator:c1");
    assert.match(layer.generator?.program ?? "", /^isf-/);
    // A quarantined generator preset: the layer stays a generator's, transparent (no card).
    const quarantined = buildRenderState({
      project: snap.projects.find((p) => p.id === "show")!,
      playState: snap.playstates[0]!,
      live: snap.live.show!,
      appState: snap.appState,
      presets: f.app.presets().map((p) =>
        p.id === "gen-plasma" ? { ...p, quarantine: { at: "", reason: "test" } } : p
      ),
      cameras: [],
      programs,
    }, { seq: 2, clock: { now: f.clock.now(), rate: 0 }, idleSince: 0 });
    const off = quarantined.layers.find((l) => l.clipId === "c1")!;
    assert.deepEqual([off.kind, off.generator], ["generator", undefined]);
  });
});

Deno.test("over HTTP: GET /api/v1/presets lists the generators; a Clip's generator shows in its view", async () => {
  const svc = await startTestService();
  try {
    const list = (await svc.get("/api/v1/presets")).body.presets as {
      presetId: string;
      kind: string;
    }[];
    assert.deepEqual(
      list.filter((p) => p.kind === "generator").map((p) => p.presetId),
      ["gen-solid", "gen-plasma"],
    );
    const one = await svc.get("/api/v1/presets/generator/gen-plasma");
    assert.equal(one.status, 200, JSON.stringify(one.body));
    const set = await svc.post("/api/v1/edit", {
      name: "clip.set_generator",
      params: { clipID: "c2", generator: { presetId: "gen-solid", params: { color: "#00ff00" } } },
    });
    assert.equal(set.status, 200, JSON.stringify(set.body));
    const clips = await svc.get("/api/v1/projects/show/clips?ids=c2");
    assert.equal(clips.status, 200, JSON.stringify(clips.body));
    const [clip] = (Array.isArray(clips.body) ? clips.body : clips.body.clips) as {
      generator?: unknown;
    }[];
    assert.deepEqual(clip?.generator, { presetId: "gen-solid", params: { color: "#00ff00" } });
    const wrong = await svc.post("/api/v1/edit", {
      name: "clip.add",
      params: { songID: "s1", generator: { presetId: "tr-wipe" } },
    });
    assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
    assert.match(wrong.body.error.message, /generator\.presetId: preset "tr-wipe" is a transition/);
  } finally {
    await svc.stop();
  }
});
