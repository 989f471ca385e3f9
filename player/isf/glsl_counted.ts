/**
 * ShaderFrog's preprocessor and GLSL parser (`@shaderfrog/glsl-parser`,
 * pinned in deno.json) with their work counted on a `WorkBudget`, so that a
 * check is cut by work, never by time. The package has no budget of its own;
 * its work is counted where it calls back into what it is given:
 *
 * - macros: the preprocessor reads a macro's body each time it expands it
 *   (`body.replace(...)` for a function-like macro, a conversion to text for
 *   the others). Each body is handed over as a `CountedBody` (a `String`
 *   whose reads count), so each read counts one expansion and the
 *   characters it produces.
 * - parse: the parser reads `options.includeLocation` as it builds each node
 *   of the syntax tree (and each scope), so a getter there counts its steps.
 *
 * Both are checked by tests that cut a check at a tiny bound
 * (`tests/player/isf/bounds_test.ts`): an update of the package that stops
 * calling back fails them.
 * @module
 */
import * as glslParser from "@shaderfrog/glsl-parser/parser/parser.js";
import {
  generate,
  parse as parsePreprocessor,
  preprocessAst,
} from "@shaderfrog/glsl-parser/preprocessor/index.js";
import type { WorkBudget } from "./bounds.ts";

/** The parser's syntax tree. */
export type GlslProgram = ReturnType<typeof glslParser.parse>;

/** The parser's syntax error: a message and where. */
export const GlslSyntaxError = glslParser.SyntaxError;

/** A macro's body whose every read counts on `budget`. */
class CountedBody extends String {
  readonly #budget: WorkBudget;
  readonly #text: string;

  constructor(text: string, budget: WorkBudget) {
    super(text);
    this.#text = text;
    this.#budget = budget;
  }

  #counted(out: string): string {
    this.#budget.spend("macroExpansions");
    this.#budget.spend("expandedCharacters", out.length);
    return out;
  }

  override toString(): string {
    return this.#counted(this.#text);
  }

  override valueOf(): string {
    return this.#counted(this.#text);
  }

  // deno-lint-ignore no-explicit-any
  override replace(pattern: any, replacement: any): string {
    return this.#counted(this.#text.replace(pattern, replacement));
  }
}

/**
 * `source` preprocessed (comments kept, `defines` defined), its macros and
 * their expansions counted on `budget`.
 * @throws {WorkBoundReached} past a bound; the preprocessor's errors as they are
 */
export function countedPreprocess(
  source: string,
  defines: Record<string, string>,
  budget: WorkBudget,
): string {
  const ast = parsePreprocessor(source, { preserveComments: true });
  countMacros(ast, budget);
  return generate(preprocessAst(ast, { defines }));
}

/** Counts the `#define`s of a preprocessor syntax tree, their bodies made `CountedBody`s. */
function countMacros(node: unknown, budget: WorkBudget): void {
  if (Array.isArray(node)) return node.forEach((child) => countMacros(child, budget));
  if (typeof node !== "object" || node === null) return;
  const fields = node as Record<string, unknown>;
  if (fields.type === "define" || fields.type === "define_arguments") {
    budget.spend("macros");
    const { body } = fields;
    if (typeof body === "string" && body !== "") fields.body = new CountedBody(body, budget);
    return;
  }
  for (const value of Object.values(fields)) countMacros(value, budget);
}

/**
 * The tokens and the brackets' nesting of `text` (preprocessed GLSL), counted
 * on `budget` before the parser sees it.
 * @throws {WorkBoundReached} past the tokens or the nesting bound
 */
export function countTokens(text: string, budget: WorkBudget): void {
  const token = /\s+|\/\*[\s\S]*?\*\/|\/\/[^\n]*|[A-Za-z_0-9.]+|[^]/g;
  let depth = 0;
  for (const found of text.matchAll(token)) {
    const [match] = found;
    const c = match.charCodeAt(0);
    if (c <= 32 || (c === 47 && (match[1] === "*" || match[1] === "/"))) continue;
    budget.spend("tokens");
    if (match === "(" || match === "[" || match === "{") {
      budget.within("nesting", ++depth, found.index);
    } else if (match === ")" || match === "]" || match === "}") depth = Math.max(0, depth - 1);
  }
}

/**
 * `text` parsed as a fragment shader with locations, its steps counted on `budget`.
 * @throws {WorkBoundReached} past the parse steps; `GlslSyntaxError` on a syntax error
 */
export function countedParse(text: string, budget: WorkBudget): GlslProgram {
  const options = {
    stage: "fragment" as const,
    quiet: true,
    grammarSource: "location",
    get includeLocation(): boolean {
      budget.spend("parseSteps");
      return true;
    },
  };
  return glslParser.parse(text, options);
}
