/**
 * The house's `deno lint` plugin (deno.json `lint.plugins`): every function
 * readable in a minute (docs/architecture.md, "Functions readable in a
 * minute"). A function, method or arrow whose body is over
 * {@link MAX_BODY_LINES} lines fails unless the line above it says why in a
 * `// long: <reason>` comment that {@link convinces}; a `// long:` comment
 * that is not above such a function fails too, so a reason cannot outlive the
 * length it excused.
 *
 * It applies to the program (`main.ts`, `server/`, `player/`, `protocol/`,
 * their browser pages included); tests, tools and benches are scripts of
 * steps read top to bottom, and are left out.
 * @module
 */

/** The most lines a function's body may have without a reason. */
export const MAX_BODY_LINES = 60;

/** The comment that excuses a long function: `// long: ` and a reason of a few words. */
export const LONG_MARKER = /^\s*\/\/ long: (.*)$/;

/** The shortest reason taken (`// long: table` says too little). */
export const MIN_REASON_CHARS = 12;

/**
 * Whether a `// long:` reason says why, for both length rules (this one and
 * tools/lint/class_length.ts): a few words, and more than that the code is
 * "like a class" (a closure of shared state is a class in all but name: make
 * it one, or a module).
 */
export function convinces(reason: string): boolean {
  return reason.length >= MIN_REASON_CHARS && !/like a class/i.test(reason);
}

/**
 * The repository, with forward slashes (`/C:/x/` on Windows read as `C:/x/`),
 * decoded as Deno gives a linted file's name (a URL's path says `%20` for a
 * space).
 */
const ROOT = decodeURIComponent(new URL("../../", import.meta.url).pathname)
  .replace(/^\/([A-Za-z]:)/, "$1");

/** This rule's name, as an ignore comment would name it. */
export const RULE_NAME = "cueport/function-length";

/**
 * An ignore comment that would silence a rule (this one unless named):
 * `deno-lint-ignore` or `deno-lint-ignore-file` naming it or naming no rule
 * (which ignores all).
 */
export function ignoresRule(comment: string, rule: string = RULE_NAME): boolean {
  const ignore = /^\s*deno-lint-ignore(?:-file)?(?:\s+(.*))?$/.exec(comment);
  if (!ignore) return false;
  const names = (ignore[1] ?? "").split(/\s+/).filter((n) => n);
  return names.length === 0 || names.includes(rule);
}

/** The folders and files of the program the rule applies to, relative to the repository. */
export const CHECKED: readonly string[] = ["main.ts", "server/", "player/", "protocol/", "lib/"];

/** Whether a file (absolute, or relative to the repository) is one the rule checks. */
export function isChecked(filename: string): boolean {
  const slashed = filename.replaceAll("\\", "/");
  const path = slashed.startsWith(ROOT) ? slashed.slice(ROOT.length) : slashed;
  return CHECKED.some((c) => c.endsWith("/") ? path.startsWith(c) : path === c);
}

/** A node the rule measures: a function, method or arrow. */
export type FunctionNode =
  | Deno.lint.FunctionDeclaration
  | Deno.lint.FunctionExpression
  | Deno.lint.ArrowFunctionExpression;

/** Line numbers (0-based) of offsets in a text. */
function lineIndex(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i !== -1; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  };
}

/**
 * The lines of a function's body: those between its braces, or those of an
 * arrow's expression.
 */
export function bodyLines(node: FunctionNode, lineOf: (offset: number) => number): number {
  const body = node.body;
  if (!body) return 0;
  const first = lineOf(body.range[0]);
  const last = lineOf(body.range[1] - 1);
  return body.type === "BlockStatement" ? Math.max(0, last - first - 1) : last - first + 1;
}

/** The reason of a `// long:` comment on a line (0-based) of a file's lines, or "". */
export function reasonOn(lines: readonly string[], line: number): string {
  return LONG_MARKER.exec(lines[line] ?? "")?.[1]?.trim() ?? "";
}

/** A linted file as the length rules read it. */
export interface LongFile {
  /** Its lines, CRLF read as LF. */
  lines: string[];
  /** The line (0-based) of an offset. */
  lineOf: (offset: number) => number;
  /** Its `// long:` comments, by line. */
  markers: Map<number, Deno.lint.LineComment>;
}

/**
 * The file being linted, with its `// long:` comments. Reports each comment
 * that would silence the rule (`ignores` its text) as it goes: a long `kind`
 * says why instead.
 */
export function readLongFile(
  ctx: Deno.lint.RuleContext,
  rule: { name: string; kind: string; ignores: (comment: string) => boolean },
): LongFile {
  const text = ctx.sourceCode.text;
  const lineOf = lineIndex(text);
  const markers = new Map<number, Deno.lint.LineComment>();
  for (const comment of ctx.sourceCode.getAllComments()) {
    if (rule.ignores(comment.value)) {
      ctx.report({
        range: comment.range,
        message:
          `Do not ignore ${rule.name}: a long ${rule.kind} says why in a "// long:" comment.`,
        hint:
          `Remove the ignore comment; excuse the ${rule.kind} with a reason on the line above it.`,
      });
    }
    if (comment.type !== "Line" || !LONG_MARKER.test(`//${comment.value}`)) continue;
    markers.set(lineOf(comment.range[0]), comment);
  }
  return { lines: text.split(/\r?\n/), lineOf, markers };
}

const rule: Deno.lint.Rule = {
  create(ctx) {
    if (!isChecked(ctx.filename)) return {};
    // `markers`: the `// long:` comments not yet found above a long function, by line.
    const { lines, lineOf, markers } = readLongFile(ctx, {
      name: RULE_NAME,
      kind: "function",
      ignores: (comment) => ignoresRule(comment),
    });
    const check = (node: FunctionNode) => {
      const count = bodyLines(node, lineOf);
      if (count <= MAX_BODY_LINES) return;
      const above = lineOf(node.range[0]) - 1;
      const reason = reasonOn(lines, above);
      if (markers.has(above)) markers.delete(above);
      if (convinces(reason)) return;
      ctx.report({
        node,
        message: reason
          ? `The reason of this ${count}-line function says too little: "${reason}".`
          : `This function's body is ${count} lines (at most ${MAX_BODY_LINES} without a reason).`,
        hint: `Split it where that makes it clearer, or say why it is one thing in a ` +
          `"// long: <reason>" comment on the line above it ("like a class" is no reason: ` +
          `make it a class or a module; docs/architecture.md).`,
      });
    };
    /** A comment above a class is the class rule's to judge (tools/lint/class_length.ts). */
    const leaveToClassRule = (node: Deno.lint.Node) => markers.delete(lineOf(node.range[0]) - 1);
    return {
      ClassDeclaration: leaveToClassRule,
      ClassExpression: leaveToClassRule,
      FunctionDeclaration: check,
      FunctionExpression: check,
      ArrowFunctionExpression: check,
      "Program:exit"() {
        for (const comment of markers.values()) {
          ctx.report({
            range: comment.range,
            message: `This "// long:" comment is not on the line above a function over ` +
              `${MAX_BODY_LINES} lines.`,
            hint: "Remove it, or move it to the line above the long function it excuses.",
          });
        }
      },
    };
  },
};

/** The plugin, as deno.json loads it. */
const plugin: Deno.lint.Plugin = {
  name: "cueport",
  rules: { "function-length": rule },
};

export default plugin;
