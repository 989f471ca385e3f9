/**
 * The render state of the active Project: what the output page draws and
 * plays, built from the play state, the live values (Controls, SET_PARAM)
 * and the app state. Layers follow the Project's Clip order; with nothing
 * playing, the background Clip plays from when the output fell idle.
 * @module
 */
import type {
  Clip,
  Effect,
  Preset,
  PresetParameter,
  Project,
  Transition,
  Visualizer,
} from "../../protocol/model.ts";
import type {
  RenderLayer,
  RenderState,
  RenderTransition,
  ShaderPass,
} from "../../protocol/output.ts";
import { isfUniforms, passSizes } from "../isf/mod.ts";
import { drawsIsf, type IsfEntry, type IsfPrograms } from "./isf_programs.ts";
import { renderInputs } from "./image_bindings.ts";
import type { AppState, Camera, ClipPlay, LiveValues, PlayState } from "../../protocol/state.ts";

/** What the render state is built from. */
export interface RenderSource {
  project: Project;
  playState: PlayState;
  live: LiveValues;
  appState: AppState;
  presets: readonly Preset[];
  cameras: readonly Camera[];
  /** The programs of isf presets; without it, their Effects draw nothing. */
  programs?: IsfPrograms;
  /** The crossing under way (`ProjectEngine.crossing`), if any. */
  crossing?: Crossing | null;
}

/** A crossing under way as the engine tells it (`player/engine/crossings.ts`). */
export interface Crossing {
  /** What began it; a `stop-all` crossing (the panic note's) silences its outgoing Clips. */
  cause?: string;
  transition: Transition;
  /** Player clock, ms. */
  start: number;
  progress: number;
  /** The outgoing Clips as they would play now. */
  outgoing: ClipPlay[];
  incoming: string[];
}

/** The player's clock as the page follows it. */
export interface ClockReading {
  now: number;
  rate: number;
}

/** The URL path of a Project file on the output server. */
export function mediaPath(projectId: string, fileId: string): string {
  return `media/${projectId}/${fileId}`;
}

/**
 * Whether an Effect or Visualizer is drawn: it is on, and its preset is not quarantined (a
 * shader that stopped the output's frames, `quarantine.ts`): then it is drawn as if off.
 */
export function isDrawn(item: Effect | Visualizer, presets: readonly Preset[]): boolean {
  return item.enabled && !presets.find((p) => p.id === item.presetId)?.quarantine;
}

/** A camera Clip names its device as `camera:<deviceId>` in its name (`camera:default`). */
export function cameraOf(clip: Clip): string | null {
  const m = /^camera:(\S+)$/.exec(clip.name.trim());
  return clip.fileId === null && m ? m[1]! : null;
}

/** A parameter value as a uniform: numbers, booleans, `#rrggbb` as three 0-1 numbers, enums by index. */
function uniformValue(
  value: number | string | boolean,
  options?: string[],
): number | boolean | number[] {
  if (typeof value !== "string") return value;
  const color = /^#([0-9a-f]{2})([0-9a-f]{2})([0-9a-f]{2})$/i.exec(value);
  if (color) return [1, 2, 3].map((i) => parseInt(color[i]!, 16) / 255);
  return Math.max(0, options?.indexOf(value) ?? 0);
}

/** The size a pass renders at (the display's), for ISF's `$WIDTH` and `$HEIGHT`. */
export interface RenderSize {
  readonly width: number;
  readonly height: number;
}

/** What a shader pass is made from, beside its Effect or Visualizer. */
export interface PassSource {
  /** The presets, the item's among them (else the built-in of its type). */
  readonly presets: readonly Preset[];
  /** Live values, as `<id>.<param>`. */
  readonly live?: Record<string, number>;
  /** The programs of isf presets; without them, their Effects draw nothing. */
  readonly programs?: IsfPrograms | undefined;
  /** The render's size, which an ISF program's `PASSES` targets are sized for. */
  readonly size?: RenderSize | undefined;
  /** The Project, whose files an image input may read (`image_bindings.ts`). */
  readonly project?: Pick<Project, "id" | "files"> | undefined;
}

