// The output's WebGL2 helper: one fixed vertex shader drawing a full-screen quad,
// programs compiled from self-contained fragment sources, textures and render targets.
// Small on purpose: the page is served as plain modules from inside the binary.

const VERTEX = `#version 300 es
in vec2 a_pos;
out vec2 v_uv;
void main() { v_uv = a_pos * 0.5 + 0.5; gl_Position = vec4(a_pos, 0.0, 1.0); }
`;

/**
 * Compiles `source` as a fragment shader with `vertex` (by default the fixed one, whose
 * attribute is `a_pos`; an ISF program's is `position`); throws the log on error.
 */
export function compile(gl, source, vertex = VERTEX) {
  const shader = (type, text) => {
    const s = gl.createShader(type);
    gl.shaderSource(s, text);
    gl.compileShader(s);
    if (!gl.getShaderParameter(s, gl.COMPILE_STATUS)) throw new Error(gl.getShaderInfoLog(s));
    return s;
  };
  const program = gl.createProgram();
  gl.attachShader(program, shader(gl.VERTEX_SHADER, vertex));
  gl.attachShader(program, shader(gl.FRAGMENT_SHADER, source));
  gl.bindAttribLocation(program, 0, vertex === VERTEX ? "a_pos" : "position");
  gl.linkProgram(program);
  if (!gl.getProgramParameter(program, gl.LINK_STATUS)) {
    throw new Error(gl.getProgramInfoLog(program));
  }
  const locations = new Map();
  const count = gl.getProgramParameter(program, gl.ACTIVE_UNIFORMS);
  for (let i = 0; i < count; i++) {
    const info = gl.getActiveUniform(program, i);
    locations.set(info.name, {
      location: gl.getUniformLocation(program, info.name),
      type: info.type,
    });
  }
  return { program, locations };
}

/** The quad every pass draws. */
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
 */
export function texture(gl, width = 1, height = 1, format = null) {
  const t = gl.createTexture();
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

/** Uploads a picture (image, video frame, canvas) into `t`, its top row at the top. */
export function upload(gl, t, source) {
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, true);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.RGBA, gl.RGBA, gl.UNSIGNED_BYTE, source);
  gl.pixelStorei(gl.UNPACK_FLIP_Y_WEBGL, false);
}

/** Uploads one row of bytes (0-255) as a 1-pixel-high texture (spectrum, waveform). */
export function uploadRow(gl, t, bytes) {
  gl.bindTexture(gl.TEXTURE_2D, t);
  gl.texImage2D(gl.TEXTURE_2D, 0, gl.R8, bytes.length, 1, 0, gl.RED, gl.UNSIGNED_BYTE, bytes);
}

/** A texture (of `format`, as `texture` takes it) with a framebuffer drawing into it. */
export function target(gl, width, height, format = null) {
  const t = texture(gl, width, height, format);
  const fb = gl.createFramebuffer();
  gl.bindFramebuffer(gl.FRAMEBUFFER, fb);
  gl.framebufferTexture2D(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.TEXTURE_2D, t, 0);
  gl.bindFramebuffer(gl.FRAMEBUFFER, null);
  return { texture: t, fb, width, height };
}

/**
 * Draws one pass of `compiled` into `dest` (a target, or null: the canvas), with
 * `textures` bound by uniform name and `values` set by name (numbers, booleans, arrays).
 */
export function pass(gl, compiled, dest, textures, values, size) {
  gl.bindFramebuffer(gl.FRAMEBUFFER, dest ? dest.fb : null);
  gl.viewport(0, 0, size.width, size.height);
  gl.useProgram(compiled.program);
  let unit = 0;
  for (const [name, t] of Object.entries(textures)) {
    const u = compiled.locations.get(name);
    if (!u) continue;
    gl.activeTexture(gl.TEXTURE0 + unit);
    gl.bindTexture(gl.TEXTURE_2D, t);
    gl.uniform1i(u.location, unit++);
  }
  for (const [name, value] of Object.entries(values)) {
    const u = compiled.locations.get(name);
    if (u) setUniform(gl, u, value);
  }
  gl.drawArrays(gl.TRIANGLE_STRIP, 0, 4);
}

/** Sets a uniform by its declared type: numbers, booleans and arrays (short ones padded). */
function setUniform(gl, u, value) {
  const v = (n) =>
    Array.from({ length: n }, (_, i) => Number(Array.isArray(value) ? value[i] ?? 0 : value));
  switch (u.type) {
    case gl.FLOAT_VEC2:
      return gl.uniform2fv(u.location, v(2));
    case gl.FLOAT_VEC3:
      return gl.uniform3fv(u.location, v(3));
    case gl.FLOAT_VEC4:
      return gl.uniform4fv(u.location, v(4));
    case gl.INT:
    case gl.BOOL:
      return gl.uniform1i(u.location, Math.round(Number(value)));
    default:
      return gl.uniform1f(u.location, Number(value));
  }
}
