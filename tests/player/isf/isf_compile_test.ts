/**
 * The sources `parseIsf` builds compile and link in a real WebGL2 context
 * (headless Chromium, software GL), and a compile error comes back at the
 * user's line.
 */
import assert from "node:assert/strict";
import { mapCompileLog, parseIsf } from "../../../player/isf/mod.ts";
import type { Page } from "puppeteer-core";
import { launchBrowser } from "../../../tools/testing/browser.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { EVERY_INPUT, INVERT } from "../../../tools/testing/isf_shaders.ts";
import { loadCollection } from "./_collection.ts";
import { HOLD, INVERT_300, LOOP_BOUND, SIZES, TWO_PASS_BLUR } from "./_passes_shaders.ts";
import { audioRow, type PageUniform, picture, render, renderSources, SIZE } from "./_render.ts";
import { BUILT_IN_PRESETS } from "../../../player/presets.ts";
import { TWIN_PROGRAMS } from "./_built_in_twins.ts";
import { shaderPass } from "../../../player/output/render_state.ts";
import type { Preset } from "../../../protocol/model.ts";

// Page code, kept as source text: this file is type-checked without the DOM's types.
/** Compiles and links in the page; answers the log ("" when both compile and link). */
const COMPILE_IN_PAGE = `(vertex, fragment) => {
  const gl = document.createElement("canvas").getContext("webgl2");
  if (!gl) return "no WebGL2";
  const shader = (type, source) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, source);
    gl.compileShader(s);
    return s;
  };
  const vs = shader(gl.VERTEX_SHADER, vertex);
  const fs = shader(gl.FRAGMENT_SHADER, fragment);
  for (const s of [vs, fs]) {
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) return gl.getShaderInfoLog(s);
  }
  const program = gl.createProgram();
  gl.attachShader(program, vs);
  gl.attachShader(program, fs);
  gl.linkProgram(program);
  return gl.getProgramParameter(program, gl.LINK_STATUS) ? "" : gl.getProgramInfoLog(program);
}`;

function compile(page: Page, vertex: string, fragment: string): Promise<string> {
  return page.evaluate(
    `(${COMPILE_IN_PAGE})(${JSON.stringify(vertex)}, ${JSON.stringify(fragment)})`,
  ) as Promise<string>;
}

