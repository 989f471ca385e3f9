// @ts-check
// The present pass: the composed picture to the canvas. The display's zoom (from the centre,
// the background colour around it), then the region of the canvas this machine shows (a wide
// stage: `state.region`, `protocol/region.ts`) scaled to the whole canvas, its blend edges
// ramped down to black at its borders as projector edge blending does. The canvas is the
// region's size, so a projector of the region's aspect shows it without bars.

/**
 * The present program (GLSL ES 3.00, the page's own vertex shader). `region` is x, y, width,
 * height of the canvas (fractions, y from the top), `edges` left, right, top, bottom (fractions
 * of the region). Across an edge the weight is a symmetric S curve of the distance `t` from
 * the border over the edge's width, `w(t) + w(1 - t) = 1` (so the light of two projectors
 * whose edges overlap sums to the picture's), raised to `1 / gamma` as the pixel value (a
 * projector shows a value `v` as light `v^gamma`).
 */
export const REGION_PRESENT = `#version 300 es
precision highp float;
in vec2 v_uv; out vec4 outColor;
uniform sampler2D u_image; uniform float zoom; uniform vec3 background;
uniform vec4 region; uniform vec4 edges; uniform float gamma;
float ramp(float d, float width) {
  if (width <= 0.0) return 1.0;
  float t = clamp(d / width, 0.0, 1.0);
  float w = t < 0.5 ? 2.0 * t * t : 1.0 - 2.0 * (1.0 - t) * (1.0 - t);
  return pow(w, 1.0 / gamma);
}
void main() {
  vec2 canvas = vec2(region.x + v_uv.x * region.z, 1.0 - region.y - (1.0 - v_uv.y) * region.w);
  vec2 uv = (canvas - 0.5) / zoom + 0.5;
  bool isInside = all(greaterThanEqual(uv, vec2(0.0))) && all(lessThanEqual(uv, vec2(1.0)));
  vec4 c = isInside ? texture(u_image, uv) : vec4(background, 1.0);
  float k = ramp(v_uv.x, edges.x) * ramp(1.0 - v_uv.x, edges.y) *
    ramp(1.0 - v_uv.y, edges.z) * ramp(v_uv.y, edges.w);
  outColor = vec4(c.rgb * k, c.a);
}`;

/** @typedef {import("../../../protocol/region.ts").OutputRegion} OutputRegion */
/** A size in pixels (as `gl.js`'s, not imported: the tests load this file without the DOM). */
/** @typedef {{width: number, height: number}} Size */

/**
 * `DEFAULT_BLEND_GAMMA` of `protocol/region.ts`: the page is served without `protocol/`, so a
 * test holds the two equal.
 */
const DEFAULT_GAMMA = 2.2;

/**
 * The present pass's uniforms, made once (set in place each frame by `setPresent`).
 * @returns {{zoom: number, background: number[], region: number[], edges: number[], gamma: number}}
 */
export function presentUniforms() {
  return {
    zoom: 1,
    background: [0, 0, 0],
    region: [0, 0, 1, 1],
    edges: [0, 0, 0, 0],
    gamma: DEFAULT_GAMMA,
  };
}

/**
 * Sets `present`'s uniforms in place for `state`: the display's zoom, and the region's (absent:
 * the whole canvas, no edges); `present` again.
 * @param {ReturnType<typeof presentUniforms>} present
 * @param {{display: {zoom: number}, region?: OutputRegion | undefined}} state
 */
export function setPresent(present, { display, region }) {
  present.zoom = display.zoom;
  const r = present.region, e = present.edges;
  r[0] = region?.x ?? 0, r[1] = region?.y ?? 0;
  r[2] = region?.width ?? 1, r[3] = region?.height ?? 1;
  e[0] = region?.left ?? 0, e[1] = region?.right ?? 0;
  e[2] = region?.top ?? 0, e[3] = region?.bottom ?? 0;
  present.gamma = region?.gamma ?? DEFAULT_GAMMA;
  return present;
}

/**
 * The canvas's size for `display` at scale `k`: the region's part of the display (the
 * whole display without one), into `into`.
 * @param {Size} display
 * @param {OutputRegion | undefined} region
 * @param {number} k
 * @param {Size} into
 */
export function regionCanvasSize(display, region, k, into) {
  into.width = Math.max(1, Math.round(display.width * (region?.width ?? 1) * k));
  into.height = Math.max(1, Math.round(display.height * (region?.height ?? 1) * k));
  return into;
}

/**
 * The pixel value's factor at distance `d` (a fraction of the region) from a border across an
 * edge `width` wide, as the present program computes it (its tests and the docs read it).
 * @param {number} d
 * @param {number} width
 * @param {number} gamma
 */
export function edgeFactor(d, width, gamma) {
  if (width <= 0) return 1;
  const t = Math.min(1, Math.max(0, d / width));
  const w = t < 0.5 ? 2 * t * t : 1 - 2 * (1 - t) * (1 - t);
  return w ** (1 / gamma);
}
