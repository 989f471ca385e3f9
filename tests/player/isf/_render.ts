/**
 * A tiny ISF renderer in a headless Chromium page, for tests: draws one
 * program into a square canvas with a test picture as `inputImage` and given
 * rows as the audio inputs, and reads the pixels back.
 */
import type { Page } from "puppeteer-core";
import { type IsfProgram, isfUniforms } from "../../../player/isf/mod.ts";
import type { PresetParameter } from "../../../protocol/model.ts";

/** The canvas' side in pixels. */
export const SIZE = 32;

/** Page code, kept as source text: this file is type-checked without the DOM's types. */
const RENDER_IN_PAGE = `(vertex, fragment, uniforms, textures, size) => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = size;
  const gl = canvas.getContext("webgl2", { preserveDrawingBuffer: true });
  const shader = (type, source) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, source);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  };
  const program = gl.createProgram();
  gl.attachShader(program, shader(gl.VERTEX_SHADER, vertex));
  gl.attachShader(program, shader(gl.FRAGMENT_SHADER, fragment));
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) throw new Error(gl.getProgramInfoLog(program));
  gl.useProgram(program);
  gl.bindBuffer(gl.ARRAY_BUFFER, gl.createBuffer());
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
  const position = gl.getAttribLocation(program, "position");
  gl.enableVertexAttribArray(position);
  gl.vertexAttribPointer(position, 2, gl.FLOAT, false, 0, 0);
  const at = (name) => gl.getUniformLocation(program, name);
  gl.uniform2f(at("RENDERSIZE"), size, size);
  for (const u of uniforms) {
    if (u.type === "float") gl.uniform1f(at(u.name), u.value);
    else if (u.type === "vec2") gl.uniform2fv(at(u.name), u.value);
    else if (u.type === "vec3") gl.uniform3fv(at(u.name), u.value);
    else if (u.type === "vec4") gl.uniform4fv(at(u.name), u.value);
    else gl.uniform1i(at(u.name), u.value);
  }
  textures.forEach((t, unit) => {
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, gl.createTexture());
    gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, t.width, t.height, 0, gl.RGBA, gl.UNSIGNED_BYTE,
      new Uint8Array(t.rgba));
    const filter = t.isLinear ? gl.LINEAR : gl.NEAREST;
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, filter);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, filter);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
    gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
    gl.uniform1i(at(t.name), unit);
    gl.uniform2f(at("_" + t.name + "_imgSize"), t.width, t.height);
  });
  gl.viewport(0, 0, size, size);
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
  const pixels = new Uint8Array(size * size * 4);
  gl.readPixels(0, 0, size, size, gl.RGBA, gl.UNSIGNED_BYTE, pixels);
  return Array.from(pixels);
}`;

/** A picture or an audio row, RGBA bytes from the bottom row up. */
export interface TestTexture {
  readonly name: string;
  readonly width: number;
  readonly height: number;
  readonly rgba: number[];
  /** Linear filtering (as the output's layers); nearest otherwise. */
  readonly isLinear?: boolean;
}

/** Pixels read back: `at(x, y)` from the bottom left, as [r, g, b, a] bytes. */
export interface Pixels {
  at(x: number, y: number): number[];
}

/** A SIZE x SIZE picture whose pixel (x, y) is `color(x, y)`. */
export function picture(
  name: string,
  color: (x: number, y: number) => number[],
  isLinear = false,
): TestTexture {
  const rgba: number[] = [];
  for (let y = 0; y < SIZE; y++) for (let x = 0; x < SIZE; x++) rgba.push(...color(x, y));
  return { name, width: SIZE, height: SIZE, rgba, isLinear };
}

/** A 256x1 audio row (spectrum or waveform) of one level byte per bin. */
export function audioRow(name: string, level: (bin: number) => number): TestTexture {
  const rgba = Array.from({ length: 256 }, (_, i) => [level(i), level(i), level(i), 255]).flat();
  return { name, width: 256, height: 1, rgba };
}

/** A uniform as the page sets it. */
export interface PageUniform {
  readonly name: string;
  readonly type: "float" | "int" | "bool" | "vec2" | "vec3" | "vec4";
  readonly value: number | readonly number[];
}

/** Pixels read back, and each one's bytes. */
export interface Drawn extends Pixels {
  readonly bytes: number[];
}

/** Draws `program` with parameter `values` and `textures` (bound in order). */
export function render(
  page: Page,
  program: IsfProgram,
  values: Record<string, PresetParameter["default"]>,
  textures: TestTexture[],
): Promise<Drawn> {
  return renderSources(
    page,
    program.vertex,
    program.fragment,
    isfUniforms(program, values),
    textures,
  );
}

/** Draws a vertex and fragment source (the vertex shader takes `position`, -1..1). */
export async function renderSources(
  page: Page,
  vertex: string,
  fragment: string,
  uniforms: readonly PageUniform[],
  textures: TestTexture[],
): Promise<Drawn> {
  const args = [vertex, fragment, uniforms, textures, SIZE].map((a) => JSON.stringify(a)).join(
    ", ",
  );
  const bytes = await page.evaluate(`(${RENDER_IN_PAGE})(${args})`) as number[];
  return {
    bytes,
    at: (x, y) => bytes.slice((y * SIZE + x) * 4, (y * SIZE + x) * 4 + 4),
  };
}
