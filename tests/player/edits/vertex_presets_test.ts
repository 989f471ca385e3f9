/**
 * A preset's own vertex shader (`vertexCode`, ISF's `.vs`) through the preset edits:
 * imported beside its `.fs`, checked with the code (a problem names `params.vertexCode` at
 * the `.vs`'s own line), its varyings the fragment's, changed and removed by `preset.update`.
 */
import assert from "node:assert/strict";
import { quoted, Refusal } from "../../../player/errors.ts";
import { parseEdits } from "../../../player/edits/parse.ts";
import { checkIsfCodeBeside } from "../../../player/edits/preset_rules.ts";
import { ISF_CHECKS } from "../../../player/isf/mod.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { applyEdits as edits, withApp } from "../../../tools/testing/player_app.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
import { INVERT_300 } from "../isf/_passes_shaders.ts";

const ISF_FILES = new URL("../../fixtures/isf_files/", import.meta.url);
const read = (name: string) => Deno.readTextFile(new URL(encodeURIComponent(name), ISF_FILES));

/** The refusal of a vertex shader's problem at `line`, named `field`. */
function vertexRefusal(field: string, line: number, message: RegExp) {
  return (error: unknown) => {
    assert.ok(error instanceof Refusal, String(error));
    assert.equal(error.code, RpcErrorCode.INVALID_CODE);
    const data = error.data as { field: string; problems: Array<Record<string, unknown>> };
    assert.equal(data.field, field);
    assert.equal(data.problems[0]?.line, line, JSON.stringify(data.problems));
    assert.equal(data.problems[0]?.field, "vertexCode");
    assert.match(String(data.problems[0]?.message), message);
    assert.ok(error.message.startsWith(`Invalid ${field}: line ${line}, column `), error.message);
    return true;
  };
}

