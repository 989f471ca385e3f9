// @ts-check
// The output's WebGL2 helper: one fixed vertex shader drawing a full-screen quad,
// programs compiled from self-contained fragment sources, textures and render targets.
// Small on purpose: the page is served as plain modules from inside the binary.

/**
 * A uniform's location and declared type, with the array its vector values are copied into
 * (allocated once with the program: a frame allocates nothing to set them).
 * @typedef {{location: WebGLUniformLocation | null, type: number, data: Float32Array | null}} Uniform
 */
/**
 * A linked program and its active uniforms by name.
 * @typedef {{program: WebGLProgram, locations: Map<string, Uniform>, clears?: boolean}} Compiled
 */
/**
 * A texture with a framebuffer drawing into it (`format` its texels, null: 8-bit RGBA).
 * @typedef {{
 *   texture: WebGLTexture,
 *   fb: WebGLFramebuffer,
 *   width: number,
 *   height: number,
 *   format?: TexelFormat | null,
 * }} Target
 */
/** Texels other than 8-bit RGBA. @typedef {{internal: number, type: number}} TexelFormat */
/** @typedef {{width: number, height: number}} Size */
/**
 * A uniform's value: numbers, booleans, arrays of numbers.
 * @typedef {number | boolean | ArrayLike<number>} UniformValue
 */
/**
 * The GL objects a context holds now, by kind (`countObjects`).
 * @typedef {{
 *   programs: number,
 *   shaders: number,
 *   textures: number,
 *   framebuffers: number,
 *   renderbuffers: number,
 *   buffers: number,
 *   vertexArrays: number,
 * }} GlObjects
 */

/** The kinds counted: `gl.create<Kind>` and `gl.delete<Kind>`, and their count's name. */
const KINDS = /** @type {const} */ ([
  ["Program", "programs"],
  ["Shader", "shaders"],
  ["Texture", "textures"],
  ["Framebuffer", "framebuffers"],
  ["Renderbuffer", "renderbuffers"],
  ["Buffer", "buffers"],
  ["VertexArray", "vertexArrays"],
]);
/** The counts of each context counted. @type {WeakMap<WebGL2RenderingContext, GlObjects>} */
const COUNTS = new WeakMap();

/**
 * The live GL objects of `gl` by kind, counted from now on: its create and delete calls are
 * wrapped once (every module's, `layers.js` and `isf_passes.js` too), an object deleted twice
 * counted once. The counts are live (the same object, kept up to date); the page reports them.
 * @param {WebGL2RenderingContext} gl
 * @returns {GlObjects}
 */
export function countObjects(gl) {
  const known = COUNTS.get(gl);
  if (known) return known;
  /** @type {GlObjects} */
  const counts = {
    programs: 0,
    shaders: 0,
    textures: 0,
    framebuffers: 0,
    renderbuffers: 0,
    buffers: 0,
    vertexArrays: 0,
  };
  const live = new WeakSet();
  const methods = /** @type {Record<string, (...args: unknown[]) => unknown>} */ (
    /** @type {unknown} */ (gl)
  );
  for (const [kind, key] of KINDS) {
    const create = methods[`create${kind}`]?.bind(gl);
    const remove = methods[`delete${kind}`]?.bind(gl);
    if (!create || !remove) continue;
    methods[`create${kind}`] = (...args) => {
      const made = create(...args);
      if (made && typeof made === "object") {
        live.add(made);
        counts[key]++;
      }
      return made;
    };
    methods[`delete${kind}`] = (object) => {
      if (object && typeof object === "object" && live.delete(object)) counts[key]--;
      return remove(object);
    };
  }
  COUNTS.set(gl, counts);
  return counts;
}

/**
 * Forgets every object of `gl`: a lost context's objects are gone with it.
 * @param {WebGL2RenderingContext} gl
 */
export function forgetObjects(gl) {
  const counts = COUNTS.get(gl);
  if (!counts) return;
  for (const [, key] of KINDS) counts[key] = 0;
}

/**
 * `value`, or the error that `what` could not be made (a lost context makes nothing).
 * @template T
 * @param {T | null} value
 * @param {string} what
 * @returns {T}
 */
function made(value, what) {
  if (value === null) throw new Error(`WebGL made no ${what}`);
  return value;
}

const VERTEX = `#version 300 es
in vec2 a_pos;
out vec2 v_uv;
void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }
`;

/**
 * Deletes `program` and the shaders attached to it, as twgl.js's `deleteProgramAndShaders`
 * (src/programs.js) does after a failed compile or link: deleting a program alone leaves its
 * shaders, two objects a refused edit.
 * @param {WebGL2RenderingContext} gl
 * @param {WebGLProgram} program
 */
