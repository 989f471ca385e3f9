/**
 * ISF presets in the preset store: `type: "isf"` presets are checked with
 * `parseIsf` by every preset edit, their parameters come from the header,
 * and a problem is refused at its line and column with nothing written.
 */
import assert from "node:assert/strict";
import { Refusal } from "../../../player/errors.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { applyEdits as edits, withApp } from "../../../tools/testing/player_app.ts";
import { EVERY_INPUT, INVERT } from "../../../tools/testing/isf_shaders.ts";

const AMOUNT = { name: "amount", type: "number", min: 0, max: 1, default: 1 };
const ADD = { kind: "effect", name: "Invert", type: "isf", code: INVERT };

/** The refusal of bad shader code: its field, the edit's index, the problems at lines. */
function shaderRefusal(edit: number, line: number, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, RpcErrorCode.INVALID_CODE);
    const data = error.data as { field: string; edit: number; problems: unknown[] };
    assert.equal(data.field, "params.code");
    assert.equal(data.edit, edit);
    const [problem] = data.problems as Array<{ line: number; column: number; message: string }>;
    assert.equal(problem?.line, line, JSON.stringify(data.problems));
    assert.ok((problem?.column ?? 0) >= 1);
    assert.match(problem?.message ?? "", message);
    assert.match(error.message, new RegExp(`^Invalid params\\.code: line ${line}, column \\d+: `));
    return true;
  };
}

Deno.test("preset.add of an isf preset stores the parameters its header's INPUTS declare", async () => {
  await withApp(async (app, dataDir) => {
    const result = await edits(app, ["preset.add", ADD]);
    const presetID = result.edits[0]!.created!.presetID!;
    const preset = app.presets().find((p) => p.id === presetID)!;
    assert.deepEqual(preset.parameters, [AMOUNT]);
    assert.equal(preset.code, INVERT);
    const onDisk = JSON.parse(await Deno.readTextFile(`${dataDir}/presets.json`));
    assert.deepEqual(onDisk[0].parameters, [AMOUNT]);
    // An Effect from it starts at the header's defaults.
    const effectID = (await edits(app, ["effect.add", { presetID }])).edits[0]!.created!.effectID!;
    const show = app.snapshot().projects.find((p) => p.id === "show")!;
    assert.deepEqual(show.effects.find((e) => e.id === effectID)?.params, { amount: 1 });
  });
});

