/** ISF shaders with PASSES, and one in GLSL ES 3.00, for the tests. */

/**
 * Three passes: a target a quarter of the width (`$scale`) and 1 pixel high,
 * one at the render size, then the output, which shows in red the first
 * target's RENDERSIZE.x (in 1/255), in green its height, in blue the
 * PASSINDEX the second pass saw (times 100).
 */
export const SIZES = `/*{
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "scale", "TYPE": "float", "DEFAULT": 4, "MIN": 1, "MAX": 16 }
  ],
  "PASSES": [
    { "TARGET": "small", "WIDTH": "floor($WIDTH / $scale)", "HEIGHT": "1" },
    { "TARGET": "full" },
    {}
  ]
}*/
void main() {
  if (PASSINDEX == 0) {
    gl_FragColor = vec4(RENDERSIZE.x / 255.0, RENDERSIZE.y / 255.0, 0.0, 1.0);
  } else if (PASSINDEX == 1) {
    gl_FragColor = vec4(0.0, 0.0, float(PASSINDEX) * 100.0 / 255.0, 1.0);
  } else {
    vec4 a = IMG_NORM_PIXEL(small, vec2(0.5));
    vec4 b = IMG_THIS_PIXEL(full);
    gl_FragColor = vec4(a.r, a.g, b.b, 1.0) + IMG_THIS_PIXEL(inputImage) * 0.0;
  }
}
`;

/**
 * A two-pass box blur (horizontal into a target at a quarter of the size,
 * then vertical from it), as the community's blur files do it.
 */
export const TWO_PASS_BLUR = `/*{
  "INPUTS": [{ "NAME": "inputImage", "TYPE": "image" }],
  "PASSES": [
    { "TARGET": "across", "WIDTH": "floor($WIDTH/4.0)", "HEIGHT": "floor($HEIGHT/4.0)" },
    {}
  ]
}*/
void main() {
  vec4 sum = vec4(0.0);
  for (int i = -4; i <= 4; i++) {
    if (PASSINDEX == 0) {
      sum += IMG_NORM_PIXEL(inputImage, isf_FragNormCoord + vec2(float(i) / RENDERSIZE.x, 0.0));
    } else {
      sum += IMG_NORM_PIXEL(across, isf_FragNormCoord + vec2(0.0, float(i) / RENDERSIZE.y));
    }
  }
  gl_FragColor = sum / 9.0;
}
`;

/**
 * A feedback shader: its persistent target keeps the grey of TIME at the
 * first frame it drew (alpha 1 marks it written); the last pass shows it.
 */
export const HOLD = `/*{
  "INPUTS": [{ "NAME": "inputImage", "TYPE": "image" }],
  "PASSES": [{ "TARGET": "held", "PERSISTENT": true }, {}]
}*/
void main() {
  vec4 before = IMG_THIS_PIXEL(held);
  if (PASSINDEX == 0) {
    gl_FragColor = before.a > 0.5 ? before : vec4(vec3(fract(TIME)), 1.0);
  } else {
    gl_FragColor = before + IMG_THIS_PIXEL(inputImage) * 0.0;
  }
}
`;

/** A FLOAT target keeps 2.0, which the last pass halves: white where float, grey if not. */
export const FLOAT_TARGET = `/*{
  "INPUTS": [{ "NAME": "inputImage", "TYPE": "image" }],
  "PASSES": [{ "TARGET": "wide", "FLOAT": true }, {}]
}*/
void main() {
  if (PASSINDEX == 0) gl_FragColor = vec4(2.0);
  else gl_FragColor = vec4(IMG_THIS_PIXEL(wide).rgb * 0.5, 1.0) + IMG_THIS_PIXEL(inputImage) * 0.0;
}
`;

/**
 * The invert effect in GLSL ES 3.00 (its own `out`, `texture()`), with a loop
 * bound ES 1.00 refuses (not a constant).
 */
export const INVERT_300 = `/*{
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "amount", "TYPE": "float", "DEFAULT": 1.0, "MIN": 0.0, "MAX": 1.0 }
  ]
}*/
#version 300 es
out vec4 fragColor;
void main() {
  vec4 c = texture(inputImage, isf_FragNormCoord);
  float steps = 0.0;
  for (int i = 0; i < int(RENDERSIZE.x); i++) steps += 1.0;
  vec4 same = IMG_THIS_PIXEL(inputImage);
  fragColor = vec4(mix(c.rgb, 1.0 - same.rgb, amount), c.a) + 0.0 * steps;
}
`;

/**
 * An inverting effect in GLSL ES 1.00 whose loop bound is an input, which ES
 * 1.00 refuses (not a constant) and ES 3.00 takes: it draws as ES 3.00.
 */
export const LOOP_BOUND = `/*{
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "taps", "TYPE": "float", "DEFAULT": 3, "MIN": 1, "MAX": 8 }
  ]
}*/
void main() {
  vec4 sum = vec4(0.0);
  for (int i = 0; i < int(taps); i++) sum += IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(1.0 - sum.rgb / float(int(taps)), 1.0);
}
`;

/** A feedback shader that keeps the first picture it was given (alpha 1 marks it written). */
export const HOLD_PICTURE = `/*{
  "INPUTS": [{ "NAME": "inputImage", "TYPE": "image" }],
  "PASSES": [{ "TARGET": "first", "PERSISTENT": true }, {}]
}*/
void main() {
  vec4 before = IMG_THIS_PIXEL(first);
  if (PASSINDEX == 0) gl_FragColor = before.a > 0.5 ? before : IMG_THIS_PIXEL(inputImage);
  else gl_FragColor = before;
}
`;