export function deleteProgram(gl, program) {
  for (const shader of gl.getAttachedShaders(program) ?? []) gl.deleteShader(shader);
  gl.deleteProgram(program);
}

/**
 * A shader of `type` from `text`, attached to `program` before it is judged (so that
 * `deleteProgram` finds it when it is refused); throws its log when it does not compile.
 * @param {WebGL2RenderingContext} gl
 * @param {WebGLProgram} program
 * @param {number} type
 * @param {string} text
 */
function attachShader(gl, program, type, text) {
  const shader = made(gl.createShader(type), "shader");
  gl.attachShader(program, shader);
  gl.shaderSource(shader, text);
  gl.compileShader(shader);
  if (!gl.getShaderParameter(shader, gl.COMPILE_STATUS)) {
    // A preset's own vertex shader can be refused too: its log says so, to be mapped to its lines.
    const stage = type === gl.VERTEX_SHADER ? "vertex shader:\n" : "";
    throw new Error(stage + (gl.getShaderInfoLog(shader) ?? ""));
  }
}

/** Floats a vector uniform's type takes: FLOAT_VEC2, FLOAT_VEC3, FLOAT_VEC4 (GL's enums). */
const VECTOR_SIDES = new Map([[0x8b50, 2], [0x8b51, 3], [0x8b52, 4]]);

/**
 * The active uniforms of a linked `program`, each with its array for vector values.
 * @param {WebGL2RenderingContext} gl
 * @param {WebGLProgram} program
 * @returns {Map<string, Uniform>}
 */
function uniformsOf(gl, program) {
  const locations = new Map();
  const count = gl.getProgramParameter(program, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < count; i++) {
    const info = gl.getActiveUniform(program, i);
    if (!info) continue;
    const sides = VECTOR_SIDES.get(info.type) ?? 0;
    locations.set(info.name, {
      location: gl.getUniformLocation(program, info.name),
      type: info.type,
      data: sides > 0 ? new Float32Array(sides) : null,
    });
  }
  return locations;
}

/**
 * Compiles `source` as a fragment shader with `vertex` (by default the fixed one, whose
 * attribute is `a_pos`; an ISF program's is `position`); throws the log on error, having
 * deleted the program and its shaders (a refused program leaves no GL object behind).
 * @param {WebGL2RenderingContext} gl
 * @param {string} source
 * @returns {Compiled}
 */
export function compile(gl, source, vertex = VERTEX) {
  const program = made(gl.createProgram(), "program");
  try {
    attachShader(gl, program, gl.VERTEX_SHADER, vertex);
    attachShader(gl, program, gl.FRAGMENT_SHADER, source);
    gl.bindAttribLocation(program, 0, vertex === VERTEX ? "a_pos" : "position");
    gl.linkProgram(program);
    if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
      throw new Error(gl.getProgramInfoLog(program) ?? "");
    }
    return { program, locations: uniformsOf(gl, program) };
  } catch (error) {
    deleteProgram(gl, program);
    throw error;
  }
}

/**
 * The quad every pass draws.
 * @param {WebGL2RenderingContext} gl
 */
export function quad(gl) {
  const vao = gl.createVertexArray();
  gl.bindVertexArray(vao);
  const buffer = gl.createBuffer();
  gl.bindBuffer(gl.ARRAY_BUFFER, buffer);
  gl.bufferData(gl.ARRAY_BUFFER, new Float32Array([-1, -1, 1, -1, -1, 1, 1, 1]), gl.STATIC_DRAW);
  gl.enableVertexAttribArray(0);
  gl.vertexAttribPointer(0, 2, gl.FLOAT, false, 0, 0);
  return vao;
}

/**
 * An RGBA texture, linear and clamped, of 8-bit texels unless `format` says
 * (`{internal, type}`: `gl.RGBA16F`, `gl.HALF_FLOAT`).
 * @param {WebGL2RenderingContext} gl
 * @param {TexelFormat | null} format
 * @returns {WebGLTexture}
 */
export function texture(gl, width = 1, height = 1, format = null) {
  const t = made(gl.createTexture(), "texture");
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE);
  gl.texParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE);
  const internal = format?.internal ?? gl.RGBA;
  gl.texImage2D(
    gl.TEXTURE_2D,
    0,
    internal,
    width,
    height,
    0,
    gl.RGBA,
    format?.type ?? gl.UNSIGNED_BYTE,
    null,
  );
  return t;
}

/**
 * Uploads a picture (image, video frame, canvas) into `t`, its top row at the top.
 * @param {WebGL2RenderingContext} gl
 * @param {WebGLTexture} t
 * @param {TexImageSource} source
 */
export function upload(gl, t, source) {
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, true);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, source);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
}

