/**
 * `deno task docs:mcp`: writes the tool table of `docs/mcp.md` from the MCP
 * tool table (`server/mcp/tools.ts`), between `<!-- tools:start -->` and
 * `<!-- tools:end -->`. `tests/tools/mcp_doc_test.ts` fails when they differ
 * (and `tests/server/mcp/` compares the tool table with the live list).
 * @module
 */
import { ToolTable } from "../server/mcp/tools.ts";

/** The markers around the generated table. */
export const MARKERS = ["<!-- tools:start -->", "<!-- tools:end -->"] as const;

/** The first sentence of a description. */
function firstSentence(text: string): string {
  const end = text.search(/\.(\s|$)/);
  return end < 0 ? text : text.slice(0, end + 1);
}

/** One row per tool: name, scope, hints, operations it runs, what it does. */
export function toolRows(): string[][] {
  return new ToolTable({ maxUploadBytes: 1 }).tools.map((tool) => {
    const hints = tool.annotations.readOnlyHint
      ? "read-only"
      : tool.annotations.destructiveHint
      ? "destructive"
      : "changes";
    return [
      `\`${tool.name}\``,
      tool.operation.scope ?? "none",
      hints,
      tool.reaches.map((o) => `\`${o.name}\``).join(", "),
      firstSentence(tool.description),
    ];
  });
}

/** The table as Markdown (`deno fmt` aligns it afterwards). */
export function toolTable(): string {
  const rows = [["Tool", "Scope", "Hints", "Operations", "What it does"], [
    "---",
    "---",
    "---",
    "---",
    "---",
  ]].concat(toolRows());
  return rows.map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/** `doc` with the table between the markers replaced. */
export function withToolTable(doc: string): string {
  const start = doc.indexOf(MARKERS[0]);
  const end = doc.indexOf(MARKERS[1]);
  if (start < 0 || end < start) {
    throw new Error(`docs/mcp.md lacks the markers ${MARKERS.join(" ")}`);
  }
  return `${doc.slice(0, start + MARKERS[0].length)}\n\n${toolTable()}\n\n${doc.slice(end)}`;
}

if (import.meta.main) {
  const path = new URL("../docs/mcp.md", import.meta.url);
  await Deno.writeTextFile(path, withToolTable(await Deno.readTextFile(path)));
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", path.pathname] }).output();
  if (!fmt.success) throw new Error(new TextDecoder().decode(fmt.stderr));
  console.log("docs/mcp.md: tool table written");
}