Deno.test({
  ...needs("chromium"),
  name: "parseIsf() sources compile in WebGL2; a compile error maps to the user's line",
  async fn() {
    const browser = await launchBrowser(["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]);
    try {
      const page = await browser.browser.newPage();
      /** GL's log for `code`'s sources, and its first problem at the user's lines. */
      const glLog = async (code: string) => {
        const result = parseIsf(code, "effect");
        if (!result.ok) throw new Error(JSON.stringify(result.problems));
        const log = await compile(page, result.program.vertex, result.program.fragment);
        return { log, problem: mapCompileLog(log, code, result.program.lineOffset)[0] };
      };
      for (const code of [INVERT, EVERY_INPUT, INVERT_300, SIZES, TWO_PASS_BLUR, HOLD]) {
        const { log } = await glLog(code);
        assert.equal(log, "", log);
      }
      const lineOf = (code: string) =>
        code.split("\n").findIndex((l) => l.includes("gl_FragColor")) + 1;
      // A type error: the GLSL parser lets it through, the GL compiler does not.
      const broken = INVERT.replace("gl_FragColor = vec4(", "gl_FragColor = vec3(");
      const typeError = await glLog(broken);
      assert.equal(typeError.problem?.line, lineOf(broken), typeError.log);
      // ES 1.00's loop limit: GL refuses the ES 1.00 sources and takes the lifted ES 3.00 ones.
      const limited = await glLog(LOOP_BOUND);
      assert.match(limited.log, /Loop index cannot be compared with non-constant expression/);
      assert.equal(
        limited.problem?.line,
        LOOP_BOUND.split("\n").findIndex((l) => l.includes("for (")) + 1,
      );
      const parsed = parseIsf(LOOP_BOUND, "effect");
      const lifted = parsed.ok ? parsed.program.lifted : null;
      assert(lifted, "ES 1.00 code has lifted ES 3.00 sources");
      assert.equal(await compile(page, lifted.vertex, lifted.fragment), "");
      // GLSL ES 3.00 has no gl_FragColor: GL says so at its line.
      const es1Output = INVERT_300.replace("fragColor = vec4(", "gl_FragColor = vec4(");
      const es3 = await glLog(es1Output);
      assert.equal(es3.problem?.line, lineOf(es1Output), es3.log);
      await compilesWithVertexShaders(page);
    } finally {
      await browser.close();
    }
  },
});

/**
 * Every `.vs` of the ISF collection links with its `.fs` in their lifted ES 3.00 sources (ES
 * 1.00's `varying` defined away), which the output falls back to; their ES 1.00 sources link
 * for all but at most 3 (ES 1.00's loop and index limits). A type error in a `.vs` maps to
 * its own line.
 */
async function compilesWithVertexShaders(page: Page): Promise<void> {
  let linked = 0;
  const es1Refused: string[] = [];
  for (const { name, kind, code, vertexCode } of await loadCollection()) {
    if (vertexCode === undefined) continue;
    const result = parseIsf(code, kind, { vertexCode });
    if (!result.ok) continue; // refused for another cause (a second image input, ...)
    const { vertex, fragment, lifted } = result.program;
    const liftedLog = lifted ? await compile(page, lifted.vertex, lifted.fragment) : "";
    assert.equal(liftedLog, "", `${name} lifted: ${liftedLog}`);
    const log = await compile(page, vertex, fragment);
    if (log !== "") {
      assert.ok(lifted, `${name} (ES 3.00, no other sources): ${log}`);
      es1Refused.push(`${name}: ${log.slice(0, 120)}`);
    }
    linked++;
  }
  assert.ok(linked >= 36, `${linked} .vs files linked`);
  // ES 1.00's limits (a loop bound or an index not constant) refuse City Lights, Neon and
  // Thermal Camera, which the output draws from their lifted sources: no more than these.
  assert.ok(es1Refused.length <= 3, `ES 1.00 sources refused:\n${es1Refused.join("\n")}`);
  const vs = "void main() {\n  isf_vertShaderInit();\n  gl_Position = vec3(1.0);\n}\n";
  const result = parseIsf(INVERT, "effect", { vertexCode: vs });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  const log = await compile(page, result.program.vertex, result.program.fragment);
  assert.equal(mapCompileLog(log, vs, result.program.vertexLineOffset!)[0]?.line, 3, log);
}

/** The kaleidoscope's mapping, as its shader computes it: the picture's point pixel (x, y) shows. */
function kaleidoscopeSource(x: number, y: number, segments: number): [number, number] {
  const [px, py] = [(x + 0.5) / SIZE - 0.5, (y + 0.5) / SIZE - 0.5];
  const r = Math.hypot(px, py);
  const sector = (2 * Math.PI) / segments;
  const angle = Math.atan2(py, px);
  let a = angle - sector * Math.floor(angle / sector);
  if (a > sector / 2) a = sector - a;
  return [Math.cos(a) * r + 0.5, Math.sin(a) * r + 0.5];
}

function builtIn(id: string) {
  const preset = BUILT_IN_PRESETS.find((p) => p.id === id)!;
  const result = parseIsf(preset.code, preset.kind);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.program;
}

function near(actual: number[], expected: number[], tolerance: number, what: string): void {
  const isNear = expected.every((e, i) => Math.abs((actual[i] ?? -999) - e) <= tolerance);
  assert.ok(isNear, `${what}: ${JSON.stringify(actual)} is not ${JSON.stringify(expected)}`);
}

Deno.test({
  ...needs("chromium"),
  name: "the built-in presets' ISF code compiles in WebGL2 and draws what each preset should",
  async fn() {
    const browser = await launchBrowser(["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]);
    try {
      const page = await browser.browser.newPage();
      const red = picture("inputImage", () => [255, 0, 0, 255]);
      const black = picture("inputImage", () => [0, 0, 0, 255]);
      const gradient = picture("inputImage", (x, y) => [x * 8, y * 8, 0, 255]);
      const halves = picture(
        "inputImage",
        (x) => x < SIZE / 2 ? [255, 255, 255, 255] : [0, 0, 0, 255],
        true,
      );

      const shift = builtIn("fx-color-shift");
      // Red turned half way round the hue circle is cyan at two thirds.
      near(
        (await render(page, shift, { hue: 180 }, [red])).at(5, 5),
        [0, 170, 170, 255],
        2,
        "hue 180",
      );
      const tinted = await render(page, shift, { tint: "#00ff00" }, [
        picture("inputImage", () => [255, 255, 255, 255]),
      ]);
      near(tinted.at(5, 5), [0, 255, 0, 255], 1, "tint");

      const kaleidoscope = builtIn("fx-kaleidoscope");
      const drawn = await render(page, kaleidoscope, { segments: 6, mirror: true }, [gradient]);
      let checked = 0;
      for (let y = 0; y < SIZE; y += 3) {
        for (let x = 0; x < SIZE; x += 3) {
          const [u, v] = kaleidoscopeSource(x, y, 6).map((c) => c * SIZE);
          const isOnEdge = [u!, v!].some((c) => Math.abs(c - Math.round(c)) < 0.05);
          if (isOnEdge) continue; // a texel boundary: either side is right
          const texel = [u!, v!].map((c) => Math.min(SIZE - 1, Math.max(0, Math.floor(c))) * 8);
          near(drawn.at(x, y), [texel[0]!, texel[1]!, 0, 255], 0, `kaleidoscope at ${x},${y}`);
          checked++;
        }
      }
      assert.ok(checked > 80, `${checked} pixels checked`);

      const blur = builtIn("fx-blur");
      const sharp = await render(page, blur, { radius: 0 }, [halves]);
      near(sharp.at(SIZE / 2 - 1, 5), [255, 255, 255, 255], 0, "radius 0, left");
      near(sharp.at(SIZE / 2, 5), [0, 0, 0, 255], 0, "radius 0, right");
      const soft = await render(page, blur, { radius: 8 }, [halves]);
      near(soft.at(0, 5), [255, 255, 255, 255], 0, "far from the edge");
      near(soft.at(SIZE - 1, 5), [0, 0, 0, 255], 0, "far from the edge");
      const edge = soft.at(SIZE / 2, 5)[0]!;
      assert.ok(edge > 30 && edge < 225, `the edge is blurred: ${edge}`);

      const bars = builtIn("viz-spectrum");
      const half = audioRow("spectrum", () => 128);
      const solid = await render(page, bars, { bands: 8 }, [black, half]);
      near(solid.at(1, 4), [51, 230, 255, 255], 1, "in a bar, under its level");
      near(solid.at(1, 28), [0, 0, 0, 255], 0, "above the level");
      near(solid.at(3, 4), [0, 0, 0, 255], 0, "between bars");
      const outline = await render(page, bars, { bands: 8, style: "outline" }, [black, half]);
      near(outline.at(1, 4), [0, 0, 0, 255], 0, "outline: no fill under the level");

      const scope = builtIn("viz-scope");
      const flat = await render(page, scope, { thickness: 2 }, [
        black,
        audioRow("wave", () => 128),
      ]);
      near(flat.at(10, 15), [255, 230, 51, 255], 1, "on the line of a silent wave");
      near(flat.at(10, 4), [0, 0, 0, 255], 0, "away from the line");
    } finally {
      await browser.close();
    }
  },
});

/** The output's vertex shader (`player/output/page/gl.js`), with the harness' attribute name. */
const OUTPUT_VERTEX = `#version 300 es
in vec2 position;
out vec2 v_uv;
void main() { v_uv = position * 0.5 + 0.5; gl_Position = vec4(position, 0.0, 1.0); }
`;

/** The output's program for a built-in preset, with the uniforms the renderer gives it. */
function outputPass(preset: Preset, params: Record<string, number | string | boolean>) {
  const item = preset.kind === "effect"
    ? { id: "e", name: "e", type: preset.type, presetId: preset.id, enabled: true, params }
    : { id: "v", name: "v", engine: preset.type, presetId: preset.id, enabled: true, params };
  const pass = shaderPass(item, { presets: BUILT_IN_PRESETS });
  const program = TWIN_PROGRAMS.find((p) => p.name === pass.program)!;
  const uniforms: PageUniform[] = [
    { name: "u_resolution", type: "vec2", value: [SIZE, SIZE] },
    ...program.uniforms.map((u) => {
      const value = pass.uniforms[u.name] ?? u.default;
      return {
        name: u.name,
        type: u.type,
        value: typeof value === "boolean" ? Number(value) : value,
      };
    }),
  ];
  return { source: program.source, uniforms };
}

Deno.test({
  ...needs("chromium"),
  name: "each built-in preset's ISF code draws what the output's program of its type draws",
  async fn() {
    const browser = await launchBrowser(["--use-angle=swiftshader", "--enable-unsafe-swiftshader"]);
    try {
      const page = await browser.browser.newPage();
      const scene = (x: number, y: number) => [x * 8, y * 8, (x ^ y) & 4 ? 255 : 40, 255];
      const spectrum = (bin: number) => bin;
      const wave = (bin: number) => Math.round(128 + 100 * Math.sin(bin / 20));
      const cases: Array<[string, Record<string, number | string | boolean>]> = [
        ["fx-blur", { radius: 4 }],
        ["fx-color-shift", { hue: 120, tint: "#ff8040" }],
        ["fx-kaleidoscope", { segments: 6, mirror: true }],
        ["fx-kaleidoscope", { segments: 5, mirror: false }],
        ["viz-spectrum", { bands: 16, style: "solid" }],
        ["viz-spectrum", { bands: 16, style: "outline" }],
        ["viz-scope", { thickness: 3 }],
      ];
      for (const [id, params] of cases) {
        const preset = BUILT_IN_PRESETS.find((p) => p.id === id)!;
        const isf = await render(page, builtIn(id), params, [
          picture("inputImage", scene, true),
          audioRow("spectrum", spectrum),
          audioRow("wave", wave),
        ]);
        const output = outputPass(preset, params);
        const drawn = await renderSources(page, OUTPUT_VERTEX, output.source, output.uniforms, [
          picture("u_image", scene, true),
          audioRow("u_spectrum", spectrum),
          audioRow("u_wave", wave),
        ]);
        const worst = Math.max(...isf.bytes.map((b, i) => Math.abs(b - drawn.bytes[i]!)));
        assert.ok(worst <= 2, `${id} ${JSON.stringify(params)}: pixels differ by up to ${worst}`);
      }
    } finally {
      await browser.close();
    }
  },
});
