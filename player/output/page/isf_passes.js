// @ts-check
// ISF's PASSES on the output: each pass of a program renders into its TARGET, a texture
// that later passes (and, for a PERSISTENT target, the next frames) read by name; the last
// pass's picture is the program's. Targets belong to one Effect or Visualizer in one chain
// (its layer, its id, which occurrence of that id in the chain), so two Effects of one
// preset, or one Effect on two Clips, keep their own, and a filter pass or an Effect turned
// on before it leaves them be; a target no pass drew in a frame is deleted. A target that is
// not PERSISTENT is one texture, a persistent one two (last frame's is read while the other
// is drawn); their sizes are the player's (`passSizes`: bounded per side and per program).
import { deleteTarget, pass, setPair, target, texture } from "./gl.js";

/** @typedef {import("./gl.js").Target} Target */
/** @typedef {import("./gl.js").TexelFormat} TexelFormat */
/** @typedef {import("./gl.js").Compiled} Compiled */
/** @typedef {import("./gl.js").Size} Size */
/** @typedef {import("./gl.js").UniformValue} UniformValue */
/** @typedef {import("../../../protocol/output.ts").ShaderProgram} ShaderProgram */
/** One pass of an ISF program. @typedef {NonNullable<ShaderProgram["passes"]>[number]} PassSpec */
/** @typedef {import("../../../protocol/output.ts").ShaderPass} ShaderPass */
/**
 * A program with ISF `PASSES`, as the compositor keeps it.
 * @typedef {Compiled & {passes: PassSpec[]}} PassesProgram
 */
/**
 * ISF's built-in values and samplers for one program, made once with it and set each frame;
 * `keys` the names of its `_<name>_imgSize` values by sampler or target (made once).
 * @typedef {{
 *   values: Record<string, UniformValue>,
 *   textures: Record<string, WebGLTexture>,
 *   keys: Map<string, string>,
 * }} Bindings
 */
/**
 * One pass target of one owner: a persistent one reads last frame's texture while it draws the
 * other, one that is not has one texture (read and write); `drawn` is the frame it was drawn in.
 * @typedef {{
 *   read: Target,
 *   write: Target,
 *   width: number,
 *   height: number,
 *   isFloat: boolean,
 *   persistent: boolean,
 *   drawn: number,
 * }} Buffer
 */

/**
 * Float texels where the GL can render them: 32-bit when it can also filter them,
 * else 16-bit; null where it cannot (the targets then stay 8-bit).
 * @param {WebGL2RenderingContext} gl
 * @returns {TexelFormat | null}
 */
function floatFormat(gl) {
  if (!gl.getExtension("EXT_color_buffer_float")) return null;
  return gl.getExtension("OES_texture_float_linear")
    ? { internal: gl.RGBA32F, type: gl.FLOAT }
    : { internal: gl.RGBA16F, type: gl.HALF_FLOAT };
}

/** The targets of ISF programs' passes, and the drawing of a program through its passes. */
export class IsfPasses {
  #gl;
  #float;
  /** @type {number} */
  #maxSide;
  /** Sampled in place of the target a pass draws (a texture cannot be read while drawn). */
  #empty;
  /** `${owner}\n${target}` -> its buffer. @type {Map<string, Buffer>} */
  #buffers = new Map();
  /** Those keys, made once each (forgotten when a buffer is deleted: a change). */
  #keys = new JoinedKeys("\n");
  #frame = 0;
  /** Whether the frame ending deleted a buffer (`#sweep`'s). */
  #isSwept = false;
  /** Deletes a buffer no pass drew this frame (made once: a `forEach`'s, a frame's none). */
  #sweep = (/** @type {Buffer} */ b, /** @type {string} */ key) => {
    if (b.drawn === this.#frame) return;
    this.#release(b);
    this.#buffers.delete(key);
    this.#isSwept = true;
  };
  /**
   * The buffers of the passes of the program drawn (null: drawn into `out`), its first
   * `specs.length` (never emptied: V8 drops the store of an array whose length is set to 0).
   * @type {(Buffer | null)[]}
   */
  #own = [];
  #passSize = { width: 1, height: 1 };

  /** @param {WebGL2RenderingContext} gl */
  constructor(gl) {
    this.#gl = gl;
    this.#float = floatFormat(gl);
    this.#maxSide = gl.getParameter(gl.MAX_TEXTURE_SIZE);
    this.#empty = texture(gl);
  }

