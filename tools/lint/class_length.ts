/**
 * The house's class-length rule (deno.json `lint.plugins`), beside the
 * function-length one (tools/lint/function_length.ts, docs/architecture.md,
 * "Functions readable in a minute"): a class over {@link MAX_CLASS_LINES}
 * lines, from its `class` line to its closing brace, fails unless the line
 * above it says why in a `// long: <reason>` comment that convinces (the
 * check both rules share, tools/lint/function_length.ts `convinces`): a reason
 * that only says the code is "like a class" does not say why.
 *
 * One `// long:` comment may sit above both a class and a function (`const
 * make = () => class {`), so the two rules share the comments: the function
 * rule leaves a comment above a class to this one, which calls it a stray only
 * when neither a long class nor a long function follows it, and leaves a weak
 * reason above a long function to the function rule's report. Each comment is
 * reported once.
 * @module
 */
import {
  bodyLines,
  convinces,
  type FunctionNode,
  ignoresRule,
  isChecked,
  MAX_BODY_LINES,
  readLongFile,
  reasonOn,
} from "./function_length.ts";

/** The most lines a class may span, its `class` line and closing brace included, without a reason. */
export const MAX_CLASS_LINES = 300;

/** This rule's name, as an ignore comment would name it. */
export const CLASS_RULE_NAME = "cueport-class/length";

type ClassNode = Deno.lint.ClassDeclaration | Deno.lint.ClassExpression;

/** A long class whose reason did not convince, kept until every function has been seen. */
interface Weak {
  node: ClassNode;
  lines: number;
  reason: string;
  above: number;
}

const rule: Deno.lint.Rule = {
  create(ctx) {
    if (!isChecked(ctx.filename)) return {};
    // `markers`: the `// long:` comments, by line; those above a class are this rule's to judge.
    const { lines, lineOf, markers } = readLongFile(ctx, {
      name: CLASS_RULE_NAME,
      kind: "class",
      // An ignore naming no rule is the function rule's to report.
      ignores: (comment) =>
        /\S/.test(comment.replace(/^\s*deno-lint-ignore(-file)?/, "")) &&
        ignoresRule(comment, CLASS_RULE_NAME),
    });
    const aboveClass = new Set<number>();
    const excused = new Set<number>();
    const aboveLongFunction = new Set<number>();
    const weak: Weak[] = [];
    const check = (node: ClassNode) => {
      const first = lineOf(node.range[0]);
      const count = lineOf(node.range[1] - 1) - first + 1;
      aboveClass.add(first - 1);
      if (count <= MAX_CLASS_LINES) return;
      excused.add(first - 1);
      const reason = reasonOn(lines, first - 1);
      if (!convinces(reason)) weak.push({ node, lines: count, reason, above: first - 1 });
    };
    const seeFunction = (node: FunctionNode) => {
      if (bodyLines(node, lineOf) > MAX_BODY_LINES) {
        aboveLongFunction.add(lineOf(node.range[0]) - 1);
      }
    };
    return {
      ClassDeclaration: check,
      ClassExpression: check,
      FunctionDeclaration: seeFunction,
      FunctionExpression: seeFunction,
      ArrowFunctionExpression: seeFunction,
      "Program:exit"() {
        for (const w of weak) reportWeak(ctx, w, aboveLongFunction);
        for (const [line, comment] of markers) {
          if (!aboveClass.has(line) || excused.has(line) || aboveLongFunction.has(line)) continue;
          ctx.report({
            range: comment.range,
            message: `This "// long:" comment is not on the line above a class over ` +
              `${MAX_CLASS_LINES} lines.`,
            hint: "Remove it, or move it to the line above the long class it excuses.",
          });
        }
      },
    };
  },
};

/**
 * Reports a long class without a convincing reason, unless a weak reason is
 * above a long function too: the function rule, which judges reasons by the
 * same {@link convinces}, says that one.
 */
function reportWeak(ctx: Deno.lint.RuleContext, weak: Weak, aboveLongFunction: Set<number>) {
  const { node, lines, reason, above } = weak;
  if (reason.length > 0 && aboveLongFunction.has(above)) return;
  ctx.report({
    node,
    message: reason
      ? `The reason of this ${lines}-line class says too little: "${reason}".`
      : `This class is ${lines} lines (at most ${MAX_CLASS_LINES} without a reason).`,
    hint: `Split it by responsibility, or say why it is one thing in a "// long: <reason>" ` +
      `comment on the line above it ("like a class" is no reason; docs/architecture.md).`,
  });
}

/**
 * The plugin, as deno.json loads it beside the function-length one (a second
 * plugin needs a name of its own: `cueport-class/length`).
 */
const plugin: Deno.lint.Plugin = {
  name: "cueport-class",
  rules: { length: rule },
};

export default plugin;
