/**
 * `deno task docs:osc`: writes the address table of `docs/osc.md` from the
 * table the OSC port serves (`server/osc/addresses.ts`); a test compares.
 * @module
 */
import { ADDRESSES, FEEDBACK_ADDRESSES } from "../server/osc/mod.ts";

const START = "<!-- osc-addresses:start -->";
const END = "<!-- osc-addresses:end -->";

function args(list: (typeof ADDRESSES)[number]["args"]): string {
  return list.map((a) => a.isOptional ? `[${a.name}]` : `<${a.name}>`).join(" ");
}

/** The generated part of docs/osc.md. */
export function oscAddressTables(): string {
  const rows = (kind: (a: (typeof ADDRESSES)[number]) => boolean) =>
    ADDRESSES.filter(kind).map((a) =>
      `| \`${a.path}\` | ${args(a.args) || "-"} | ${
        a.action ? `\`${a.action.name}\`` : `\`${a.operation.name}\``
      } | ${a.description.replaceAll("|", "\\|")} |`
    );
  return [
    START,
    "",
    "Readable action addresses (a `{param}` part of the address is the param of that name):",
    "",
    "| Address | Arguments | Action | What it does |",
    "| --- | --- | --- | --- |",
    ...rows((a) => a.kind === "action" && !a.path.startsWith("/action/")),
    "",
    "Every action by its catalog name, and the generic form:",
    "",
    "| Address | Arguments | Action | What it does |",
    "| --- | --- | --- | --- |",
    ...rows((a) => a.kind === "generic" || a.path.startsWith("/action/")),
    "",
    "Queries (answered with `/reply/get/<name>` to the sender, always):",
    "",
    "| Address | Arguments | Query | What it answers |",
    "| --- | --- | --- | --- |",
    ...rows((a) => a.kind === "query"),
    "",
    "Other operations (`reply=<port>` asks for an answer, as for actions):",
    "",
    "| Address | Arguments | Operation | What it does |",
    "| --- | --- | --- | --- |",
    ...rows((a) => a.kind === "operation"),
    "",
    "Feedback to subscribers:",
    "",
    "| Address | Type | What it is |",
    "| --- | --- | --- |",
    ...FEEDBACK_ADDRESSES.map((f) => `| \`${f.address}\` | \`${f.args}\` | ${f.about} |`),
    "",
    END,
  ].join("\n");
}

/** The document with its generated part replaced. */
export function withTables(doc: string): string {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < 0) throw new Error(`docs/osc.md lacks ${START} ... ${END}`);
  return doc.slice(0, from) + oscAddressTables() + doc.slice(to + END.length);
}

if (import.meta.main) {
  const path = new URL("../docs/osc.md", import.meta.url);
  await Deno.writeTextFile(path, withTables(await Deno.readTextFile(path)));
  await new Deno.Command(Deno.execPath(), { args: ["fmt", path.pathname] }).output();
}
