// @ts-check
// The picture: each layer through its passes (filters, Effects), blended in order over the
// background colour with its opacity, then the visualizers, then the display's zoom and this
// machine's region of the canvas (`region.js`). During a crossing (`state.transition`) two such
// pictures, the outgoing and the incoming, are mixed by the transition's program (`startImage`,
// `endImage`, `progress`) before the visualizers.
import {
  compile,
  countObjects,
  deleteProgram,
  pass,
  quad,
  resizeTarget,
  setPair,
  target,
  texture,
  uploadRow,
} from "./gl.js";
import { IsfPasses, JoinedKeys } from "./isf_passes.js";
import { ImageInputs } from "./image_inputs.js";
import { frameTimes, nextFrame } from "./render_scale.js";
import { presentUniforms, REGION_PRESENT, regionCanvasSize, setPresent } from "./region.js";

/** The images a program takes without a binding: the layer's, a transition's two. */
const OWN_IMAGES = new Set(["inputImage", "startImage", "endImage"]);

const COMPOSITE = `#version 300 es
precision highp float;
in vec2 v_uv; out vec4 outColor;
uniform sampler2D u_image; uniform float opacity;
void main() { vec4 c = texture(u_image, v_uv); outColor = vec4(c.rgb, c.a * opacity); }`;

/** @typedef {import("../../../protocol/output.ts").RenderState} RenderState */
/** @typedef {import("../../../protocol/output.ts").RenderLayer} RenderLayer */
/** @typedef {import("../../../protocol/output.ts").ShaderPass} ShaderPass */
/** @typedef {import("../../../protocol/output.ts").RenderTransition} RenderTransition */
/** @typedef {import("../../../protocol/output.ts").ShaderProgram} ShaderProgram */
/** @typedef {import("./gl.js").Compiled} Compiled */
/** @typedef {import("./gl.js").Size} Size */
/** @typedef {import("./gl.js").Target} Target */
/** @typedef {import("./gl.js").UniformValue} UniformValue */
/** @typedef {import("./gl.js").GlObjects} GlObjects */
/** @typedef {import("./isf_passes.js").Bindings} Bindings */
/** @typedef {import("./isf_passes.js").PassesProgram} PassesProgram */
/** @typedef {NonNullable<ShaderProgram["samplers"]>} Samplers */
/**
 * A program as the compositor keeps it: compiled, with its ISF samplers and passes (null: none),
 * and (an ISF program) the records of its built-ins and samplers, made once and set each frame.
 * @typedef {Compiled & {
 *   samplers: Samplers | null,
 *   passes: PassesProgram["passes"] | null,
 *   bindings: Bindings | null,
 * }} Program
 */
/**
 * A layer's picture, or null before it has one.
 * @typedef {(clipId: string) => WebGLTexture | null} TextureOf
 */
/**
 * The render's targets: two to draw passes in turn, one to blend the layers in.
 * @typedef {{width: number, height: number, a: Target, b: Target, out: Target}} Targets
 */
/**
 * How a chain of passes is drawn: `time` and `size` the render's, `owner` the chain's (a layer's
 * Clip, "" the visualizers'), whose ISF targets are its own. One record, set for each chain.
 * @typedef {{time: number, size: Size, scale: number, owner: string}} Chain
 */

/**
 * ISF's DATE into `into`: year, month (1-12), day, seconds into the day (`at` reused).
 * @param {Date} at
 * @param {number[]} into
 */
function dateNow(at, into) {
  at.setTime(Date.now());
  const seconds = at.getHours() * 3600 + at.getMinutes() * 60 + at.getSeconds();
  into[0] = at.getFullYear();
  into[1] = at.getMonth() + 1;
  into[2] = at.getDate();
  into[3] = seconds + at.getMilliseconds() / 1000;
}

/**
 * The records an ISF program's passes are drawn with, made once: ISF's built-ins, and for each
 * sampler its texture and `_<name>_imgSize` (set each frame, `Compositor#isfBind`).
 * @param {Samplers} samplers
 * @returns {Bindings}
 */