/**
 * The shader pass of an Effect or Visualizer: its preset's defaults, its own
 * params, then the live values written as `<id>.<param>` on the Clip. An ISF
 * program with `PASSES` gets its targets' sizes for a render of `size`.
 */
export function shaderPass(item: Effect | Visualizer, from: PassSource): ShaderPass {
  const { presets, live = {}, programs, size } = from;
  const program = "type" in item ? item.type : item.engine;
  const preset = presets.find((p) => p.id === item.presetId) ??
    presets.find((p) => p.builtIn && p.type === program);
  const isf = preset && programs && drawsIsf(preset) ? programs.of(preset) : null;
  if (preset && isf) {
    const pass = isfPass(item, preset, isf, live, size);
    const inputs = renderInputs(item, preset, isf.isf, from.project);
    return inputs ? { ...pass, inputs } : pass;
  }
  const uniforms: ShaderPass["uniforms"] = {};
  for (const parameter of preset?.parameters ?? []) {
    const value = live[`${item.id}.${parameter.name}`] ?? item.params[parameter.name] ??
      parameter.default;
    uniforms[parameter.name] = uniformValue(value, parameter.options);
  }
  for (const [name, value] of Object.entries(item.params)) {
    if (!(name in uniforms)) uniforms[name] = uniformValue(live[`${item.id}.${name}`] ?? value);
  }
  return { program, uniforms };
}

/**
 * The pass of an Effect or Visualizer drawn by its preset's ISF program: each
 * parameter's live value, else its own, else the preset's default, as the
 * uniforms ISF declares for the inputs (`isfUniforms`). A live value is a
 * number: an enum's is the index of its option, a boolean's is on above 0.5,
 * a number's is held to the input's MIN and MAX.
 */
function isfPass(
  item: Effect | Visualizer,
  preset: Preset,
  entry: IsfEntry,
  live: Record<string, number>,
  size: RenderSize | undefined,
): ShaderPass {
  const values: Record<string, PresetParameter["default"]> = {};
  for (const parameter of preset.parameters) {
    const value = live[`${item.id}.${parameter.name}`];
    values[parameter.name] = value === undefined
      ? item.params[parameter.name] ?? parameter.default
      : fromLive(value, parameter);
  }
  const uniforms: ShaderPass["uniforms"] = {};
  const scalars: Record<string, number> = {};
  for (const u of isfUniforms(entry.isf, values)) {
    uniforms[u.name] = typeof u.value === "number" ? u.value : [...u.value];
    if (typeof u.value === "number") scalars[u.name] = u.value;
  }
  const pass: ShaderPass = { program: entry.wire.name, uniforms, id: item.id };
  if (size && entry.isf.passes.length > 0) {
    pass.sizes = passSizes(entry.isf.header, { values: scalars, ...size });
  }
  return pass;
}

function fromLive(value: number, parameter: PresetParameter): PresetParameter["default"] {
  if (parameter.type === "boolean") return value > 0.5;
  if (parameter.type === "enum") {
    const options = parameter.options ?? [];
    return options[Math.min(options.length - 1, Math.max(0, Math.round(value)))] ?? value;
  }
  // A Control or SET_PARAM is not held to the input's range: the shader (and a target's
  // size, `texture_budget.ts`) gets no value outside its MIN and MAX.
  return Math.min(parameter.max ?? Infinity, Math.max(parameter.min ?? -Infinity, value));
}

