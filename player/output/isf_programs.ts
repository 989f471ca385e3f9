/**
 * The output's programs of ISF presets: a preset's code made into the
 * sources the page compiles, those of its bounded check (`parseIsf`, in a
 * process of its own: every loop capped, `loop_cap.ts`), named by a hash of
 * those sources so that the page gets each program once, and a new one
 * whenever the code changes. A preset is drawn once its check ended (an edit's
 * check is taken when there is one): until then, and when its code does not
 * check, its Effect draws nothing. The built-in presets' code, the player's
 * own, is checked in this process, at once and once, so that a built-in Effect
 * draws from the first state that has it. Kept by code, the last 64.
 * @module
 */
import type { Preset } from "../../protocol/model.ts";
import type { ShaderProgram } from "../../protocol/output.ts";
import {
  describeProblem,
  ISF_CHECKS,
  type IsfKind,
  type IsfProgram,
  type IsfResult,
  isfUniforms,
  parseIsf,
} from "../isf/mod.ts";
import { BUILT_IN_PRESETS } from "../presets.ts";
import { importedImages } from "../isf/header.ts";

/** A preset's program: what the page compiles, and the ISF program it came from. */
export interface IsfEntry {
  readonly wire: ShaderProgram;
  readonly isf: IsfProgram;
  /** The preset's code and name as they were (to map a compile log to its lines). */
  readonly code: string;
  /** The preset's own vertex shader as it was, when it has one. */
  readonly vertexCode?: string;
  readonly presetName: string;
  readonly presetId: string;
  readonly presetKind: Preset["kind"];
}

/**
 * How a preset's code (with its own vertex shader, `vertexCode`, when it has one) is checked
 * for the output: at once (tests) or apart.
 */
export type IsfChecker = (
  code: string,
  kind: IsfKind,
  source?: { readonly vertexCode?: string },
) => IsfResult | Promise<IsfResult>;

const LIMIT = 64;

/** The code of the built-in presets, by kind (`${kind}\n${code}`). */
const BUILT_IN_CODE = new Set(BUILT_IN_PRESETS.map((p) => `${p.kind}\n${p.code}`));
/** The checks of the built-in presets' code, made once in this process. */
const builtInChecks = new Map<string, IsfResult>();

/**
 * The check of a preset whose code is a built-in's, made here at once; null for any other code.
 * The code is the player's own: the bounded check apart (a process started for it) is for code
 * from outside, and until it ended a built-in Effect drew nothing, or a GLSL twin of its code
 * shipped to every page. Its cost is paid once (`parseIsf` of each built-in took 23 to 233 ms at
 * load 11 on 2 cores): ahead, while the output's browser starts (`warmBuiltInChecks`), or when an
 * Effect or Visualizer of that type is first drawn, if that comes first.
 */
function builtInCheck(preset: Preset): IsfResult | null {
  const key = `${preset.kind}\n${preset.code}`;
  if (!BUILT_IN_CODE.has(key)) return null;
  let result = builtInChecks.get(key);
  if (!result) {
    result = parseIsf(preset.code, preset.kind);
    builtInChecks.set(key, result);
  }
  // Each caller its own copy, as ISF_CHECKS gives them.
  return structuredClone(result);
}

/**
 * Checks every built-in preset's code ahead, one per turn of the event loop, so that the cost
 * is paid while the output's browser starts rather than when a show first draws an Effect;
 * `turn` waits for the next turn (a macrotask, so requests and heartbeats are answered between).
 */
export async function warmBuiltInChecks(
  turn: () => Promise<void> = () => new Promise((resolve) => setTimeout(resolve, 0)),
): Promise<void> {
  for (const preset of BUILT_IN_PRESETS) {
    await turn();
    builtInCheck(preset);
  }
}

/**
 * Whether the output draws `preset` by compiling its code: every isf preset,
 * and the built-in ones (their code draws what the output's own programs drew:
 * `tests/player/isf/isf_compile_test.ts`), so that there is one path.
 */
export function drawsIsf(preset: Preset): boolean {
  return preset.type === "isf" || preset.builtIn;
}

/** A 53-bit hash of `text` as hex (cyrb53): names a program by its sources. */
export function hashText(text: string): string {
  let h1 = 0xdeadbeef, h2 = 0x41c6ce57;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 2654435761);
    h2 = Math.imul(h2 ^ c, 1597334677);
  }
  h1 = Math.imul(h1 ^ (h1 >>> 16), 2246822507) ^ Math.imul(h2 ^ (h2 >>> 13), 3266489909);
  h2 = Math.imul(h2 ^ (h2 >>> 16), 2246822507) ^ Math.imul(h1 ^ (h1 >>> 13), 3266489909);
  return (4294967296 * (2097151 & h2) + (h1 >>> 0)).toString(16);
}

