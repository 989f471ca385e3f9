/**
 * `deno task docs:compat`: writes the 5.0.0 name mapping table of
 * `docs/compat.md` from the action catalog (`server/legacy/v5_actions.ts`
 * derives the names), between `<!-- v5-names:start -->` and
 * `<!-- v5-names:end -->`. `tests/tools/compat_doc_test.ts` fails when the
 * document and the catalog differ.
 * @module
 */
import { ACTIONS } from "../protocol/actions.ts";
import { v5NameOf, v5ParamsOf } from "../server/legacy/v5_actions.ts";

/** The markers around the generated table. */
export const MARKERS = ["<!-- v5-names:start -->", "<!-- v5-names:end -->"] as const;

/** One row per catalog action: 5.0.0 name, 6.0 name, 5.0.0 params, what differs. */
export function nameRows(): string[][] {
  return ACTIONS.map((spec) => {
    if (spec.since === "6.0") {
      return ["(none)", `\`${spec.name}\``, "", "New in 6.0: refused in the 5.0.0 form"];
    }
    const params = v5ParamsOf(spec).map((p) => `\`${p.name}\`${p.isOptional ? " (opt)" : ""}`);
    const seek = v5ParamsOf(spec).some((p) => p.kind === "seconds");
    const note = seek
      ? "`position` in seconds (6.0: `percent`, 0.0-1.0)"
      : spec.name === "CLIP_DIRECTION"
      ? "`reverse` for `backward`"
      : "";
    return [`\`${v5NameOf(spec.name)}\``, `\`${spec.name}\``, params.join(", "), note];
  });
}

/** The table as Markdown (`deno fmt` aligns it afterwards). */
export function namesTable(): string {
  const rows = [["5.0.0 name", "6.0 name", "5.0.0 params", "Difference"], [
    "---",
    "---",
    "---",
    "---",
  ]].concat(nameRows());
  return rows.map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/** `doc` with the table between the markers replaced. */
export function withNamesTable(doc: string): string {
  const start = doc.indexOf(MARKERS[0]);
  const end = doc.indexOf(MARKERS[1]);
  if (start < 0 || end < start) throw new Error(`docs/compat.md lacks ${MARKERS.join(" ")}`);
  return `${doc.slice(0, start + MARKERS[0].length)}\n\n${namesTable()}\n\n${doc.slice(end)}`;
}

if (import.meta.main) {
  const path = new URL("../docs/compat.md", import.meta.url);
  await Deno.writeTextFile(path, withNamesTable(await Deno.readTextFile(path)));
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", path.pathname] }).output();
  if (!fmt.success) throw new Error(new TextDecoder().decode(fmt.stderr));
  console.log("docs/compat.md: name mapping table written");
}