function bindingsOf(samplers) {
  /** @type {Record<string, UniformValue>} */
  const values = { TIME: 0, TIMEDELTA: 0, RENDERSIZE: [1, 1], FRAMEINDEX: 0, DATE: [0, 0, 0, 0] };
  for (const s of samplers) values[`_${s.name}_imgSize`] = [1, 1];
  const keys = new Map(samplers.map((s) => [s.name, `_${s.name}_imgSize`]));
  return { values, textures: {}, keys };
}

/**
 * `#rrggbb` as three 0-1 numbers into `into` (black when it is not one). Called when the colour
 * changes, not a frame (its match is an array).
 * @param {string} text
 * @param {number[]} into
 */
function parseColor(text, into) {
  const m = /^#?([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})/i.exec(text);
  for (let i = 0; i < 3; i++) into[i] = parseInt(m?.[i + 1] ?? "0", 16) / 255;
  return into;
}

/**
 * `program` compiled, or its `fallback` (ES 1.00 code as ES 3.00) when GL refuses it.
 * @param {WebGL2RenderingContext} gl
 * @param {ShaderProgram} program
 */
function compileProgram(gl, program) {
  try {
    return compile(gl, program.source, program.vertex);
  } catch (error) {
    if (!program.fallback) throw error;
    try {
      return compile(gl, program.fallback.source, program.fallback.vertex);
    } catch {
      throw error;
    }
  }
}

/**
 * Whether a layer's filters change nothing (no filter pass is drawn).
 * @param {RenderLayer["filters"]} f
 */
function isNeutral(f) {
  return f.brightness === 0 && f.contrast === 1 && f.saturation === 1 && f.hue === 0 &&
    f.blur === 0;
}

/**
 * A layer's picture when it shows something (not an audio layer's, not at opacity 0), or null.
 * @param {RenderLayer} layer
 * @param {TextureOf} textureOf
 */
function shownPicture(layer, textureOf) {
  if (layer.kind === "audio" || layer.opacity <= 0) return null;
  return textureOf(layer.clipId);
}

/**
 * Where the layers drawn begin (bottom first): the layers under an opaque one that shows are not
 * drawn (a video or camera at full opacity with no Effect covers the whole picture: its texels
 * have alpha 1 and every pass draws the full frame); from there each one `shownPicture` gives is.
 * An index, not a list of records: a frame allocates none.
 * @param {RenderLayer[]} layers
 * @param {TextureOf} textureOf
 */
export function firstShownLayer(layers, textureOf) {
  let first = 0;
  for (let i = 0; i < layers.length; i++) {
    const layer = /** @type {RenderLayer} */ (layers[i]);
    if (!shownPicture(layer, textureOf)) continue;
    const isOpaque = (layer.kind === "video" || layer.kind === "camera") && layer.opacity >= 1 &&
      layer.effects.length === 0;
    if (isOpaque) first = i;
  }
  return first;
}

/**
 * What a frame of a compositor sets and reads, made once: a frame allocates none of it.
 */
function frameScratch() {
  return {
    date: new Date(),
    dateValues: [0, 0, 0, 0],
    size: { width: 1, height: 1 },
    canvasSize: { width: 1, height: 1 },
    /** @type {Chain} */
    chain: { time: 0, size: { width: 1, height: 1 }, scale: 1, owner: "" },
    /** @type {Record<string, WebGLTexture>} */
    image: {},
    present: presentUniforms(),
    opacity: { opacity: 1 },
    /** @type {Record<string, UniformValue>} */
    plain: { u_resolution: [1, 1], u_time: 0 },
    /** @type {Record<string, WebGLTexture>} */
    plainTextures: {},
    /** Each Effect's occurrences in the chain numbered `chains` (`occurrence`). */
    /** @type {Map<string, {chain: number, n: number}>} */
    seen: new Map(),
    chains: 0,
    /** The background colour's text and its three 0-1 numbers (parsed when it changes). */
    colorText: "",
    color: [0, 0, 0],
    bins: new Uint8Array(0),
    /** A layer's filters as a pass. @type {ShaderPass} */
    filter: { program: "layer", uniforms: {} },
    /** A layer's passes, the first `#drawLayer` sets of them (never emptied: V8 drops the
     * store of an array whose length is set to 0). @type {ShaderPass[]} */
    passes: [],
  };
}

/** The programs of a compositor by name: compiled, replaced, dropped, each deleted with its shaders. */
class Programs {
  #gl;
  /** @type {Map<string, Program>} */
  #byName = new Map();