/** The programs of the presets the output draws, by code. */
export class IsfPrograms {
  readonly #check: IsfChecker;
  readonly #byCode = new Map<string, IsfEntry | null | Promise<void>>();
  readonly #byName = new Map<string, IsfEntry>();
  /** Hears each check `of` started that ended with a program: the state is built again. */
  onChecked: () => void = () => {};
  /**
   * Hears, once per code, a preset the output would draw whose code does not pass its checks
   * (stored before a rule it breaks, such as a loop a macro writes): its Effect draws nothing.
   */
  onRefused: (preset: Preset, problem: string) => void = () => {};

  /** `check` checks a preset's code (the player's bounded check apart, `ISF_CHECKS`, by default). */
  constructor(
    check: IsfChecker = (code, kind, source) => ISF_CHECKS.checked(code, kind, source),
  ) {
    this.#check = check;
  }

  /**
   * The program of an isf `preset`, or null when its code does not make one or its check
   * has not ended yet (it is started here; `onChecked` hears it end).
   */
  of(preset: Preset): IsfEntry | null {
    const key = programKey(preset);
    const known = this.#byCode.get(key);
    if (known instanceof Promise) return null;
    if (known !== undefined) {
      this.#keep(key, known);
      return known;
    }
    const { vertexCode } = preset;
    const checked = builtInCheck(preset) ??
      (vertexCode === undefined
        ? this.#check(preset.code, preset.kind)
        : this.#check(preset.code, preset.kind, { vertexCode }));
    if (!(checked instanceof Promise)) return this.#keep(key, this.#build(preset, checked));
    const pending: Promise<void> = checked.then((result) => {
      if (this.#byCode.get(key) !== pending) return;
      const entry = this.#keep(key, this.#build(preset, result));
      if (entry) this.onChecked();
    }, () => {
      // No verdict (its checker stalled): checked again when next drawn.
      if (this.#byCode.get(key) === pending) this.#byCode.delete(key);
    });
    this.#keep(key, pending);
    return null;
  }

  /** The program of `preset` once its check ended. */
  async ready(preset: Preset): Promise<IsfEntry | null> {
    this.of(preset);
    await this.#byCode.get(programKey(preset));
    return this.of(preset);
  }

  /** A program made earlier, by its name (`isf-<hash>`). */
  named(name: string): IsfEntry | null {
    return this.#byName.get(name) ?? null;
  }

  /** The entry of a checked preset; one that does not pass is said to `onRefused`. */
  #build(preset: Preset, result: IsfResult): IsfEntry | null {
    if (!result.ok) {
      const first = result.problems[0];
      this.onRefused(preset, first ? describeProblem(first) : "it does not pass its checks");
    }
    return build(preset, result);
  }

  /** Keeps `entry` for `key`, newest last, the oldest dropped past LIMIT. */
  #keep<T extends IsfEntry | null | Promise<void>>(key: string, entry: T): T {
    this.#byCode.delete(key);
    if (this.#byCode.size >= LIMIT) {
      const oldest = this.#byCode.keys().next().value!;
      const gone = this.#byCode.get(oldest);
      this.#byCode.delete(oldest);
      if (gone && !(gone instanceof Promise)) this.#byName.delete(gone.wire.name);
    }
    this.#byCode.set(key, entry);
    if (entry && !(entry instanceof Promise)) this.#byName.set(entry.wire.name, entry);
    return entry;
  }
}

/** The key of a preset's program: its kind, code and vertex shader (none: as before it had). */
function programKey(preset: Preset): string {
  const key = `${preset.kind}\n${preset.code}`;
  return preset.vertexCode === undefined ? key : `${key}\n\u0000vs\n${preset.vertexCode}`;
}

function build(preset: Preset, result: IsfResult): IsfEntry | null {
  if (!result.ok) return null;
  const isf = result.program;
  const types = new Map<string, string>(isf.header.INPUTS.map((i) => [i.NAME, i.TYPE]));
  // An IMPORTED image is a picture the page binds like an image input.
  for (const { name } of importedImages(isf.header)) types.set(name, "image");
  const wire: ShaderProgram = {
    name: `isf-${hashText(isf.vertex + "\n" + isf.fragment)}`,
    source: isf.fragment,
    vertex: isf.vertex,
    ...(isf.vertexLineOffset === undefined ? {} : { ownVertex: true }),
    uniforms: isfUniforms(isf, {}).map((u) => ({
      name: u.name,
      type: u.type,
      default: typeof u.value === "number" ? u.value : [...u.value],
    })),
    samplers: isf.samplers.flatMap((name) => {
      const type = types.get(name);
      return type === "image" || type === "audio" || type === "audioFFT" ? [{ name, type }] : [];
    }),
    ...(isf.passes.length > 0 ? { passes: isf.passes.map((p) => ({ ...p })) } : {}),
    ...(isf.lifted ? { fallback: { source: isf.lifted.fragment, vertex: isf.lifted.vertex } } : {}),
  };
  return {
    wire,
    isf,
    code: preset.code,
    ...(preset.vertexCode === undefined ? {} : { vertexCode: preset.vertexCode }),
    presetName: preset.name,
    presetId: preset.id,
    presetKind: preset.kind,
  };
}