function layerOf(
  source: RenderSource,
  clip: Clip,
  play: Pick<ClipPlay, "position" | "speed" | "direction" | "loop" | "gain" | "state">,
  at: number,
): RenderLayer {
  const { project, live, presets } = source;
  const params = live.params[clip.id] ?? {};
  const file = project.files.find((f) => f.id === clip.fileId);
  // A generator Clip plays its shader, whatever its name says (`camera:<id>`).
  const camera = clip.generator ? null : cameraOf(clip);
  const o = clip.options;
  const f = o.filters;
  const effects = o.effects
    .map((id) => project.effects.find((e) => e.id === id))
    .filter((e): e is Effect => !!e && isDrawn(e, presets))
    .map((e) =>
      shaderPass(e, {
        presets,
        live: params,
        programs: source.programs,
        size: source.project.display,
        project,
      })
    );
  const sign = play.direction === "backward" ? -1 : 1;
  const generator = generatorPass(source, clip, params);
  return {
    clipId: clip.id,
    // Without its pass (a preset quarantined or gone) a generator's layer is transparent.
    kind: clip.generator ? "generator" : camera ? "camera" : file?.kind ?? "none",
    source: camera ?? (file ? mediaPath(project.id, file.id) : null),
    name: camera ? source.cameras.find((c) => c.deviceId === camera)?.label ?? camera : clip.name,
    position: play.position,
    at,
    rate: play.state === "playing" ? play.speed * sign : 0,
    duration: clip.duration,
    loop: play.loop,
    opacity: params.opacity ?? o.opacity,
    volume: (params.volume ?? o.volume) * play.gain,
    filters: {
      brightness: params.brightness ?? f.brightness,
      contrast: params.contrast ?? f.contrast,
      saturation: params.saturation ?? f.saturation,
      hue: params.hue ?? f.hue,
      blur: params.blur ?? f.blur,
    },
    effects,
    ...(generator ? { generator } : {}),
  };
}

/**
 * The pass of the generator a Clip plays (`clip.generator`): its preset's program with the
 * live values written as `generator.<param>` on the Clip, else its own params, else the
 * preset's defaults; its ISF targets its Clip's. Null without one, or when its preset is
 * not a generator preset or is quarantined (the layer draws nothing).
 */
function generatorPass(
  source: RenderSource,
  clip: Clip,
  live: Record<string, number>,
): ShaderPass | null {
  const preset = source.presets.find((p) =>
    p.id === clip.generator?.presetId && p.kind === "generator" && !p.quarantine
  );
  if (!preset || !clip.generator) return null;
  const item: Effect = {
    id: "generator",
    name: preset.name,
    type: preset.type,
    presetId: preset.id,
    enabled: true,
    params: clip.generator.params,
  };
  const pass = shaderPass(item, {
    presets: source.presets,
    live,
    programs: source.programs,
    size: source.project.display,
  });
  pass.id = `generator:${clip.id}`;
  return pass;
}

/**
 * The live values of a Visualizer's parameters, written through any Clip as
 * `<visualizerId>.<param>`; where several Clips hold one, the last in the
 * Project's order wins.
 */
function visualizerLive(source: RenderSource, id: string): Record<string, number> {
  const live: Record<string, number> = {};
  for (const clip of source.project.clips) {
    for (const [key, value] of Object.entries(source.live.params[clip.id] ?? {})) {
      if (key.startsWith(`${id}.`)) live[key] = value;
    }
  }
  return live;
}

/**
 * The crossing to draw: its pass (the transition preset's program, its parameters: its own,
 * else live values written as `transition.<param>` through any Clip, else the preset's
 * defaults; `progress` now) and its outgoing Clips that play no more. Null when none is under
 * way or its preset is not a transition preset (a cut).
 */
