/**
 * The built-in presets' shaders, written in ISF (the format of user presets,
 * so that there is one path): the only code the output draws them with. Each
 * draws what the GLSL ES 3.00 program of the same name drew before it (kept,
 * not shipped, as the reference in `tests/player/isf/_built_in_twins.ts`,
 * which `tests/player/isf/isf_compile_test.ts` compares them with), with
 * `inputImage` for the layer so far, `RENDERSIZE` for its size in pixels,
 * and the Song's audio as an `audioFFT` input (`spectrum`, 0-1 levels) and
 * an `audio` input (`wave`, 0-1 with silence at 0.5). Their parameters are
 * those of the presets (same names, ranges and defaults).
 * @module
 */

/** Hue rotation in degrees about the grey axis (Rodrigues' formula). */
const ROTATE_HUE = `vec3 rotateHue(vec3 c, float degrees) {
  float a = radians(degrees);
  vec3 k = vec3(0.57735);
  float cosA = cos(a);
  return c * cosA + cross(k, c) * sin(a) + k * dot(k, c) * (1.0 - cosA);
}`;

/** `fx-blur`: a 5x5 grid of samples spread over `radius` pixels, between texels. */
export const BLUR_SHADER = `/*{
  "DESCRIPTION": "Blurs the layer over radius pixels",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Blur"],
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "radius", "TYPE": "float", "MIN": 0, "MAX": 50, "DEFAULT": 4 }
  ]
}*/
void main() {
  vec2 uv = isf_FragNormCoord;
  if (radius <= 0.0) {
    gl_FragColor = IMG_NORM_PIXEL(inputImage, uv);
    return;
  }
  vec2 spread = radius / 2.0 / RENDERSIZE;
  vec4 sum = vec4(0.0);
  for (int x = -2; x <= 2; x++) {
    for (int y = -2; y <= 2; y++) {
      sum += IMG_NORM_PIXEL(inputImage, uv + vec2(float(x), float(y)) * spread);
    }
  }
  gl_FragColor = sum / 25.0;
}
`;

/** `fx-color-shift`: the hue turned by `hue` degrees, then multiplied by `tint`. */
export const COLOR_SHIFT_SHADER = `/*{
  "DESCRIPTION": "Turns the hue and tints the layer",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Color Adjustment"],
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "hue", "TYPE": "float", "MIN": -180, "MAX": 180, "DEFAULT": 0 },
    { "NAME": "tint", "TYPE": "color", "DEFAULT": [1, 1, 1, 1] }
  ]
}*/
${ROTATE_HUE}

void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(clamp(rotateHue(c.rgb, hue) * tint.rgb, 0.0, 1.0), c.a);
}
`;

/** `fx-kaleidoscope`: `segments` copies of one wedge around the centre, every other mirrored. */
export const KALEIDOSCOPE_SHADER = `/*{
  "DESCRIPTION": "Repeats a wedge of the layer around its centre",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Geometry Adjustment"],
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "segments", "TYPE": "float", "MIN": 2, "MAX": 32, "DEFAULT": 6 },
    { "NAME": "mirror", "TYPE": "bool", "DEFAULT": true }
  ]
}*/
void main() {
  vec2 p = isf_FragNormCoord - 0.5;
  float r = length(p);
  float sector = 6.28318530718 / max(segments, 1.0);
  float a = mod(atan(p.y, p.x), sector);
  if (mirror && a > sector * 0.5) a = sector - a;
  gl_FragColor = IMG_NORM_PIXEL(inputImage, vec2(cos(a), sin(a)) * r + 0.5);
}
`;

/** `viz-spectrum`: `bands` bars of the spectrum on a log scale of frequency, over the layer. */
export const SPECTRUM_BARS_SHADER = `/*{
  "DESCRIPTION": "Spectrum bars over the layer",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Audio Visualizer"],
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "spectrum", "TYPE": "audioFFT" },
    { "NAME": "bands", "TYPE": "float", "MIN": 8, "MAX": 128, "DEFAULT": 32 },
    { "NAME": "style", "TYPE": "long", "VALUES": [0, 1], "LABELS": ["solid", "outline"], "DEFAULT": 0 }
  ]
}*/
void main() {
  vec2 uv = isf_FragNormCoord;
  float n = max(bands, 1.0);
  float band = floor(uv.x * n);
  // Bands on a log scale of frequency, as the ear hears them: 20 Hz to the top bin.
  float at = pow(0.004, 1.0 - (band + 0.5) / n);
  float level = IMG_NORM_PIXEL(spectrum, vec2(at, 0.5)).r;
  float inBar = step(fract(uv.x * n), 0.8) * step(uv.y, level);
  float edge = style == 1 ? step(level - 0.01, uv.y) : 1.0;
  vec4 under = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = mix(under, vec4(0.2, 0.9, 1.0, 1.0), inBar * edge);
}
`;