Deno.test("preset.import takes the .vs beside the .fs as the preset's vertexCode", async () => {
  await withApp(async (app, dataDir) => {
    const [fs, vs] = [await read("Edges.fs"), await read("Edges.vs")];
    await Deno.writeTextFile(`${dataDir}/Edges.fs`, fs);
    // Without its .vs, its varyings are set by nothing: refused, saying where the .vs goes.
    await assert.rejects(
      edits(app, ["preset.import", { path: `${dataDir}/Edges.fs` }]),
      (error: unknown) => {
        assert.ok(error instanceof Refusal);
        assert.match(error.message, /a varying set by the shader's own vertex shader \(\.vs\)/);
        return true;
      },
    );
    await Deno.writeTextFile(`${dataDir}/Edges.vs`, vs);
    const created = (await edits(app, ["preset.import", { path: `${dataDir}/Edges.fs` }]))
      .edits[0]!.created!;
    const preset = app.presets().find((p) => p.id === created.presetID)!;
    assert.equal(preset.code, fs);
    assert.equal(preset.vertexCode, vs);
    const onDisk = JSON.parse(await Deno.readTextFile(`${dataDir}/presets.json`));
    assert.equal(onDisk.find((p: { id: string }) => p.id === preset.id).vertexCode, vs);
    // A .vs that does not parse refuses the import at its own line.
    await Deno.writeTextFile(`${dataDir}/Edges.vs`, vs.replace("isf_vertShaderInit();", "isf_"));
    const line = vs.split("\n").findIndex((l) => l.includes("isf_vertShaderInit();")) + 1;
    await assert.rejects(
      edits(app, ["preset.import", { path: `${dataDir}/Edges.fs`, name: "Edges bad" }]),
      vertexRefusal("params.path (.vs)", line, /GLSL syntax|undeclared/),
    );
  });
});

Deno.test("preset.add and preset.update check vertexCode with the code, at its lines", async () => {
  await withApp(async (app) => {
    const [code, vertexCode] = [await read("Edges.fs"), await read("Edges.vs")];
    const add = { kind: "effect", name: "Edges", type: "isf", code, vertexCode };
    const presetID = (await edits(app, ["preset.add", add])).edits[0]!.created!.presetID!;
    // A syntax error of the .vs: refused at its line, nothing written.
    const line = vertexCode.split("\n").findIndex((l) => l.includes("isf_vertShaderInit")) + 1;
    const broken = vertexCode.replace("isf_vertShaderInit();", "isf_vertShaderInit() +;");
    await assert.rejects(
      edits(app, ["preset.update", { kind: "effect", presetID, vertexCode: broken }]),
      vertexRefusal("params.vertexCode", line, /GLSL syntax/),
    );
    assert.equal(app.presets().find((p) => p.id === presetID)!.vertexCode, vertexCode);
    // preset.validate names the field of each problem.
    const validated = (await edits(app, ["preset.validate", { ...add, vertexCode: broken }]))
      .edits[0]!.result as { valid: boolean; problems: string[] };
    assert.equal(validated.valid, false);
    assert.match(validated.problems[0]!, new RegExp(`^vertexCode: line ${line}, column \\d+: `));
    // Removing the .vs leaves the fragment's varyings unset: refused; the preset keeps it.
    await assert.rejects(
      edits(app, ["preset.update", { kind: "effect", presetID, vertexCode: "" }]),
      /a varying set by the shader's own vertex shader/,
    );
    // A fragment without varyings of its own takes the removal: vertexCode is gone.
    const plain = code.replace(/#if __VERSION__[\s\S]*?#endif/, "")
      .replaceAll(
        /\b(left|right|above|below|lefta|righta|leftb|rightb)_coord\b/g,
        "isf_FragNormCoord",
      );
    await edits(app, ["preset.update", { kind: "effect", presetID, code: plain, vertexCode: "" }]);
    const after = app.presets().find((p) => p.id === presetID)!;
    assert.equal(after.code, plain);
    assert.equal("vertexCode" in after, false);
  });
});

Deno.test("preset.update's check started beside the order is the one its turn takes (code or vertexCode alone)", async () => {
  await withApp(async (app) => {
    const [code, vertexCode] = [await read("Edges.fs"), await read("Edges.vs")];
    const add = { kind: "effect", name: "Edges", type: "isf", code, vertexCode };
    const presetID = (await edits(app, ["preset.add", add])).edits[0]!.created!.presetID!;
    const untaken = ISF_CHECKS.size;
    // Only code: started with the stored .vs, so the turn takes it (no second check left over).
    await edits(app, ["preset.update", { kind: "effect", presetID, code: `${code}\n` }]);
    assert.equal(ISF_CHECKS.size, untaken, "the check started beside was taken in the turn");
    // Only vertexCode: started early too, with the stored code.
    const update = { kind: "effect", presetID, vertexCode: `${vertexCode}\n` };
    const parsed = parseEdits({
      projectId: null,
      edits: [{ name: "preset.update", params: update }],
    });
    const started = checkIsfCodeBeside(parsed, app.presets());
    assert.ok(started, "a vertexCode alone starts a check");
    assert.equal(ISF_CHECKS.size, untaken + 1);
    await started;
    await ISF_CHECKS.take(`${code}\n`, "effect", { vertexCode: `${vertexCode}\n` });
    assert.equal(ISF_CHECKS.size, untaken, "its key is the turn's: code kept, the new .vs");
    // A blank vertexCode is none: the key of the code alone.
    const blank = parseEdits({
      projectId: null,
      edits: [{ name: "preset.update", params: { ...update, vertexCode: " " } }],
    });
    await checkIsfCodeBeside(blank, app.presets());
    await ISF_CHECKS.take(`${code}\n`, "effect");
    assert.equal(ISF_CHECKS.size, untaken);
  });
});

Deno.test("preset.import refuses a .vs that cannot be read as the .fs is refused, naming the .vs", async () => {
  await withApp(async (app, dataDir) => {
    await Deno.writeTextFile(`${dataDir}/Loop.fs`, await read("Edges.fs"));
    await Deno.symlink(`${dataDir}/Loop.vs`, `${dataDir}/Loop.vs`); // a link to itself: ELOOP
    await assert.rejects(
      edits(app, ["preset.import", { path: `${dataDir}/Loop.fs` }]),
      (error: unknown) => {
        assert.ok(error instanceof Refusal, String(error));
        assert.equal(error.code, RpcErrorCode.INVALID_PARAMS);
        assert.ok(
          error.message.startsWith(
            `Invalid params.path: ${quoted(`${dataDir}/Loop.vs`)} cannot be read: `,
          ),
          error.message,
        );
        return true;
      },
    );
  });
});

Deno.test("A type error of the .vs is refused by the check's compiler at its own line, naming vertexCode", async () => {
  await withApp(async (app) => {
    const vertexCode = "void main() {\n  isf_vertShaderInit();\n  gl_Position = vec3(1.0);\n}\n";
    const add = { kind: "effect", name: "Typed", type: "isf", code: INVERT, vertexCode };
    await assert.rejects(
      edits(app, ["preset.add", add]),
      vertexRefusal("params.vertexCode", 3, /cannot convert from/),
    );
    // An ES 3.00 fragment's .vs is compiled as it is (no lifted form).
    const vs300 = `#version 300 es\n${vertexCode}`;
    await assert.rejects(
      edits(app, ["preset.add", { ...add, code: INVERT_300, vertexCode: vs300 }]),
      vertexRefusal("params.vertexCode", 4, /cannot convert from/),
    );
  });
});
