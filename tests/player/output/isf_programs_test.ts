import assert from "node:assert/strict";
import { drawsIsf, IsfPrograms, warmBuiltInChecks } from "../../../player/output/isf_programs.ts";
import { shaderPass } from "../../../player/output/render_state.ts";
import { BUILT_IN_PRESETS } from "../../../player/presets.ts";
import type { Preset } from "../../../protocol/model.ts";
import { isfHeaderParameters, type IsfResult, parseIsf } from "../../../player/isf/mod.ts";
import { LOOP_GUARD } from "../../../player/isf/loop_cap.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
import { INVERT_300, SIZES } from "../isf/_passes_shaders.ts";

const invert: Preset = {
  id: "fx-user-1",
  kind: "effect",
  name: "Invert",
  type: "isf",
  builtIn: false,
  quarantine: null,
  code: INVERT,
  parameters: isfHeaderParameters(INVERT),
};

const effect = (presetId: string, params: Record<string, number | string | boolean> = {}) => ({
  id: "e1",
  name: "e1",
  type: "isf",
  presetId,
  enabled: true,
  params,
});

Deno.test("isf presets and the built-in ones are drawn by their code; other types are not", () => {
  assert.ok(drawsIsf(invert));
  assert.ok(BUILT_IN_PRESETS.every(drawsIsf));
  assert.equal(drawsIsf({ ...invert, type: "glow", code: "" }), false);
});

Deno.test("IsfPrograms names a program by its sources: the same code once, new code anew", () => {
  const programs = new IsfPrograms(parseIsf);
  const first = programs.of(invert)!;
  assert.match(first.wire.name, /^isf-[0-9a-f]+$/);
  assert.equal(programs.of({ ...invert, name: "Renamed" })!.wire.name, first.wire.name);
  const changed = programs.of({ ...invert, code: INVERT.replace("1.0 - c.rgb", "c.gbr") })!;
  assert.notEqual(changed.wire.name, first.wire.name);
  assert.equal(programs.named(first.wire.name), first);
  assert.equal(first.wire.vertex, first.isf.vertex, "its own ES 1.00 vertex shader");
  assert.deepEqual(first.wire.samplers, [{ name: "inputImage", type: "image" }]);
  assert.deepEqual(first.wire.uniforms, [{ name: "amount", type: "float", default: 1 }]);
  assert.equal(programs.of({ ...invert, code: "void main() {}" }), null, "no header: none");
});

Deno.test("IsfPrograms keeps the last 64 programs", () => {
  const programs = new IsfPrograms(parseIsf);
  const variant = (i: number) => ({ ...invert, code: INVERT.replace("c.a)", `c.a * ${i}.0)`) });
  const oldest = programs.of(variant(0))!.wire.name;
  for (let i = 1; i <= 64; i++) programs.of(variant(i));
  assert.equal(programs.named(oldest), null);
  assert.ok(programs.named(programs.of(variant(64))!.wire.name));
});

Deno.test("shaderPass() with programs gives an isf preset's uniforms: live, own, default", () => {
  const programs = new IsfPrograms(parseIsf);
  const presets = [...BUILT_IN_PRESETS, invert];
  const own = shaderPass(effect(invert.id, { amount: 0.25 }), { presets, programs });
  assert.deepEqual(own, {
    program: programs.of(invert)!.wire.name,
    uniforms: { amount: 0.25 },
    id: "e1",
  });
  const live = shaderPass(effect(invert.id), { presets, live: { "e1.amount": 0.75 }, programs });
  assert.deepEqual(live.uniforms, { amount: 0.75 });
  assert.deepEqual(shaderPass(effect(invert.id), { presets, programs }).uniforms, { amount: 1 });
});

Deno.test("shaderPass() with programs draws built-ins by their code, live enums and booleans mapped", () => {
  const programs = new IsfPrograms(parseIsf);
  const bars = shaderPass(
    { id: "v", name: "v", engine: "bars", presetId: "viz-spectrum", enabled: true, params: {} },
    { presets: BUILT_IN_PRESETS, live: { "v.style": 1, "v.bands": 12 }, programs },
  );
  const spectrum = BUILT_IN_PRESETS.find((p) => p.id === "viz-spectrum")!;
  assert.equal(bars.program, programs.of(spectrum)!.wire.name);
  assert.deepEqual(bars.uniforms, { bands: 12, style: 1 }, "the outline option's value");
  const kal = shaderPass(
    {
      id: "k",
      name: "k",
      type: "kaleidoscope",
      presetId: "fx-kaleidoscope",
      enabled: true,
      params: {},
    },
    { presets: BUILT_IN_PRESETS, live: { "k.mirror": 0 }, programs },
  );
  assert.deepEqual(kal.uniforms, { segments: 6, mirror: 0 });
  const shift = shaderPass(
    {
      id: "c",
      name: "c",
      type: "color-shift",
      presetId: null,
      enabled: true,
      params: { tint: "#ff8000" },
    },
    { presets: BUILT_IN_PRESETS, live: {}, programs },
  );
  assert.deepEqual(shift.uniforms, { hue: 0, tint: [1, 128 / 255, 0, 1] }, "a vec4 colour");
});

/** A user preset of SIZES: a target "floor($WIDTH / $scale)" wide, $scale 1 to 16. */
const sizes: Preset = {
  ...invert,
  id: "fx-user-2",
  code: SIZES,
  parameters: isfHeaderParameters(SIZES),
};