Deno.test("preset.add of an isf preset takes parameters only when they are the header's", async () => {
  await withApp(async (app) => {
    await edits(app, ["preset.add", { ...ADD, parameters: [AMOUNT] }]);
    await assert.rejects(
      edits(app, ["preset.add", {
        ...ADD,
        name: "Other",
        parameters: [{ ...AMOUNT, max: 2 }],
      }]),
      (error: unknown) => {
        assert.ok(error instanceof Refusal);
        assert.equal(error.code, RpcErrorCode.INVALID_PARAMS);
        assert.match(error.message, /^Invalid params\.parameters: .*header's INPUTS.*amount/);
        return true;
      },
    );
    assert.equal(app.presets().filter((p) => !p.builtIn).length, 1);
  });
});

Deno.test("preset.add refuses bad isf code at its line and column; nothing is written", async () => {
  await withApp(async (app, dataDir) => {
    const before = await Deno.readTextFile(`${dataDir}/presets.json`).catch(() => "none");
    const notJson = INVERT.replace('"CREDIT": "Cueport tests",', '"CREDIT": "Cueport tests"');
    await assert.rejects(
      edits(app, ["preset.add", { ...ADD, code: notJson }]),
      shaderRefusal(0, 4, /not valid JSON/),
    );
    const outOfRange = INVERT.replace('"MIN": 0.0', '"MIN": 2.0');
    await assert.rejects(
      edits(app, ["song.add", { title: "Fine" }], ["preset.add", { ...ADD, code: outOfRange }]),
      shaderRefusal(1, 8, /MIN 2 is above MAX 1/),
    );
    await assert.rejects(
      edits(app, ["preset.add", { ...ADD, kind: "generator" }]),
      shaderRefusal(0, 6, /generator's shader draws without a picture/),
    );
    await assert.rejects(
      edits(app, ["preset.add", { ...ADD, code: "" }]),
      shaderRefusal(0, 1, /must begin with a \/\*\{ JSON \}\*\/ header/),
    );
    assert.equal(app.presets().filter((p) => !p.builtIn).length, 0);
    assert.equal(await Deno.readTextFile(`${dataDir}/presets.json`).catch(() => "none"), before);
    const show = app.snapshot().projects.find((p) => p.id === "show")!;
    assert.ok(!show.songs.some((s) => s.title === "Fine"), "the batch is all or nothing");
  });
});

Deno.test("preset.update of an isf preset derives the parameters again, or keeps the old code", async () => {
  await withApp(async (app) => {
    const presetID = (await edits(app, ["preset.add", ADD])).edits[0]!.created!.presetID!;
    const twoInputs = INVERT.replace(
      '"MAX": 1.0 }',
      '"MAX": 1.0 },\n    { "NAME": "keepAlpha", "TYPE": "bool", "DEFAULT": true }',
    );
    await edits(app, ["preset.update", { kind: "effect", presetID, code: twoInputs }]);
    const preset = () => app.presets().find((p) => p.id === presetID)!;
    assert.deepEqual(preset().parameters, [
      AMOUNT,
      { name: "keepAlpha", type: "boolean", default: true },
    ]);
    await assert.rejects(
      edits(app, ["preset.update", {
        kind: "effect",
        presetID,
        code: twoInputs.replace('"TYPE": "bool"', '"TYPE": "boolean"'),
      }]),
      shaderRefusal(0, 9, /INPUTS\.2\.TYPE/),
    );
    assert.equal(preset().code, twoInputs, "the working code stays");
    await assert.rejects(
      edits(app, ["preset.update", {
        kind: "effect",
        presetID,
        parameters: [{ ...AMOUNT, default: 0.5 }],
      }]),
      /Invalid params\.parameters/,
    );
  });
});

Deno.test("preset.validate reports isf problems with their line and column, writing nothing", async () => {
  await withApp(async (app) => {
    const broken = INVERT.replace('"TYPE": "float"', '"TYPE": "floaty"');
    const answer = await edits(app, ["preset.validate", { ...ADD, code: broken }]);
    const result = answer.edits[0]!.result as { valid: boolean; problems: string[] };
    assert.equal(result.valid, false);
    assert.equal(result.problems.length, 1, result.problems.join("\n"));
    assert.match(result.problems[0]!, /^code: line 8, column \d+: INPUTS\.1\.TYPE/);
    const fine = await edits(app, ["preset.validate", ADD]);
    assert.deepEqual(fine.edits[0]!.result, { valid: true, problems: [] });
    assert.equal(answer.revision, fine.revision);
  });
});

Deno.test("preset.import adds an ISF community file: its inputs become the preset's parameters", async () => {
  await withApp(async (app, dataDir) => {
    const path = `${dataDir}/Every Input.fs`;
    await Deno.writeTextFile(path, EVERY_INPUT);
    const first = (await edits(app, ["preset.import", { path }])).edits[0]!;
    const preset = app.presets().find((p) => p.id === first.created!.presetID)!;
    assert.equal(preset.name, "Every Input");
    assert.equal(preset.type, "isf");
    assert.equal(preset.kind, "visualizer", "an audio input makes it a visualizer");
    assert.equal(preset.code, EVERY_INPUT);
    assert.deepEqual(preset.parameters.map((p) => `${p.name}:${p.type}`), [
      "level:number",
      "flash:boolean",
      "invert:boolean",
      "mode:enum",
      "tint:color",
      "center_x:number",
      "center_y:number",
    ]);
    const again = (await edits(app, ["preset.import", { path }])).edits[0]!;
    assert.equal(
      app.presets().find((p) => p.id === again.created!.presetID)?.name,
      "Every Input (2)",
    );
    const effect = (await edits(app, ["preset.import", { path, kind: "effect", name: "Mine" }]))
      .edits[0]!;
    const mine = app.presets().find((p) => p.id === effect.created!.presetID)!;
    assert.deepEqual([mine.kind, mine.name], ["effect", "Mine"]);
    await edits(app, ["project.undo", {}]);
    assert.ok(!app.presets().some((p) => p.id === mine.id), "an import is undone like an add");
  });
});

Deno.test("preset.import refuses a missing file, one that is not text and bad code in it", async () => {
  await withApp(async (app, dataDir) => {
    await assert.rejects(
      edits(app, ["preset.import", { path: `${dataDir}/none.fs` }]),
      (error: unknown) => error instanceof Refusal && error.code === RpcErrorCode.NOT_FOUND,
    );
    await Deno.writeFile(`${dataDir}/binary.fs`, new Uint8Array([0xff, 0xfe, 0x00, 0x80]));
    await assert.rejects(
      edits(app, ["preset.import", { path: `${dataDir}/binary.fs` }]),
      /Invalid params\.path: .* not UTF-8 text/,
    );
    await Deno.writeTextFile(
      `${dataDir}/broken.fs`,
      INVERT.replace('"MIN": 0.0', '"MIN": 2.0'),
    );
    await assert.rejects(
      edits(app, ["preset.import", { path: `${dataDir}/broken.fs` }]),
      (error: unknown) => {
        assert.ok(error instanceof Refusal);
        assert.equal(error.code, RpcErrorCode.INVALID_CODE);
        assert.equal(error.data?.field, "params.path");
        assert.match(
          error.message,
          /^Invalid params\.path: line 8, column \d+: INPUTS\.1: MIN 2/,
        );
        return true;
      },
    );
    assert.equal(app.presets().filter((p) => !p.builtIn).length, 0);
  });
});
