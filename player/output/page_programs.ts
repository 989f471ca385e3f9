/**
 * The preset programs of the output's page: which ones the connected page
 * has (each is sent once, just before the first state that draws it), which
 * ones its GL refused, and for each Effect and Visualizer the programs it drew
 * with, so that a refused program never replaces a working one.
 * @module
 */
import type { RenderState, ShaderPass, ShaderProgram } from "../../protocol/output.ts";
import { describeProblem, type IsfProblem, mapCompileLog } from "../isf/mod.ts";
import { type IsfEntry, IsfPrograms } from "./isf_programs.ts";

/**
 * A page's compile log as problems at the lines of the preset's code, or of its own vertex
 * shader when the log is the vertex shader's (the page starts it `vertex shader:`, `gl.js`).
 */
function compileProblems(log: string, entry: IsfEntry): IsfProblem[] {
  const vertex = /^vertex shader:\n/.exec(log);
  const { vertexCode, isf } = entry;
  if (!vertex || vertexCode === undefined || isf.vertexLineOffset === undefined) {
    return mapCompileLog(log, entry.code, entry.isf.lineOffset);
  }
  return mapCompileLog(log.slice(vertex[0].length), vertexCode, isf.vertexLineOffset)
    .map((p) => ({ ...p, message: `vertexCode: ${p.message}` }));
}

/** How many refused programs and programs sent are remembered. */
const LIMIT = 1024;
/** How many preset programs the page keeps before it deletes those no state draws. */
export const PAGE_KEEPS = 32;

/** The page's preset programs. */
export class PagePrograms {
  /** Programs made from presets' code, for the render state (shared by the pages). */
  readonly programs: IsfPrograms;
  /** Programs sent to the page with the first state drawing each, newest last (1024). */
  readonly pushes: { name: string; seq: number; at: number }[] = [];
  readonly #sent = new Set<string>();
  readonly #failed = new Set<string>();
  /** The programs each Effect or Visualizer drew with, newest last (at most 8). */
  readonly #history = new Map<string, string[]>();

  constructor(programs: IsfPrograms = new IsfPrograms()) {
    this.programs = programs;
  }

  /**
   * A preset's program is drawn once its bounded check ended (`isf_programs.ts`): `changed`
   * pushes the state again. A stored preset whose code no longer passes draws nothing, said
   * once per code.
   */
  hearChecks(options: {
    changed(): void;
    log(level: "warn", message: string): void;
  }): void {
    this.programs.onChecked = () => options.changed();
    this.programs.onRefused = (preset, problem) =>
      options.log(
        "warn",
        `Output: preset "${preset.name}" (${preset.id}) does not pass its checks (${problem}): its Effect or Visualizer draws nothing until its code is edited`,
      );
  }

  /** A new page connected: it has none of the preset programs. */
  pageConnected(): void {
    this.#sent.clear();
  }

  /**
   * Readies `state` (sent at player clock `at`) for the page: a pass whose program was
   * refused draws with the newest earlier one that was not. Answers the programs the
   * page must get before it.
   */
  prepare(state: RenderState, at: number): { programs: ShaderProgram[]; drop: string[] } {
    const passes = [...state.layers.flatMap((l) => l.effects), ...state.visualizers];
    if (state.transition) passes.push(state.transition.pass);
    for (const layer of state.layers) if (layer.generator) passes.push(layer.generator);
    for (const pass of passes) this.#keepWorking(pass);
    const programs: ShaderProgram[] = [];
    for (const { program } of passes) {
      const entry = this.#sent.has(program) ? null : this.programs.named(program);
      if (!entry) continue;
      this.#sent.add(program);
      programs.push(entry.wire);
      this.pushes.push({ name: program, seq: state.seq, at });
    }
    this.pushes.splice(0, this.pushes.length - LIMIT);
    return { programs, drop: this.#dropUnused(passes) };
  }

  /**
   * Past PAGE_KEEPS programs (each code edit makes one), the page deletes those neither
   * this state nor any Effect's last working program uses; they are sent again if drawn.
   */
  #dropUnused(passes: readonly ShaderPass[]): string[] {
    if (this.#sent.size <= PAGE_KEEPS) return [];
    const used = new Set(passes.map((p) => p.program));
    for (const seen of this.#history.values()) {
      const working = seen.findLast((name) => !this.#failed.has(name));
      if (working) used.add(working);
    }
    const drop = [...this.#sent].filter((name) => !used.has(name));
    for (const name of drop) this.#sent.delete(name);
    return drop;
  }

  /**
   * The page's GL refused `program`: it is not drawn again, and the message to log says
   * why at the lines of the preset's code.
   */
  refused(program: string, log: string): string {
    if (this.#failed.size >= LIMIT) this.#failed.delete(this.#failed.values().next().value!);
    this.#failed.add(program);
    const entry = this.programs.named(program);
    const problems = entry ? compileProblems(log, entry) : [];
    const what = entry
      ? `the ${entry.presetKind} preset "${entry.presetName}" (${entry.presetId})`
      : `the program ${program}`;
    const text = problems.length > 0
      ? problems.slice(0, 5).map(describeProblem).join("; ")
      : log.trim().split("\n")[0];
    return `${what} does not compile in the output's GL context: ${text}; ` +
      "the output keeps drawing the last code that compiled";
  }

  #keepWorking(pass: ShaderPass): void {
    if (!pass.id) return;
    const seen = this.#history.get(pass.id) ?? [];
    if (!this.#failed.has(pass.program)) {
      const rest = seen.filter((name) => name !== pass.program).slice(-7);
      this.#history.set(pass.id, [...rest, pass.program]);
      return;
    }
    const working = seen.findLast((name) => !this.#failed.has(name));
    if (working) pass.program = working;
  }
}
