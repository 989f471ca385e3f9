/**
 * The output's shader programs: the layer filters, the built-in Effects
 * (blur, color shift, kaleidoscope) and Visualizers (spectrum bars,
 * oscilloscope). Each is one self-contained GLSL ES 3.00 fragment source
 * that declares its own uniforms, listed beside it with their defaults, so a
 * user preset written as a shader can take the same path (issue 33). The page
 * compiles them with one fixed vertex shader and sets, besides the declared
 * uniforms, the built-ins any of them may declare: `u_image` (the layer so
 * far), `u_resolution` (pixels), `u_time` (seconds on the player's clock),
 * `u_spectrum` and `u_wave` (the Song's audio, 256x1 textures, 0-1).
 * @module
 */
import type { ShaderProgram } from "../../protocol/output.ts";

const HEAD = `#version 300 es
precision highp float;
in vec2 v_uv;
out vec4 outColor;
uniform sampler2D u_image;
uniform vec2 u_resolution;
`;

/** Hue rotation in degrees, shared by the filters and the color shift. */
const HUE_FN = `
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
const BLUR_FN = `
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
const LAYER: ShaderProgram = {
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

/** Every built-in program, by name: `layer`, then the Effect types and Visualizer engines. */
export const BUILT_IN_PROGRAMS: readonly ShaderProgram[] = [
  LAYER,
  BLUR,
  COLOR_SHIFT,
  KALEIDOSCOPE,
  BARS,
  SCOPE,
];