/** `viz-scope`: the waveform as a line `thickness` pixels high, over the layer. */
export const OSCILLOSCOPE_SHADER = `/*{
  "DESCRIPTION": "The waveform as a line over the layer",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Audio Visualizer"],
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "wave", "TYPE": "audio" },
    { "NAME": "thickness", "TYPE": "float", "MIN": 1, "MAX": 10, "DEFAULT": 2 }
  ]
}*/
void main() {
  vec2 uv = isf_FragNormCoord;
  float w = IMG_NORM_PIXEL(wave, vec2(uv.x, 0.5)).r;
  float line = 1.0 - step(thickness / RENDERSIZE.y, abs(uv.y - w));
  vec4 under = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = mix(under, vec4(1.0, 0.9, 0.2, 1.0), line);
}
`;

/** `tr-dissolve`: the outgoing picture fades into the incoming one (ISF-Files' Dissolve.fs). */
export const DISSOLVE_SHADER = `/*{
  "DESCRIPTION": "Fades the outgoing picture into the incoming one",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Dissolve"],
  "INPUTS": [
    { "NAME": "startImage", "TYPE": "image" },
    { "NAME": "endImage", "TYPE": "image" },
    { "NAME": "progress", "TYPE": "float", "MIN": 0, "MAX": 1, "DEFAULT": 0 }
  ]
}*/
void main() {
  gl_FragColor = mix(IMG_THIS_NORM_PIXEL(startImage), IMG_THIS_NORM_PIXEL(endImage), progress);
}
`;

/** `tr-wipe`: the incoming picture wipes over the outgoing one along `angle`, its edge `softness` wide. */
export const WIPE_SHADER = `/*{
  "DESCRIPTION": "The incoming picture wipes over the outgoing one",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Wipe"],
  "INPUTS": [
    { "NAME": "startImage", "TYPE": "image" },
    { "NAME": "endImage", "TYPE": "image" },
    { "NAME": "progress", "TYPE": "float", "MIN": 0, "MAX": 1, "DEFAULT": 0 },
    { "NAME": "angle", "TYPE": "float", "MIN": 0, "MAX": 360, "DEFAULT": 0 },
    { "NAME": "softness", "TYPE": "float", "MIN": 0, "MAX": 0.5, "DEFAULT": 0.05 }
  ]
}*/
void main() {
  float a = radians(angle);
  vec2 direction = vec2(cos(a), sin(a));
  vec2 centered = isf_FragNormCoord - 0.5;
  // 0 at the edge the wipe starts from, 1 at the far edge.
  float along = dot(centered, direction) / (abs(direction.x) + abs(direction.y)) + 0.5;
  float edge = progress * (1.0 + softness) - softness;
  float t = 1.0 - smoothstep(edge, edge + softness, along);
  gl_FragColor = mix(IMG_THIS_NORM_PIXEL(startImage), IMG_THIS_NORM_PIXEL(endImage), t);
}
`;

/** `gen-solid`: the whole picture one colour (a generator: it reads no image). */
export const SOLID_COLOR_SHADER = `/*{
  "DESCRIPTION": "Fills the picture with one colour",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Generator"],
  "INPUTS": [
    { "NAME": "color", "TYPE": "color", "DEFAULT": [1.0, 1.0, 1.0, 1.0] }
  ]
}*/
void main() {
  gl_FragColor = color;
}
`;

/** `gen-plasma`: moving colour waves (the classic plasma), `speed` times as fast, `scale` waves across. */
export const PLASMA_SHADER = `/*{
  "DESCRIPTION": "Moving colour waves",
  "CREDIT": "Cueport",
  "ISFVSN": "2",
  "CATEGORIES": ["Generator"],
  "INPUTS": [
    { "NAME": "speed", "TYPE": "float", "MIN": 0, "MAX": 4, "DEFAULT": 1 },
    { "NAME": "scale", "TYPE": "float", "MIN": 0.5, "MAX": 16, "DEFAULT": 4 }
  ]
}*/
void main() {
  vec2 p = (isf_FragNormCoord - 0.5) * scale * vec2(RENDERSIZE.x / RENDERSIZE.y, 1.0);
  float t = TIME * speed;
  float v = sin(p.x + t) + sin(0.5 * (p.y + t)) + sin(0.5 * (p.x + p.y + t));
  v += sin(length(p + vec2(sin(t / 3.0), cos(t / 2.0)) * 2.0) + t);
  gl_FragColor = vec4(0.5 + 0.5 * sin(v * 3.14159 + vec3(0.0, 2.094, 4.189)), 1.0);
}
`;
