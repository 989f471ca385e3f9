/**
 * The sources `parseIsf` builds compile and link in a real WebGL2 context
 * (headless Chromium, software GL), and a compile error comes back at the
 * user's line.
 */
import assert from "node:assert/strict";
import { mapCompileLog, parseIsf } from "../../../player/isf/mod.ts";
import type { Page } from "puppeteer-core";
import { launchBrowser } from "../../_helpers/browser.ts";
import { needs } from "../../_helpers/peers.ts";
import { EVERY_INPUT, INVERT } from "./_shaders.ts";

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
      for (const code of [INVERT, EVERY_INPUT]) {
        const result = parseIsf(code, "effect");
        if (!result.ok) throw new Error(JSON.stringify(result.problems));
        const log = await compile(page, result.program.vertex, result.program.fragment);
        assert.equal(log, "", log);
      }
      // A type error: the GLSL parser lets it through, the GL compiler does not.
      const broken = INVERT.replace("gl_FragColor = vec4(", "gl_FragColor = vec3(");
      const result = parseIsf(broken, "effect");
      if (!result.ok) throw new Error(JSON.stringify(result.problems));
      const log = await compile(page, result.program.vertex, result.program.fragment);
      const [problem] = mapCompileLog(log, broken, result.program.lineOffset);
      const mainLine = broken.split("\n").findIndex((l) => l.includes("gl_FragColor")) + 1;
      assert.equal(problem?.line, mainLine, log);
    } finally {
      await browser.close();
    }
  },
});
