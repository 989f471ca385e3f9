import assert from "node:assert/strict";
import { PAGE_KEEPS, PagePrograms } from "../../../player/output/page_programs.ts";
import { IsfPrograms } from "../../../player/output/isf_programs.ts";
import { isfHeaderParameters, parseIsf } from "../../../player/isf/mod.ts";
import type { Preset } from "../../../protocol/model.ts";
import type { RenderState } from "../../../protocol/output.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

const preset = (code: string): Preset => ({
  id: "fx-user-1",
  kind: "effect",
  name: "Invert",
  type: "isf",
  builtIn: false,
  quarantine: null,
  code,
  parameters: isfHeaderParameters(code),
});

/** A state whose one layer has the Effect "e1" drawn by `program`. */
function stateWith(program: string, seq: number): RenderState {
  const layer = {
    clipId: "red",
    kind: "image" as const,
    source: null,
    name: "red",
    position: 0,
    at: 0,
    rate: 0,
    duration: 1,
    loop: false,
    opacity: 1,
    volume: 1,
    filters: { brightness: 0, contrast: 1, saturation: 1, hue: 0, blur: 0 },
    effects: [{ program, uniforms: {}, id: "e1" }],
  };
  return {
    seq,
    clock: { now: 0, rate: 0 },
    display: { width: 4, height: 4, fps: 30, backgroundColor: "#000000", zoom: 1 },
    layers: [layer],
    song: null,
    visualizers: [],
    level: 1,
    fullScreen: false,
    panic: 0,
  };
}

Deno.test("PagePrograms sends each program once a page, before its first state", () => {
  const page = new PagePrograms(new IsfPrograms(parseIsf));
  const name = page.programs.of(preset(INVERT))!.wire.name;
  assert.deepEqual(page.prepare(stateWith(name, 1), 10).programs.map((p) => p.name), [name]);
  assert.deepEqual(page.prepare(stateWith(name, 2), 20).programs, []);
  assert.deepEqual(page.pushes, [{ name, seq: 1, at: 10 }]);
  page.pageConnected();
  assert.deepEqual(page.prepare(stateWith(name, 3), 30).programs.map((p) => p.name), [name]);
});

Deno.test("PagePrograms draws a refused program's Effect with its last working one", () => {
  const page = new PagePrograms(new IsfPrograms(parseIsf));
  const good = page.programs.of(preset(INVERT))!.wire.name;
  const broken = INVERT.replace("gl_FragColor = vec4(", "gl_FragColor = vec3(");
  const bad = page.programs.of(preset(broken))!.wire.name;
  page.prepare(stateWith(good, 1), 0);
  const before = stateWith(bad, 2);
  page.prepare(before, 0);
  assert.equal(before.layers[0]!.effects[0]!.program, bad, "not known to fail yet");
  const line = broken.split("\n").findIndex((l) => l.includes("gl_FragColor")) + 1;
  const log = `ERROR: 0:${line + page.programs.named(bad)!.isf.lineOffset}: 'assign' : ` +
    "cannot convert from 'highp 3-component vector of float' to 'FragColor mediump 4-component vector of float'";
  const message = page.refused(bad, log);
  assert.match(message, new RegExp(`effect preset "Invert" \\(fx-user-1\\).*line ${line}, column`));
  const after = stateWith(bad, 3);
  page.prepare(after, 0);
  assert.equal(after.layers[0]!.effects[0]!.program, good);
});

Deno.test("PagePrograms maps a refused vertex shader's log to the lines of the preset's vertexCode", () => {
  const page = new PagePrograms(new IsfPrograms(parseIsf));
  const vertexCode = "void main() {\n  isf_vertShaderInit();\n  gl_Position = vec3(1.0);\n}\n";
  const entry = page.programs.of({ ...preset(INVERT), vertexCode })!;
  assert.equal(entry.wire.ownVertex, true);
  assert.equal(page.programs.of(preset(INVERT))!.wire.ownVertex, undefined);
  const log = `vertex shader:\nERROR: 0:${3 + entry.isf.vertexLineOffset!}: 'assign' : ` +
    "cannot convert from 'const 3-component vector of float' to 'Position highp 4-component vector of float'";
  const message = page.refused(entry.wire.name, log);
  assert.match(message, /line 3, column \d+: vertexCode: 'assign' : cannot convert/);
});

Deno.test("PagePrograms has the page delete programs past PAGE_KEEPS that nothing draws", () => {
  const page = new PagePrograms(new IsfPrograms(parseIsf));
  const names: string[] = [];
  let drop: string[] = [];
  for (let i = 0; i <= PAGE_KEEPS + 1; i++) {
    const code = INVERT.replace("c.a)", `c.a * ${i}.0)`);
    names.push(page.programs.of(preset(code))!.wire.name);
    // Effect e1 moves from one program to the next (each code edit makes one).
    drop = page.prepare(stateWith(names.at(-1)!, i), 0).drop;
    if (i < PAGE_KEEPS) assert.deepEqual(drop, [], `edit ${i}`);
    else break;
  }
  assert.equal(drop.length, PAGE_KEEPS, "all but the one drawn");
  assert.ok(!drop.includes(names.at(-1)!));
  const again = page.prepare(stateWith(names[0]!, 99), 0);
  assert.deepEqual(again.programs.map((p) => p.name), [names[0]], "a dropped one is sent again");
});
