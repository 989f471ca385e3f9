/**
 * The GLSL programs the output drew its built-in Effects (blur, color shift,
 * kaleidoscope) and Visualizers (spectrum bars, oscilloscope) with before their
 * presets' ISF code drew them (`player/output/isf_programs.ts`): kept here as
 * the reference that code is checked against (`isf_compile_test.ts`), not
 * shipped to the pages. Each is named by its Effect type or Visualizer engine,
 * as `shaderPass` names a pass without a program of its preset.
 * @module
 */
import type { ShaderProgram } from "../../../protocol/output.ts";
import { BLUR_FN, HEAD, HUE_FN, LAYER } from "../../../player/output/shaders.ts";

const BLUR: ShaderProgram = {
  name: "blur",
  source: HEAD + BLUR_FN + `
uniform float radius;
void main() { outColor = blurAt(v_uv, radius); }
`,
  uniforms: [{ name: "radius", type: "float", default: 4 }],
};

const COLOR_SHIFT: ShaderProgram = {
  name: "color-shift",
  source: HEAD + HUE_FN + `
uniform float hue;
uniform vec3 tint;
void main() {
  vec4 c = texture(u_image, v_uv);
  outColor = vec4(clamp(rotateHue(c.rgb, hue) * tint, 0.0, 1.0), c.a);
}
`,
  uniforms: [
    { name: "hue", type: "float", default: 0 },
    { name: "tint", type: "vec3", default: [1, 1, 1] },
  ],
};

const KALEIDOSCOPE: ShaderProgram = {
  name: "kaleidoscope",
  source: HEAD + `
uniform float segments;
uniform bool mirror;
void main() {
  vec2 p = v_uv - 0.5;
  float r = length(p);
  float sector = 6.28318530718 / max(segments, 1.0);
  float a = mod(atan(p.y, p.x), sector);
  if (mirror && a > sector * 0.5) a = sector - a;
  outColor = texture(u_image, vec2(cos(a), sin(a)) * r + 0.5);
}
`,
  uniforms: [
    { name: "segments", type: "float", default: 6 },
    { name: "mirror", type: "bool", default: true },
  ],
};

const BARS: ShaderProgram = {
  name: "bars",
  source: HEAD + `
uniform sampler2D u_spectrum;
uniform float bands;
uniform float style;
void main() {
  float n = max(bands, 1.0);
  float band = floor(v_uv.x * n);
  // Bands on a log scale of frequency, as the ear hears them: 20 Hz to the top bin.
  float at = pow(0.004, 1.0 - (band + 0.5) / n);
  float level = texture(u_spectrum, vec2(at, 0.5)).r;
  float inBar = step(fract(v_uv.x * n), 0.8) * step(v_uv.y, level);
  float edge = style > 0.5 ? step(level - 0.01, v_uv.y) : 1.0;
  vec4 under = texture(u_image, v_uv);
  outColor = mix(under, vec4(0.2, 0.9, 1.0, 1.0), inBar * edge);
}
`,
  uniforms: [
    { name: "bands", type: "float", default: 32 },
    { name: "style", type: "float", default: 0 },
  ],
};

const SCOPE: ShaderProgram = {
  name: "scope",
  source: HEAD + `
uniform sampler2D u_wave;
uniform float thickness;
void main() {
  float w = texture(u_wave, vec2(v_uv.x, 0.5)).r;
  float line = 1.0 - step(thickness / u_resolution.y, abs(v_uv.y - w));
  vec4 under = texture(u_image, v_uv);
  outColor = mix(under, vec4(1.0, 0.9, 0.2, 1.0), line);
}
`,
  uniforms: [{ name: "thickness", type: "float", default: 2 }],
};

/** The layer filters, then the built-in Effect types and Visualizer engines, by name. */
export const TWIN_PROGRAMS: readonly ShaderProgram[] = [
  LAYER,
  BLUR,
  COLOR_SHIFT,
  KALEIDOSCOPE,
  BARS,
  SCOPE,
];