  /**
   * Draws `compiled` (a program with `passes`) for the state's pass `p`, its targets those of
   * `owner`: each pass into its target (or into `out` for a pass without one), with `bindings`
   * (the program's inputs and ISF's built-ins, set in place: a frame allocates no record),
   * `size` the render's, `scale` its render scale. Answers the texture of its picture.
   * @param {PassesProgram} compiled
   * @param {ShaderPass} p
   * @param {string} owner
   * @param {Bindings} bindings
   * @param {Target} out
   * @param {{size: Size, scale: number}} chain
   * @returns {WebGLTexture}
   */
  run(compiled, p, owner, bindings, out, { size, scale }) {
    const specs = compiled.passes;
    const own = this.#own;
    const { textures, values, keys } = bindings;
    // Every target by name, once: a pass updates only its own.
    for (let i = 0; i < specs.length; i++) {
      const spec = /** @type {PassSpec} */ (specs[i]);
      const sized = p.sizes?.[i];
      // A render scale below 1 draws the player's target sizes that much smaller too.
      const w = sized ? Math.max(1, Math.round((sized[0] ?? 1) * scale)) : size.width;
      const h = sized ? Math.max(1, Math.round((sized[1] ?? 1) * scale)) : size.height;
      const b = spec.target ? this.#buffer(owner, spec, w, h) : null;
      own[i] = b;
      if (!b || !spec.target) continue;
      textures[spec.target] = b.read.texture;
      setPair(values, imgSizeKey(keys, spec.target), b.width, b.height);
    }
    let picture = out.texture;
    const passSize = this.#passSize;
    for (let i = 0; i < specs.length; i++) {
      const b = own[i] ?? null;
      const name = specs[i]?.target ?? "";
      passSize.width = b ? b.width : size.width;
      passSize.height = b ? b.height : size.height;
      values.PASSINDEX = i;
      setPair(values, "RENDERSIZE", passSize.width, passSize.height);
      // Drawn this frame, cleared before: reading it in its own pass gives nothing.
      if (b && !b.persistent) textures[name] = this.#empty;
      pass(this.#gl, compiled, b ? b.write : out, textures, values, passSize, p.uniforms ?? null);
      if (b) {
        const drawn = b.write;
        b.write = b.read;
        b.read = drawn;
        textures[name] = b.read.texture;
      }
      picture = b ? b.read.texture : out.texture;
    }
    return picture;
  }

  /**
   * Ends a frame: deletes the targets no pass drew in it; answers whether it deleted one (the
   * keys of their owners can go: they are made again for the owners still drawn).
   */
  endFrame() {
    // A Map deleted from while `forEach` walks it goes on with the next entry.
    this.#isSwept = false;
    this.#buffers.forEach(this.#sweep);
    if (this.#isSwept) this.#keys.clear();
    this.#frame++;
    return this.#isSwept;
  }

  /** @param {Buffer} buffer */
  #release(buffer) {
    const sides = buffer.read === buffer.write ? [buffer.read] : [buffer.read, buffer.write];
    for (const side of sides) deleteTarget(this.#gl, side);
  }

  /**
   * Draws `from`'s picture into `to`'s (scaled, linear): a resized persistent target.
   * @param {Buffer} from
   * @param {Buffer} to
   */
  #copy(from, to) {
    const gl = this.#gl;
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, from.read.fb);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, to.read.fb);
    const [fw, fh, tw, th] = [from.width, from.height, to.width, to.height];
    gl.blitFramebuffer(0, 0, fw, fh, 0, 0, tw, th, gl.COLOR_BUFFER_BIT, gl.LINEAR);
    gl.bindFramebuffer(gl.READ_FRAMEBUFFER, null);
    gl.bindFramebuffer(gl.DRAW_FRAMEBUFFER, null);
  }

  /** @param {Target} side */
  #clear(side) {
    const gl = this.#gl;
    gl.bindFramebuffer(gl.FRAMEBUFFER, side.fb);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
  }

  /**
   * The buffer of `spec` owned by `owner`, at `[width, height]`: made anew when they change.
   * @param {string} owner
   * @param {PassSpec} spec
   * @param {number} width
   * @param {number} height
   */
  #buffer(owner, spec, width, height) {
    const key = this.#keys.join(owner, spec.target ?? "");
    const w = Math.min(width, this.#maxSide), h = Math.min(height, this.#maxSide);
    const isFloat = spec.float && this.#float !== null;
    const persistent = spec.persistent;
    let b = this.#buffers.get(key);
    const isSame = b && b.width === w && b.height === h && b.isFloat === isFloat &&
      b.persistent === persistent;
    let old = null;
    if (b && !isSame) {
      old = b;
      b = undefined;
    }
    if (!b) {
      const format = isFloat ? this.#float : null;
      const read = target(this.#gl, w, h, format);
      const write = persistent ? target(this.#gl, w, h, format) : read;
      b = { read, write, width: w, height: h, isFloat, persistent, drawn: this.#frame };
      this.#clear(b.read);
      // A persistent target only resized (the render scale changed) keeps its picture.
      if (old?.persistent && persistent && old.isFloat === isFloat) this.#copy(old, b);
      this.#buffers.set(key, b);
    }
    if (old) this.#release(old);
    // A target that does not persist starts every frame empty.
    if (!persistent) this.#clear(b.read);
    b.drawn = this.#frame;
    return b;
  }
}

/**
 * The name of `name`'s `_<name>_imgSize` value, made once per program.
 * @param {Map<string, string>} keys
 * @param {string} name
 */
function imgSizeKey(keys, name) {
  let key = keys.get(name);
  if (key === undefined) {
    key = `_${name}_imgSize`;
    keys.set(name, key);
  }
  return key;
}

/**
 * Keys joined from two parts (`<first><separator><second>`), each made once and kept until
 * `clear()`: a frame that asks for the same keys builds no string.
 */
export class JoinedKeys {
  #separator;
  /** @type {Map<string, Map<string | number, string>>} */
  #byFirst = new Map();

  /** @param {string} separator */
  constructor(separator) {
    this.#separator = separator;
  }

  /**
   * `first`, the separator and `second` as one string (the same string each time).
   * @param {string} first
   * @param {string | number} second
   */
  join(first, second) {
    let seconds = this.#byFirst.get(first);
    if (!seconds) {
      seconds = new Map();
      this.#byFirst.set(first, seconds);
    }
    let key = seconds.get(second);
    if (key === undefined) {
      key = `${first}${this.#separator}${second}`;
      seconds.set(second, key);
    }
    return key;
  }

  /** Forgets every key (a change: the owners still drawn make theirs again). */
  clear() {
    this.#byFirst.clear();
  }
}
