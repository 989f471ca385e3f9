/** Reading the curl examples of a doc, and comparing answers with the documented ones. */
/** A curl command of a doc and the JSON answer documented after it. */
export interface Example {
  command: string;
  expected: unknown | undefined;
}

/** Every `curl` line of a doc, with the JSON block that follows it, if any. */
export function examples(markdown: string): Example[] {
  const blocks = [...markdown.matchAll(/```(\w+)\n([\s\S]*?)```/g)].map((m) => ({
    lang: m[1],
    text: m[2]!.trim(),
  }));
  const found: Example[] = [];
  blocks.forEach((block, i) => {
    if (block.lang !== "sh" || !block.text.startsWith("curl ")) return;
    const next = blocks[i + 1];
    found.push({
      command: block.text,
      expected: next?.lang === "json" ? JSON.parse(next.text) : undefined,
    });
  });
  return found;
}

/** Differences in structure: keys of objects, element shape of arrays, kind of values (null matches any). */
export function shapeDiff(actual: unknown, expected: unknown, path = "$"): string[] {
  if (actual === null || expected === null) return [];
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) return [`${path}: expected an array`];
    return expected.length && actual.length ? shapeDiff(actual[0], expected[0], `${path}[0]`) : [];
  }
  if (typeof expected === "object") {
    if (typeof actual !== "object" || Array.isArray(actual)) return [`${path}: expected an object`];
    const a = Object.keys(actual as object).sort(), e = Object.keys(expected as object).sort();
    if (a.join() !== e.join()) return [`${path}: keys ${a.join(",")} != documented ${e.join(",")}`];
    return e.flatMap((k) =>
      shapeDiff(
        (actual as Record<string, unknown>)[k],
        (expected as Record<string, unknown>)[k],
        `${path}.${k}`,
      )
    );
  }
  return typeof actual === typeof expected
    ? []
    : [`${path}: ${typeof actual} != documented ${typeof expected}`];
}