function crossingOf(
  source: RenderSource,
  plays: ReadonlyMap<string, ClipPlay>,
): { render: RenderTransition; outgoing: Map<string, ClipPlay> } | null {
  const c = source.crossing;
  if (!c || c.progress >= 1) return null;
  const preset = source.presets.find((p) =>
    p.id === c.transition.presetId && p.kind === "transition" && !p.quarantine
  );
  if (!preset) return null;
  const item: Effect = {
    id: "transition",
    name: preset.name,
    type: preset.type,
    presetId: preset.id,
    enabled: true,
    params: c.transition.params,
  };
  const pass = shaderPass(item, {
    presets: source.presets,
    live: visualizerLive(source, "transition"),
    programs: source.programs,
    size: source.project.display,
  });
  pass.uniforms.progress = c.progress;
  // STOP_ALL_CLIPS_IN (the panic note) stops the sound at once: only the picture crosses.
  const silent = c.cause === "stop-all";
  const outgoing = new Map(
    c.outgoing.filter((p) => !plays.has(p.clipID))
      .map((p) => [p.clipID, silent ? { ...p, gain: 0 } : p]),
  );
  const render = {
    pass,
    start: c.start,
    duration: c.transition.duration,
    progress: c.progress,
    outgoing: [],
    incoming: c.incoming.filter((id) => plays.has(id)),
  };
  return { render, outgoing };
}

/** The background Clip of the active Song, else the Project's first; null when none. */
function backgroundClip(source: RenderSource): Clip | null {
  const song = source.project.songs.find((s) => s.id === source.playState.activeSongID);
  const id = song?.backgroundClipID ?? source.project.backgroundClips[0];
  return source.project.clips.find((c) => c.id === id) ?? null;
}

/** How the background Clip plays: from its start, looped, at full level. */
const BACKGROUND_PLAY = {
  position: 0,
  speed: 1,
  direction: "forward" as const,
  loop: true,
  gain: 1,
  state: "playing" as const,
};

/**
 * The render state at `clock`. `idleSince` is the clock time from which the
 * background Clip plays when nothing else does.
 */
export function buildRenderState(
  source: RenderSource,
  options: { seq: number; clock: ClockReading; idleSince: number },
): RenderState {
  const { project, playState, appState } = source;
  const plays = new Map(playState.clips.map((c) => [c.clipID, c]));
  let crossing = crossingOf(source, plays);
  const nothingPlays = playState.clips.length === 0;
  const background = nothingPlays ? backgroundClip(source) : null;
  // The background Clip is drawn once: as the incoming picture, not also as an outgoing one.
  if (background) crossing?.outgoing.delete(background.id);
  if (crossing?.outgoing.size === 0) crossing = null;
  if (background && crossing) crossing.render.incoming.push(background.id);
  if (crossing) crossing.render.outgoing = [...crossing.outgoing.keys()];
  const layers: RenderLayer[] = [];
  for (const clip of project.clips) {
    const play = plays.get(clip.id) ?? crossing?.outgoing.get(clip.id);
    if (play) layers.push(layerOf(source, clip, play, playState.at));
  }
  if (background) layers.push(layerOf(source, background, BACKGROUND_PLAY, options.idleSince));
  const songPlay = playState.song;
  const songDoc = project.songs.find((s) => s.id === songPlay?.songID);
  const audio = project.files.find((f) => f.id === songDoc?.audioFileId);
  const song = songPlay && songDoc && audio && songPlay.state !== "stopped"
    ? {
      source: mediaPath(project.id, audio.id),
      position: songPlay.position,
      at: playState.at,
      rate: songPlay.state === "playing" ? 1 : 0,
      volume: songDoc.audio.volume,
    }
    : null;
  return {
    seq: options.seq,
    clock: options.clock,
    display: { ...project.display },
    layers,
    song,
    visualizers: song
      ? project.visualizers.filter((v) => isDrawn(v, source.presets)).map((v) =>
        shaderPass(v, {
          presets: source.presets,
          live: visualizerLive(source, v.id),
          programs: source.programs,
          size: project.display,
          project,
        })
      )
      : [],
    ...(crossing ? { transition: crossing.render } : {}),
    level: appState.muted ? 0 : appState.volume,
    fullScreen: appState.fullScreen,
    ...(appState.outputRegion ? { region: appState.outputRegion } : {}),
    panic: appState.windowReloads,
  };
}