  /** @param {WebGL2RenderingContext} gl */
  constructor(gl) {
    this.#gl = gl;
  }

  /**
   * The program named `name`, or undefined.
   * @param {string} name
   */
  get(name) {
    return this.#byName.get(name);
  }

  /**
   * Compiles a program (its `fallback` sources when GL refuses `source`), or takes it as
   * `compiled` already; throws the log of `source` when neither compiles (having deleted what
   * it made). One of the same name is replaced, and deleted.
   * @param {ShaderProgram} program
   */
  add(program, compiled = compileProgram(this.#gl, program)) {
    const passes = program.passes?.length ? program.passes : null;
    const samplers = program.samplers ?? null;
    const old = this.#byName.get(program.name);
    if (old && old.program !== compiled.program) deleteProgram(this.#gl, old.program);
    const bindings = samplers ? bindingsOf(samplers) : null;
    const clears = program.ownVertex === true; // its own vertex shader may not cover every pixel
    this.#byName.set(program.name, { ...compiled, samplers, passes, bindings, clears });
  }

  /**
   * Deletes a program the player no longer draws, and its shaders.
   * @param {string} name
   */
  drop(name) {
    const compiled = this.#byName.get(name);
    if (compiled) deleteProgram(this.#gl, compiled.program);
    this.#byName.delete(name);
  }

  /**
   * Takes the player's programs message: drops those named in `drop`, compiles each of
   * `programs`, and tells `refused` each one GL refused (nothing once the context is lost:
   * they are all sent again with the new one).
   * @param {ShaderProgram[]} programs
   * @param {string[]} drop
   * @param {(program: ShaderProgram, log: string) => void} refused
   */
  take(programs, drop, refused) {
    for (const name of drop) this.drop(name);
    for (const p of programs) {
      try {
        this.add(p);
      } catch (error) {
        if (this.#gl.isContextLost()) return;
        refused(p, error instanceof Error ? error.message : String(error));
      }
    }
  }
}

/** The picture of a render state, drawn with WebGL2 on a canvas. */
export class Compositor {
  /** The canvas's context. @type {WebGL2RenderingContext} */
  gl;
  #canvas;
  #internal;
  /** The context's live GL objects by kind (`countObjects`: kept up to date). */
  #objects;
  #programs;
  #isfPasses;
  /** The image inputs but `inputImage` (`image_inputs.js`). */
  #images;
  #spectrum;
  /** ISF's FRAMEINDEX and TIMEDELTA of the frame drawn (`nextFrame`). */
  #times = frameTimes();
  /** @type {Targets | null} */
  #targets = null;
  #crossings = new CrossTargets();
  /** What a frame sets and reads, made once (a frame allocates none of it). */
  #frame = frameScratch();
  /** ISF targets' owners' keys (`<layer>/<id>/<n>`), made once; forgotten as targets go. */
  #ownerKeys = new JoinedKeys("/");

  /**
   * A compositor on `canvas`, or null without a WebGL2 that compiles (no context, or a GPU
   * that fails every shader): the page then says so and the player tries software GL.
   * @param {HTMLCanvasElement} canvas
   */
  static create(canvas) {
    const gl = canvas.getContext("webgl2", {
      // Not kept between frames (a copy less a frame): a picture is read in the task that drew it.
      preserveDrawingBuffer: false,
      alpha: false,
      antialias: false,
    });
    if (!gl) return null;
    countObjects(gl);
    try {
      const internal = { composite: compile(gl, COMPOSITE), present: compile(gl, REGION_PRESENT) };
      quad(gl);
      return new Compositor(canvas, gl, internal);
    } catch {
      return null;
    }
  }

  /**
   * Use `Compositor.create`.
   * @param {HTMLCanvasElement} canvas
   * @param {WebGL2RenderingContext} gl
   * @param {{composite: Compiled, present: Compiled}} internal
   */
  constructor(canvas, gl, internal) {
    this.#canvas = canvas;
    this.gl = gl;
    this.#internal = internal;
    this.#objects = countObjects(gl);
    this.#programs = new Programs(gl);
    this.#isfPasses = new IsfPasses(gl);
    this.#images = new ImageInputs(gl);
    this.#spectrum = { texture: texture(gl), wave: texture(gl), bins: 1 };
    const textures = this.#frame.plainTextures;
    textures.u_spectrum = this.#spectrum.texture;
    textures.u_wave = this.#spectrum.wave;
  }

  /** The context's live GL objects by kind, now (a copy). @returns {GlObjects} */
  get objects() {
    return { ...this.#objects };
  }

  /**
   * Takes the player's programs message (`Programs.take`).
   * @param {ShaderProgram[]} programs
   * @param {string[]} drop
   * @param {(program: ShaderProgram, log: string) => void} refused
   */
  takePrograms(programs, drop, refused) {
    this.#programs.take(programs, drop, refused);
  }

  /**
   * Draws `state` at `clock`; `textureOf(clipId)` is a layer's picture or null. `scale`
   * (`render_scale.js`) draws every pass that much smaller; the canvas is the display's size (its
   * region's, `region.js`) times `canvasScale`, which the browser scales to the window (a canvas at
   * the display's size costs a full-size pass more and the browser's copy of it, about 55 ms a
   * 1080p frame with software GL; a recording records the canvas at its size).
   * @param {RenderState} state
   * @param {number} clock
   * @param {TextureOf} textureOf
   * @param {AnalyserNode} analyser
   */
  draw(state, clock, textureOf, analyser, scale = 1, canvasScale = 1) {
    const gl = this.gl;
    const { display } = state;
    const frame = this.#frame;
    const size = scaledSize(display, scale, frame.size);
    const canvasSize = regionCanvasSize(display, state.region, canvasScale, frame.canvasSize);
    const targets = this.#ensureTargets(canvasSize, size);
    setBackground(frame, display.backgroundColor);
    nextFrame(this.#times, clock, display.fps);
    uploadAudio(gl, this.#spectrum, frame, analyser);
    const chain = frame.chain;
    chain.time = clock;
    chain.size = size;
    chain.scale = scale;
    this.#images.frame(state.layers, textureOf, size);
    const crossing = crossingAt(state.transition, clock, this.#programs);
    const skip = state.transition?.outgoing ?? null; // at progress 1 too: the incoming alone
    drawStack(gl, frame.color, state.layers, textureOf, chain, targets.out, skip, this.#drawLayer);
    let picture = targets.out.texture;
    if (crossing) picture = this.#cross(crossing, state.layers, textureOf, chain, picture);
    if (state.visualizers.length > 0) {
      chain.owner = "";
      this.#images.context.below = picture;
      picture = this.#runPasses(state.visualizers, picture, chain);
    }
    // The display's zoom and this machine's part of the canvas (`region.js`).
    const present = setPresent(frame.present, state);
    frame.image.u_image = picture;
    pass(gl, this.#internal.present, null, frame.image, present, canvasSize);
    // Targets deleted (a change): their keys and counts go, those drawn are made again.
    if (this.#isfPasses.endFrame()) this.#ownerKeys.clear(), frame.seen.clear();
  }

  /**
   * Draws the outgoing picture of `crossing` and mixes it with the `incoming` one through its
   * program (`startImage`, `endImage`, `progress`); the mix's texture.
   * @param {RenderTransition} crossing
   * @param {RenderLayer[]} layers
   * @param {TextureOf} textureOf
   * @param {Chain} chain
   * @param {WebGLTexture} incoming
   */
  #cross(crossing, layers, textureOf, chain, incoming) {
    const { from, mix } = this.#crossings.targets(this.gl, chain.size);
    drawStack(
      this.gl,
      this.#frame.color,
      layers,
      textureOf,
      chain,
      from,
      crossing.incoming,
      this.#drawLayer,
    );
    const compiled = /** @type {Program} */ (this.#programs.get(crossing.pass.program));
    const { samplers, bindings } = compiled;
    if (!samplers || !bindings) return incoming;
    const { textures, values } = this.#isfBind(bindings, samplers, incoming, chain, crossing.pass);
    textures.startImage = from.texture;
    textures.endImage = incoming;
    pass(this.gl, compiled, mix, textures, values, chain.size, crossing.pass.uniforms);
    return mix.texture;
  }

  /** ISF's TIMEDELTA and FRAMEINDEX of the last frame drawn (the page reports them). */
  get lastFrame() {
    return { index: this.#times.index, timeDelta: this.#times.timeDelta };
  }

  /**
   * The canvas at `canvasSize`, the targets at the size drawn (a render scale's): kept at the
   * same size, their storage made again in place at another (`resizeTarget`).
   * @param {Size} canvasSize
   * @param {Size} size
   * @returns {Targets}
   */
  #ensureTargets(canvasSize, { width, height }) {
    const canvas = this.#canvas;
    if (canvas.width !== canvasSize.width) canvas.width = canvasSize.width;
    if (canvas.height !== canvasSize.height) canvas.height = canvasSize.height;
    const gl = this.gl;
    const old = this.#targets;
    if (!old) return (this.#targets = makeTargets(gl, width, height));
    if (old.width === width && old.height === height) return old;
    for (const t of [old.a, old.b, old.out]) resizeTarget(gl, t, width, height);
    old.width = width;
    old.height = height;
    return old;
  }

  /**
   * An ISF program's bindings for this frame, set in place: ISF's built-ins and its samplers.
   * @param {Bindings} bindings
   * @param {Samplers} samplers
   * @param {WebGLTexture} input
   * @param {Chain} chain
   * @param {ShaderPass} p its inputs other than the layer's (`image_inputs.js`)
   * @returns {Bindings}
   */
  #isfBind(bindings, samplers, input, { time, size }, p) {
    const spectrum = this.#spectrum;
    const values = bindings.values;
    values.TIME = time / 1000;
    values.TIMEDELTA = this.#times.timeDelta;
    values.FRAMEINDEX = this.#times.index;
    setPair(values, "RENDERSIZE", size.width, size.height);
    const date = /** @type {number[]} */ (values.DATE);
    for (let i = 0; i < 4; i++) date[i] = this.#frame.dateValues[i] ?? 0;
    bindSamplers(bindings, samplers, input, p, spectrum, this.#images);
    return bindings;
  }

  /**
   * Draws the first `count` of `passes` over `source` (a chain: `chain` says how); answers its
   * picture.
   * @param {ShaderPass[]} passes
   * @param {WebGLTexture} source
   * @param {Chain} chain
   */
  #runPasses(passes, source, chain, count = passes.length) {
    const targets = this.#targets;
    if (!targets) return source;
    let input = source;
    let flip = targets.a;
    // An Effect's targets are its own by its id and its occurrence in the chain, not by its
    // index: a filter pass put before it, or an earlier Effect turned off, keeps them.
    const seen = this.#frame.seen, chainNo = ++this.#frame.chains;
    const ownerKeys = this.#ownerKeys;
    for (let i = 0; i < count; i++) {
      const p = /** @type {ShaderPass} */ (passes[i]);
      const compiled = this.#programs.get(p.program);
      if (!compiled) continue;
      const { samplers, bindings } = compiled;
      const isf = samplers && bindings ? this.#isfBind(bindings, samplers, input, chain, p) : null;
      if (isf && compiled.passes) {
        // ISF's PASSES: the picture is the last pass's, in its target or in `flip`.
        const id = p.id ?? p.program;
        const n = occurrence(seen, id, chainNo);
        const own = ownerKeys.join(ownerKeys.join(chain.owner, id), n);
        const program = /** @type {PassesProgram} */ (compiled);
        input = this.#isfPasses.run(program, p, own, isf, flip, chain);
        if (input !== flip.texture) continue;
      } else if (isf) {
        pass(this.gl, compiled, flip, isf.textures, isf.values, chain.size, p.uniforms ?? null);
        input = flip.texture;
      } else {
        input = this.#plainPass(compiled, p, input, flip, chain);
      }
      flip = flip === targets.a ? targets.b : targets.a;
    }
    return input;
  }

  /**
   * A pass of a program that is not ISF's (the layer's filters): into `dest`; its texture.
   * @param {Program} compiled
   * @param {ShaderPass} p
   * @param {WebGLTexture} input
   * @param {Target} dest
   * @param {Chain} chain
   */
  #plainPass(compiled, p, input, dest, { time, size }) {
    const { plain, plainTextures } = this.#frame;
    setPair(plain, "u_resolution", size.width, size.height);
    plain.u_time = time / 1000;
    plainTextures.u_image = input;
    pass(this.gl, compiled, dest, plainTextures, plain, size, p.uniforms ?? null);
    return dest.texture;
  }

  /**
   * Draws a layer through its filters and Effects, blended over `dest` at its opacity.
   * @param {RenderLayer} layer
   * @param {WebGLTexture} source
   * @param {Chain} chain
   * @param {Target} dest
   */
  #drawLayer = (
    /** @type {RenderLayer} */ layer,
    /** @type {WebGLTexture} */ source,
    /** @type {Chain} */ chain,
    /** @type {Target} */ dest,
  ) => {
    const gl = this.gl;
    if (!this.#targets) return;
    // Neutral filters cost nothing: a full-screen pass less on software GL.
    const { filter, passes } = this.#frame;
    let count = 0;
    if (layer.generator) passes[count++] = layer.generator; // a generator Clip's shader first
    if (!isNeutral(layer.filters)) {
      filter.uniforms = layer.filters;
      passes[count++] = filter;
    }
    const effects = layer.effects;
    for (let i = 0; i < effects.length; i++) {
      passes[count++] = /** @type {ShaderPass} */ (effects[i]);
    }
    this.#images.context.below = dest.texture;
    const result = this.#runPasses(passes, source, chain, count);
    gl.enable(gl.BLEND);
    gl.blendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA);
    const { image, opacity } = this.#frame;
    opacity.opacity = layer.opacity;
    image.u_image = result;
    pass(gl, this.#internal.composite, dest, image, opacity, chain.size);
    gl.disable(gl.BLEND);
  };
}

/**
 * The background colour `text` as three 0-1 numbers in `frame` (parsed when it changes), and
 * the present pass's.
 * @param {ReturnType<typeof frameScratch>} frame
 * @param {string} text
 */
function setBackground(frame, text) {
  if (frame.colorText !== text) {
    frame.colorText = text;
    parseColor(text, frame.color);
  }
  const bg = frame.present.background, c = frame.color;
  bg[0] = c[0] ?? 0, bg[1] = c[1] ?? 0, bg[2] = c[2] ?? 0;
}

/**
 * Binds `samplers` for a frame into `bindings`: an image input the layer's (`input`: the
 * layer's picture, or a transition's own two), or the one pass `p` binds (`image_inputs.js`);
 * an audio input the Song's waveform or spectrum.
 * Positional, not an options record: called for every pass of every frame, it allocates none.
 * @param {Bindings} bindings
 * @param {Samplers} samplers
 * @param {WebGLTexture} input
 * @param {ShaderPass} p
 * @param {{texture: WebGLTexture, wave: WebGLTexture, bins: number}} spectrum
 * @param {ImageInputs} images
 */
function bindSamplers(bindings, samplers, input, p, spectrum, images) {
  const { values, textures, keys } = bindings;
  const size = images.context.size;
  for (let i = 0; i < samplers.length; i++) {
    const s = /** @type {Samplers[number]} */ (samplers[i]);
    const isImage = s.type === "image";
    const key = keys.get(s.name) ?? `_${s.name}_imgSize`;
    if (isImage && !OWN_IMAGES.has(s.name)) {
      images.bind(s.name, p.inputs?.[s.name], textures, values, key);
      continue;
    }
    textures[s.name] = isImage ? input : s.type === "audio" ? spectrum.wave : spectrum.texture;
    if (isImage) setPair(values, key, size.width, size.height);
    else setPair(values, key, spectrum.bins, 1);
  }
  textures.u_image = input;
}

/**
 * Clears `dest` to the background `color` and draws the layers but those `skip` names into it
 * (skip null: all, from the first shown: `firstShownLayer`) with `drawLayer`.
 * @param {WebGL2RenderingContext} gl
 * @param {number[]} color
 * @param {RenderLayer[]} layers
 * @param {TextureOf} textureOf
 * @param {Chain} chain
 * @param {Target} dest
 * @param {string[] | null} skip
 * @param {(layer: RenderLayer, source: WebGLTexture, chain: Chain, dest: Target) => void} drawLayer
 */
function drawStack(gl, color, layers, textureOf, chain, dest, skip, drawLayer) {
  gl.bindFramebuffer(gl.FRAMEBUFFER, dest.fb);
  gl.viewport(0, 0, chain.size.width, chain.size.height);
  gl.clearColor(color[0] ?? 0, color[1] ?? 0, color[2] ?? 0, 1);
  gl.clear(gl.COLOR_BUFFER_BIT);
  // Indexed loops: an array's `for...of` makes an iterator.
  for (let i = skip ? 0 : firstShownLayer(layers, textureOf); i < layers.length; i++) {
    const layer = /** @type {RenderLayer} */ (layers[i]);
    if (skip && skip.includes(layer.clipId)) continue;
    const source = shownPicture(layer, textureOf);
    if (!source) continue;
    chain.owner = layer.clipId;
    drawLayer(layer, source, chain, dest);
  }
}

/**
 * The Song's spectrum and waveform as 1-pixel-high textures, for this frame (into one array,
 * made again only when the analyser's bins change), and the frame's DATE.
 * @param {WebGL2RenderingContext} gl
 * @param {{texture: WebGLTexture, wave: WebGLTexture, bins: number}} spectrum
 * @param {ReturnType<typeof frameScratch>} frame
 * @param {AnalyserNode} analyser
 */
function uploadAudio(gl, spectrum, frame, analyser) {
  if (frame.bins.length !== analyser.frequencyBinCount) {
    frame.bins = new Uint8Array(analyser.frequencyBinCount);
  }
  const bins = frame.bins;
  analyser.getByteFrequencyData(bins);
  uploadRow(gl, spectrum.texture, bins);
  analyser.getByteTimeDomainData(bins);
  uploadRow(gl, spectrum.wave, bins);
  spectrum.bins = bins.length;
  dateNow(frame.date, frame.dateValues);
}

/**
 * The crossing to draw at `clock` (its program compiled, progress under 1), its `progress`
 * uniform set; else null (the incoming picture alone).
 * @param {RenderTransition | undefined} transition
 * @param {number} clock
 * @param {Programs} programs
 */
function crossingAt(transition, clock, programs) {
  if (!transition) return null;
  const progress = (clock - transition.start) / (transition.duration * 1000);
  if (progress >= 1 || !programs.get(transition.pass.program)?.samplers) return null;
  transition.pass.uniforms.progress = Math.max(0, progress);
  return transition;
}

/** A crossing's targets (its outgoing picture, its mix), made on the first crossing drawn. */
class CrossTargets {
  /** @type {{from: Target, mix: Target} | null} */
  #targets = null;

  /**
   * The targets at `size`.
   * @param {WebGL2RenderingContext} gl
   * @param {Size} size
   */
  targets(gl, { width, height }) {
    if (!this.#targets) {
      const from = target(gl, width, height), mix = target(gl, width, height);
      if (!from || !mix) throw new Error("WebGL made no target");
      this.#targets = { from, mix };
    }
    const { from, mix } = this.#targets;
    if (from.width !== width || from.height !== height) {
      resizeTarget(gl, from, width, height);
      resizeTarget(gl, mix, width, height);
    }
    return this.#targets;
  }
}

/**
 * The render's targets, made once (out of `#ensureTargets`: a closure there would make its
 * scope a frame).
 * @param {WebGL2RenderingContext} gl
 * @param {number} width
 * @param {number} height
 * @returns {Targets}
 */
function makeTargets(gl, width, height) {
  const [a, b, out] = [1, 2, 3].map(() => target(gl, width, height));
  if (!a || !b || !out) throw new Error("WebGL made no target");
  return { width, height, a, b, out };
}

/**
 * The occurrence of Effect `id` in the chain numbered `chainNo` (0 for its first), counted in
 * `seen`: a record an id made once, reset by the chain's number (clearing a Map makes a table).
 * @param {Map<string, {chain: number, n: number}>} seen
 * @param {string} id
 * @param {number} chainNo
 */
function occurrence(seen, id, chainNo) {
  let counted = seen.get(id);
  if (!counted) {
    counted = { chain: chainNo, n: 0 };
    seen.set(id, counted);
  }
  if (counted.chain !== chainNo) {
    counted.chain = chainNo;
    counted.n = 0;
  }
  return counted.n++;
}

/**
 * The display's size times `k` (at least a pixel a side), into `into`.
 * @param {Size} display
 * @param {number} k
 * @param {Size} into
 */
function scaledSize(display, k, into) {
  into.width = Math.max(1, Math.round(display.width * k));
  into.height = Math.max(1, Math.round(display.height * k));
  return into;
}
