/**
 * The output's own shader program: the layer filters, the first pass of every
 * layer whose filters change something. Effects and Visualizers, the built-in
 * ones included, are drawn by their presets' ISF code (`isf_programs.ts`);
 * the GLSL programs their built-in types were drawn with before are kept in
 * `tests/player/isf/_built_in_twins.ts`, where the ISF code is checked to draw
 * what they drew. The program is one self-contained GLSL ES 3.00 fragment
 * source that declares its own uniforms, listed beside it with their
 * defaults; the page compiles it with one fixed vertex shader and sets,
 * besides the declared uniforms, the built-ins any program may declare:
 * `u_image` (the layer so far), `u_resolution` (pixels), `u_time` (seconds on
 * the player's clock), `u_spectrum` and `u_wave` (the Song's audio, 256x1
 * textures, 0-1, for the visualizers).
 * @module
 */
import type { ShaderProgram } from "../../protocol/output.ts";

/** The head of a built-in program: its version, its input and output, `u_image`, `u_resolution`. */
export const HEAD = `#version 300 es
precision highp float;
in vec2 v_uv;
out vec4 outColor;
uniform sampler2D u_image;
uniform vec2 u_resolution;
`;

/** Hue rotation in degrees, shared by the filters and the color shift. */
export const HUE_FN = `
vec3 rotateHue(vec3 c, float degrees) {
  float a = radians(degrees);
  const vec3 k = vec3(0.57735);
  float cosA = cos(a);
  return c * cosA + cross(k, c) * sin(a) + k * dot(k, c) * (1.0 - cosA);
}
`;

/**
 * A 5x5 grid of samples spread over `radius` pixels, each between texels (linear filtering
 * averages four): a soft blur at 25 fetches a pixel, which software GL draws at 1280x720 in
 * time (a 13x13 grid drew one frame a second there, measured).
 */
export const BLUR_FN = `
vec4 blurAt(vec2 uv, float radius) {
  if (radius <= 0.0) return texture(u_image, uv);
  vec2 step = radius / 2.0 / u_resolution;
  vec4 sum = vec4(0.0);
  for (int x = -2; x <= 2; x++) {
    for (int y = -2; y <= 2; y++) sum += texture(u_image, uv + vec2(float(x), float(y)) * step);
  }
  return sum / 25.0;
}
`;

/** The Clip's filters; the first pass of every layer. */
export const LAYER: ShaderProgram = {
  name: "layer",
  source: HEAD + HUE_FN + BLUR_FN + `
uniform float brightness;
uniform float contrast;
uniform float saturation;
uniform float hue;
uniform float blur;
void main() {
  vec4 c = blurAt(v_uv, blur);
  vec3 rgb = c.rgb + brightness;
  rgb = (rgb - 0.5) * contrast + 0.5;
  float luma = dot(rgb, vec3(0.2126, 0.7152, 0.0722));
  rgb = mix(vec3(luma), rgb, saturation);
  rgb = rotateHue(rgb, hue);
  outColor = vec4(clamp(rgb, 0.0, 1.0), c.a);
}
`,
  uniforms: [
    { name: "brightness", type: "float", default: 0 },
    { name: "contrast", type: "float", default: 1 },
    { name: "saturation", type: "float", default: 1 },
    { name: "hue", type: "float", default: 0 },
    { name: "blur", type: "float", default: 0 },
  ],
};

/** The programs every page is given when it connects: the layer filters. */
export const BUILT_IN_PROGRAMS: readonly ShaderProgram[] = [LAYER];