Deno.test("an ISF program with PASSES carries them, and its pass the sizes of its targets", () => {
  const programs = new IsfPrograms(parseIsf);
  const preset = sizes;
  const entry = programs.of(preset)!;
  assert.deepEqual(entry.wire.passes, [
    { target: "small", persistent: false, float: false },
    { target: "full", persistent: false, float: false },
    { target: null, persistent: false, float: false },
  ]);
  assert.deepEqual(entry.wire.samplers, [{ name: "inputImage", type: "image" }], "targets: none");
  const size = { width: 160, height: 90 };
  const pass = shaderPass(effect(preset.id), {
    presets: [preset],
    live: { "e1.scale": 8 },
    programs,
    size,
  });
  assert.deepEqual(pass.sizes, [[20, 1], [160, 90], [160, 90]], "the live $scale");
  assert.equal(shaderPass(effect(preset.id), { presets: [preset], programs }).sizes, undefined);
  assert.equal(programs.of(invert)!.wire.passes, undefined, "one pass: no passes");
});

Deno.test("a live value of an ISF input is held to its MIN and MAX, in its uniform and its targets' sizes", () => {
  const programs = new IsfPrograms(parseIsf);
  const preset = sizes;
  const size = { width: 160, height: 90 };
  const at = (scale: number) =>
    shaderPass(effect(preset.id), {
      presets: [preset],
      live: { "e1.scale": scale },
      programs,
      size,
    });
  // $scale is 1 to 16: a live 0.25 (SET_PARAM, a Control) would make the target 640 wide.
  assert.deepEqual(at(0.25).uniforms.scale, 1);
  assert.deepEqual(at(0.25).sizes![0], [160, 1], "at MIN");
  assert.deepEqual(at(100).uniforms.scale, 16);
  assert.deepEqual(at(100).sizes![0], [10, 1], "at MAX");
});

Deno.test("an ES 1.00 program carries its ES 3.00 fallback; an ES 3.00 one has none", () => {
  const programs = new IsfPrograms(parseIsf);
  const entry = programs.of(invert)!;
  assert.deepEqual(entry.wire.fallback, {
    source: entry.isf.lifted!.fragment,
    vertex: entry.isf.lifted!.vertex,
  });
  const es3 = programs.of({ ...invert, code: INVERT_300 })!;
  assert.equal(es3.wire.fallback, undefined);
  assert.equal(es3.wire.vertex, es3.isf.vertex);
  assert.match(es3.wire.vertex!, /^#version 300 es/);
});

Deno.test("IsfPrograms draws a preset once its check ended, with the check's capped loops", async () => {
  const checks: Array<PromiseWithResolvers<IsfResult>> = [];
  const programs = new IsfPrograms(() => {
    checks.push(Promise.withResolvers<IsfResult>());
    return checks.at(-1)!.promise;
  });
  let heard = 0;
  programs.onChecked = () => heard++;
  const looping = {
    ...invert,
    code: INVERT.replace("  gl_FragColor", "  for (;;) {}\n  gl_FragColor"),
  };
  assert.equal(programs.of(looping), null, "not drawn before its check ended");
  assert.equal(programs.of(looping), null, "one check a code");
  assert.equal(checks.length, 1);
  checks[0]!.resolve(parseIsf(looping.code, "effect"));
  const entry = await programs.ready(looping);
  assert.equal(heard, 1, "the state is built again");
  assert.equal(programs.of(looping), entry);
  assert.ok(entry!.wire.source.includes(`for (;;) {${" " + LOOP_GUARD.trimEnd()}}`));
  assert.ok(entry!.wire.fallback!.source.includes(LOOP_GUARD.trimEnd()), "and its fallback");
  // A check without a verdict (its checker stalled) is started again when next drawn.
  const other = { ...invert, code: INVERT.replace("c.a)", "c.a * 0.5)") };
  assert.equal(programs.of(other), null);
  checks[1]!.reject(new Error("stalled"));
  await programs.ready(other).catch(() => {});
  assert.equal(programs.of(other), null);
  assert.equal(checks.length, 3, "checked again");
  checks[2]!.resolve(parseIsf(other.code, "effect"));
  assert.ok(await programs.ready(other));
});

Deno.test("IsfPrograms draws a built-in preset's code at once, checked here, not apart", () => {
  let asked = 0;
  const programs = new IsfPrograms(() => {
    asked++;
    return new Promise<IsfResult>(() => {});
  });
  for (const preset of BUILT_IN_PRESETS) assert.ok(programs.of(preset), preset.id);
  assert.equal(asked, 0, "no check apart");
  const claimed = { ...invert, builtIn: true };
  assert.equal(programs.of(claimed), null, "other code said built in: checked apart");
  assert.equal(asked, 1);
});

Deno.test("warmBuiltInChecks checks each built-in ahead, one per turn of the event loop", async () => {
  let turns = 0;
  await warmBuiltInChecks(() => {
    turns++;
    return Promise.resolve();
  });
  assert.equal(turns, BUILT_IN_PRESETS.length, "a turn before each built-in's check");
});

Deno.test("IsfPrograms says once per code a stored preset whose code no longer passes its checks", () => {
  const heard: string[] = [];
  const programs = new IsfPrograms(parseIsf);
  programs.onRefused = (preset, problem) => heard.push(`${preset.id}: ${problem}`);
  const broken = { ...invert, id: "broken", code: "void main() { gl_FragColor = vec4(1.0) }" };
  assert.equal(programs.of(broken), null);
  assert.equal(programs.of(broken), null, "asked again: known, not said again");
  assert.equal(heard.length, 1, heard.join("\n"));
  assert.match(heard[0]!, /^broken: /);
  assert.notEqual(programs.of(invert), null);
  assert.equal(heard.length, 1, "a preset that passes is not said");
});
