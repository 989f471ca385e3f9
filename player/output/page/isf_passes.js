// ISF's PASSES on the output: each pass of a program renders into its TARGET, a texture
// that later passes (and, for a PERSISTENT target, the next frames) read by name; the last
// pass's picture is the program's. Targets belong to one place of one Effect or Visualizer
// (its layer, its place in the chain, its id), so two Effects of one preset, or one Effect
// on two Clips, keep their own; a target no pass drew in a frame is deleted.
import { pass, target } from "./gl.js";

/**
 * Float texels where the GL can render them: 32-bit when it can also filter them,
 * else 16-bit; null where it cannot (the targets then stay 8-bit).
 */
function floatFormat(gl) {
  if (!gl.getExtension("EXT_color_buffer_float")) return null;
  return gl.getExtension("OES_texture_float_linear")
    ? { internal: gl.RGBA32F, type: gl.FLOAT }
    : { internal: gl.RGBA16F, type: gl.HALF_FLOAT };
}

/** The targets of ISF programs' passes, and the drawing of a program through its passes. */
// long: the passes' closure, like a class: their targets and the short functions over them
export function createIsfPasses(gl) {
  const float = floatFormat(gl);
  const maxSide = gl.getParameter(gl.MAX_TEXTURE_SIZE);
  /** `${owner}\n${target}` -> {read, write, width, height, isFloat, drawn: frame index} */
  const buffers = new Map();
  let frame = 0;

  function release(buffer) {
    for (const side of [buffer.read, buffer.write]) {
      gl.deleteFramebuffer(side.fb);
      gl.deleteTexture(side.texture);
    }
  }

  function clear(side) {
    gl.bindFramebuffer(gl.FRAMEBUFFER, side.fb);
    gl.clearColor(0, 0, 0, 0);
    gl.clear(gl.COLOR_BUFFER_BIT);
  }

  /** The buffer of `spec` owned by `owner`, at `[width, height]`: made anew when they change. */
  function buffer(owner, spec, [width, height]) {
    const key = `${owner}\n${spec.target}`;
    const w = Math.min(width, maxSide), h = Math.min(height, maxSide);
    const isFloat = spec.float && float !== null;
    let b = buffers.get(key);
    if (b && (b.width !== w || b.height !== h || b.isFloat !== isFloat)) {
      release(b);
      b = undefined;
    }
    if (!b) {
      const format = isFloat ? float : null;
      const [read, write] = [target(gl, w, h, format), target(gl, w, h, format)];
      b = { read, write, width: w, height: h, isFloat, drawn: frame };
      clear(b.read);
      buffers.set(key, b);
    }
    // A target that does not persist starts every frame empty.
    if (!spec.persistent) clear(b.read);
    b.drawn = frame;
    return b;
  }

  return {
    /**
     * Draws `compiled` (a program with `passes`) for the state's pass `p` (with the
     * `owner` of its targets): each pass into its target (or into `out` for a pass
     * without one), with `bindings` (the program's inputs and ISF's built-ins, `size`
     * the render's). Answers the texture of its picture.
     */
    run(compiled, p, bindings, out, size) {
      const owner = p.owner;
      const specs = compiled.passes;
      const own = specs.map((spec, i) =>
        spec.target ? buffer(owner, spec, p.sizes?.[i] ?? [size.width, size.height]) : null
      );
      let picture = null;
      for (let i = 0; i < specs.length; i++) {
        const textures = { ...bindings.textures };
        const values = { ...bindings.values, ...p.uniforms, PASSINDEX: i };
        for (const [j, other] of specs.entries()) {
          if (!own[j]) continue;
          textures[other.target] = own[j].read.texture;
          values[`_${other.target}_imgSize`] = [own[j].width, own[j].height];
        }
        const b = own[i];
        const passSize = b ? { width: b.width, height: b.height } : size;
        values.RENDERSIZE = [passSize.width, passSize.height];
        pass(gl, compiled, b ? b.write : out, textures, values, passSize);
        if (b) [b.read, b.write] = [b.write, b.read];
        picture = b ? b.read.texture : out.texture;
      }
      return picture;
    },
    /** Ends a frame: deletes the targets no pass drew in it. */
    endFrame() {
      for (const [key, b] of buffers) {
        if (b.drawn === frame) continue;
        release(b);
        buffers.delete(key);
      }
      frame++;
    },
  };
}