/**
 * Uploads one row of bytes (0-255) as a 1-pixel-high texture (spectrum, waveform).
 * @param {WebGL2RenderingContext} gl
 * @param {WebGLTexture} t
 * @param {Uint8Array} bytes
 */
export function uploadRow(gl, t, bytes) {
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.R8, bytes.length, 1, 0, gl.RED, gl.UNSIGNED_BYTE, bytes);
}

/**
 * A texture (of `format`, as `texture` takes it) with a framebuffer drawing into it.
 * @param {WebGL2RenderingContext} gl
 * @param {number} width
 * @param {number} height
 * @param {TexelFormat | null} format
 * @returns {Target}
 */
export function target(gl, width, height, format = null) {
  const t = texture(gl, width, height, format);
  const fb = made(gl.createFramebuffer(), "framebuffer");
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t, 0);
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  return { texture: t, fb, width, height, format };
}

/**
 * `t` at a new size, its texture's storage made again in place (its objects kept), as twgl.js's
 * `resizeFramebufferInfo` (src/framebuffers.js) does: a resize makes no GL object.
 * @param {WebGL2RenderingContext} gl
 * @param {Target} t
 * @param {number} width
 * @param {number} height
 */
export function resizeTarget(gl, t, width, height) {
  const format = t.format ?? null;
  gl.bindTexture(gl.TEXTURE_2D, t.texture);
  const internal = format?.internal ?? gl.RGBA;
  const type = format?.type ?? gl.UNSIGNED_BYTE;
  gl.texImage2D(gl.TEXTURE_2D, 0, internal, width, height, 0, gl.RGBA, type, null);
  t.width = width;
  t.height = height;
}

/**
 * Deletes a target's framebuffer and texture.
 * @param {WebGL2RenderingContext} gl
 * @param {Target} t
 */
export function deleteTarget(gl, t) {
  gl.deleteFramebuffer(t.fb);
  gl.deleteTexture(t.texture);
}

/**
 * Draws one pass of `compiled` into `dest` (a target, or null: the canvas), with
 * `textures` bound by uniform name and `values`, then `more` (a pass's own), set by name
 * (numbers, booleans, arrays). Allocates nothing: `for...in` over the records, and vector
 * values copied into each uniform's own array.
 * @param {WebGL2RenderingContext} gl
 * @param {Compiled} compiled
 * @param {Target | null} dest
 * @param {Record<string, WebGLTexture>} textures
 * @param {Record<string, UniformValue>} values
 * @param {Size} size
 * @param {Record<string, UniformValue> | null} more
 */
export function pass(gl, compiled, dest, textures, values, size, more = null) {
  gl.bindFramebuffer(gl.FRAMEBUFFER, dest ? dest.fb : null);
  gl.viewport(0, 0, size.width, size.height);
  if (compiled.clears) {
    // A preset's own vertex shader may leave pixels uncovered: they read transparent black.
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
  }
  gl.useProgram(compiled.program);
  const locations = compiled.locations;
  let unit = 0;
  for (const name in textures) {
    const u = locations.get(name);
    const t = textures[name];
    if (!u || !t) continue;
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.uniform1i(u.location, unit++);
  }
  for (const name in values) {
    const u = locations.get(name);
    const value = values[name];
    if (u && value !== undefined) setUniform(gl, u, value);
  }
  for (const name in more) {
    const u = locations.get(name);
    const value = more[name];
    if (u && value !== undefined) setUniform(gl, u, value);
  }
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
}

/**
 * Sets a uniform by its declared type: numbers, booleans and arrays (short ones padded), a
 * vector through its own array.
 * @param {WebGL2RenderingContext} gl
 * @param {Uniform} u
 * @param {UniformValue} value
 */
function setUniform(gl, u, value) {
  const data = u.data;
  if (data) {
    const isList = typeof value === "object";
    for (let i = 0; i < data.length; i++) data[i] = Number(isList ? value[i] ?? 0 : value);
    if (data.length === 2) return gl.uniform2fv(u.location, data);
    if (data.length === 3) return gl.uniform3fv(u.location, data);
    return gl.uniform4fv(u.location, data);
  }
  const n = Number(typeof value === "object" ? value[0] ?? 0 : value);
  if (u.type === gl.INT || u.type === gl.BOOL) return gl.uniform1i(u.location, Math.round(n));
  return gl.uniform1f(u.location, n);
}

/**
 * Sets `[a, b]` into the array `values[key]` (made once).
 * @param {Record<string, UniformValue>} values
 * @param {string} key
 * @param {number} a
 * @param {number} b
 */
export function setPair(values, key, a, b) {
  const pair = values[key];
  if (Array.isArray(pair)) {
    pair[0] = a;
    pair[1] = b;
  } else values[key] = [a, b];
}
