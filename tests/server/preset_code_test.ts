/**
 * Bad ISF code in a preset edit is a 422 `INVALID_SHADER` naming the field
 * by its path in the body, with each problem's line and column, on HTTP and
 * over MCP (the SDK's client); nothing is written.
 */
import assert from "node:assert/strict";
import { connectMcp } from "../../tools/testing/mcp_client.ts";
import { startTestService } from "../../tools/testing/service.ts";
import { EVERY_INPUT, INVERT } from "../../tools/testing/isf_shaders.ts";

const ADD = { kind: "effect", name: "Invert", type: "isf", code: INVERT };
/** INVERT with `amount` misspelt in main(): a GLSL error at line 13. */
const UNDECLARED = INVERT.replace("1.0 - c.rgb, amount)", "1.0 - c.rgb, amont)");
/** INVERT with a header that is not JSON at line 4. */
const NOT_JSON = INVERT.replace('"CREDIT": "Cueport tests",', '"CREDIT": "Cueport tests"');

Deno.test("preset code problems are 422 INVALID_SHADER with the field path and lines, on HTTP and MCP", async () => {
  const svc = await startTestService({ legacyHttpPort: 0, legacyWsPort: 0 });
  const mcp = await connectMcp(svc.base);
  try {
    const presets = async () => (await svc.get("/api/v1/presets")).body;
    const before = await presets();

    const one = await svc.post("/api/v1/edit", {
      name: "preset.add",
      params: { ...ADD, code: NOT_JSON },
    });
    assert.equal(one.status, 422, JSON.stringify(one.body));
    assert.equal(one.body.error.code, "INVALID_SHADER");
    assert.equal(one.body.error.details.field, "params.code");
    assert.match(
      one.body.error.message,
      /^Invalid params\.code: line 4, column \d+: the header is not valid JSON/,
    );
    assert.equal(one.body.error.details.problems[0].line, 4);

    const batch = await svc.post("/api/v1/edit", {
      edits: [
        { name: "song.add", params: { title: "Fine" } },
        { name: "preset.add", params: { ...ADD, code: NOT_JSON } },
      ],
    });
    assert.equal(batch.status, 422);
    assert.equal(batch.body.error.details.field, "edits.1.params.code");
    assert.match(batch.body.error.message, /^Invalid edits\.1\.params\.code: line 4/);

    const error = await mcp.callError("app_preset_edit", {
      edits: [{ name: "preset.add", params: { ...ADD, code: NOT_JSON } }],
    });
    assert.equal(error.code, "INVALID_SHADER");
    assert.equal(error.details.field, "edits.0.params.code");
    assert.equal(error.details.problems[0].line, 4);
    assert.match(error.hint, /details\.problems/);

    // The 5.0.0 port knows no 422: the same refusal as its 400 INVALID_MESSAGE.
    const v5 = await fetch(`http://127.0.0.1:${svc.service.ports.legacyHttp}/api/v1/edit`, {
      method: "POST",
      body: JSON.stringify({ edit: { name: "preset.add", params: { ...ADD, code: NOT_JSON } } }),
    });
    const v5Body = await v5.json();
    assert.equal(v5.status, 400, JSON.stringify(v5Body));
    assert.match(JSON.stringify(v5Body), /line 4, column \d+: the header is not valid JSON/);

    assert.deepEqual(await presets(), before, "nothing is written");
    const songs = (await svc.get("/api/v1/projects/show/songs")).body.songs;
    assert.ok(!songs.some((s: { title: string }) => s.title === "Fine"));

    const check = await mcp.call("app_validate_preset", { ...ADD, code: NOT_JSON });
    assert.equal(check.structuredContent.valid, false);
    assert.match(check.structuredContent.problems[0], /^code: line 4, column \d+: /);

    const added = await mcp.call("app_preset_edit", {
      edits: [{ name: "preset.add", params: ADD }],
    });
    const presetID = added.structuredContent.edits[0].created.presetID;
    const preset = (await svc.get(`/api/v1/presets/effect/${presetID}`)).body;
    assert.deepEqual(preset.parameters, [
      { name: "amount", type: "number", min: 0, max: 1, default: 1 },
    ]);
    assert.equal(preset.code, INVERT, "export is reading the preset");

    const typo = await svc.post("/api/v1/edit", {
      name: "preset.update",
      params: { kind: "effect", presetID, code: UNDECLARED },
    });
    assert.equal(typo.status, 422);
    assert.deepEqual(typo.body.error.details.problems, [{
      line: 13,
      column: UNDECLARED.split("\n")[12]!.indexOf("amont") + 1,
      message: "'amont' : undeclared identifier",
    }]);
    const kept = (await svc.get(`/api/v1/presets/effect/${presetID}`)).body;
    assert.equal(kept.code, INVERT, "the working code stays");
  } finally {
    await mcp.close();
    await svc.stop();
  }
});

Deno.test("an .fs file uploaded, or named by path from the show machine, becomes an isf preset", async () => {
  const svc = await startTestService();
  const dir = await Deno.makeTempDir();
  try {
    const upload = async (name: string, text: string) => {
      const form = new FormData();
      form.append("file", new Blob([text]), name);
      const res = await fetch(`${svc.base}/api/v1/files/upload`, { method: "POST", body: form });
      return { status: res.status, body: await res.json() };
    };
    const uploaded = await upload("Every Input.fs", EVERY_INPUT);
    assert.equal(uploaded.status, 200, JSON.stringify(uploaded.body));
    const presetID = uploaded.body.edits[0].created.presetID;
    const preset = (await svc.get(`/api/v1/presets/visualizer/${presetID}`)).body;
    assert.deepEqual([preset.name, preset.type, preset.code], ["Every Input", "isf", EVERY_INPUT]);
    assert.deepEqual(preset.parameters.map((p: { name: string }) => p.name), [
      "level",
      "flash",
      "invert",
      "mode",
      "tint",
      "center_x",
      "center_y",
    ]);
    const files = (await svc.get("/api/v1/projects/show")).body.files;
    assert.ok(!files.some((f: { name: string }) => f.name.endsWith(".fs")), "no media file");

    const refused = await upload("Broken.fs", NOT_JSON);
    assert.equal(refused.status, 422);
    assert.equal(refused.body.error.details.field, "file");
    assert.match(refused.body.error.message, /^Invalid file: line 4, column \d+: /);

    await Deno.writeTextFile(`${dir}/Invert.fs`, INVERT);
    const local = await svc.post("/api/v1/edit", {
      name: "preset.import",
      params: { path: `${dir}/Invert.fs` },
    });
    assert.equal(local.status, 200, JSON.stringify(local.body));
    const invert = local.body.edits[0].created.presetID;
    assert.equal((await svc.get(`/api/v1/presets/effect/${invert}`)).body.name, "Invert");
  } finally {
    await Deno.remove(dir, { recursive: true });
    await svc.stop();
  }
});
