/** ISF shaders for the tests, in the ISF community's own format. */

/** Inverts the layer's colours. */
export const INVERT = `/*{
  "DESCRIPTION": "Inverts the colours",
  "CREDIT": "Cueport tests",
  "ISFVSN": "2",
  "CATEGORIES": ["Color Effect"],
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "amount", "TYPE": "float", "DEFAULT": 1.0, "MIN": 0.0, "MAX": 1.0 }
  ]
}*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(mix(c.rgb, 1.0 - c.rgb, amount), c.a);
}
`;

/** A header with an input of every type, as ISF Editor files have them. */
export const EVERY_INPUT = `/*
{
  "CATEGORIES": ["Stylize"],
  "CREDIT": "by VIDVOX",
  "DESCRIPTION": "Every ISF input type",
  "INPUTS": [
    {"NAME": "inputImage", "TYPE": "image"},
    {"NAME": "level", "TYPE": "float", "DEFAULT": 0.5, "MIN": 0.0, "MAX": 2.0, "LABEL": "Level"},
    {"NAME": "flash", "TYPE": "event"},
    {"NAME": "invert", "TYPE": "bool", "DEFAULT": 1},
    {"NAME": "mode", "TYPE": "long", "VALUES": [0, 1, 2], "LABELS": ["Add", "Multiply", "Screen"], "DEFAULT": 1},
    {"NAME": "tint", "TYPE": "color", "DEFAULT": [1.0, 0.5, 0.0, 1.0]},
    {"NAME": "center", "TYPE": "point2D", "DEFAULT": [0.5, 0.5], "MIN": [0.0, 0.0], "MAX": [1.0, 1.0]},
    {"NAME": "wave", "TYPE": "audio", "MAX": 256},
    {"NAME": "spectrum", "TYPE": "audioFFT", "MAX": 64}
  ],
  "ISFVSN": "2"
}
*/

void main() {
  vec2 at = isf_FragNormCoord;
  vec4 c = IMG_NORM_PIXEL(inputImage, at + (center - vec2(0.5)) * 0.0);
  float w = IMG_NORM_PIXEL(wave, vec2(at.x, 0.5)).r;
  float s = IMG_PIXEL(spectrum, vec2(at.x * IMG_SIZE(spectrum).x, 0.5)).r;
  vec3 color = c.rgb * level * tint.rgb;
  if (mode == 1) color *= 0.5;
  if (invert) color = 1.0 - color;
  if (flash) color = vec3(1.0);
  gl_FragColor = vec4(color + (w + s) * 0.0, 1.0) + TIME * 0.0;
}
`;

/**
 * INVERT calling `ldexp`, a GLSL ES 3.10 function: the check's compiler (glslang, ES 3.10) takes
 * it, WebGL2's GL (ES 3.00) refuses it at its line. The one kind of code the check takes and the
 * output's GL refuses (docs/presets.md, "Which compiler for types").
 */
export const ES_310_ONLY = INVERT.replace("c.a);", "c.a * ldexp(1.0, 0));");
