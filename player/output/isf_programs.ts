/**
 * The output's programs of ISF presets: a preset's code made into the
 * sources the page compiles (`prepareIsf`, the header's checks without the
 * GLSL parse its edit already passed), named by a hash of those sources so
 * that the page gets each program once, and a new one whenever the code
 * changes. Kept by code, the last 64.
 * @module
 */
import type { Preset } from "../../protocol/model.ts";
import type { ShaderProgram } from "../../protocol/output.ts";
import { type IsfProgram, isfUniforms, prepareIsf } from "../isf/mod.ts";

/** A preset's program: what the page compiles, and the ISF program it came from. */
export interface IsfEntry {
  readonly wire: ShaderProgram;
  readonly isf: IsfProgram;
  /** The preset's code and name as they were (to map a compile log to its lines). */
  readonly code: string;
  readonly presetName: string;
  readonly presetId: string;
  readonly presetKind: Preset["kind"];
}

const LIMIT = 64;

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
  readonly #byCode = new Map<string, IsfEntry | null>();
  readonly #byName = new Map<string, IsfEntry>();

  /** The program of an isf `preset`, or null when its code does not make one. */
  of(preset: Preset): IsfEntry | null {
    const key = `${preset.kind}\n${preset.code}`;
    let entry = this.#byCode.get(key);
    if (entry === undefined) {
      entry = build(preset);
      if (this.#byCode.size >= LIMIT) {
        const oldest = this.#byCode.keys().next().value!;
        const gone = this.#byCode.get(oldest);
        this.#byCode.delete(oldest);
        if (gone) this.#byName.delete(gone.wire.name);
      }
      if (entry) this.#byName.set(entry.wire.name, entry);
    } else this.#byCode.delete(key);
    this.#byCode.set(key, entry);
    return entry;
  }

  /** A program made earlier, by its name (`isf-<hash>`). */
  named(name: string): IsfEntry | null {
    return this.#byName.get(name) ?? null;
  }
}

function build(preset: Preset): IsfEntry | null {
  const result = prepareIsf(preset.code, preset.kind);
  if (!result.ok) return null;
  const isf = result.program;
  const types = new Map(isf.header.INPUTS.map((i) => [i.NAME, i.TYPE]));
  const wire: ShaderProgram = {
    name: `isf-${hashText(isf.vertex + "\n" + isf.fragment)}`,
    source: isf.fragment,
    vertex: isf.vertex,
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
    presetName: preset.name,
    presetId: preset.id,
    presetKind: preset.kind,
  };
}
