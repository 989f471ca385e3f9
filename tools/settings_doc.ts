/**
 * `deno task docs:settings`: writes the settings table of `docs/settings.md` from
 * the settings table (`protocol/settings.ts`), between the markers
 * `<!-- settings:start -->` and `<!-- settings:end -->`.
 * `tests/tools/settings_doc_test.ts` fails when the doc and the table differ.
 * @module
 */
import { envName, SETTINGS, type SettingSpec } from "../protocol/settings.ts";

/** The markers around the generated table. */
export const MARKERS = ["<!-- settings:start -->", "<!-- settings:end -->"] as const;

/** One row per setting: name, flag, environment variable, default and meaning. */
export function settingsRows(): string[][] {
  return (Object.entries(SETTINGS) as Array<[string, SettingSpec]>).map(([name, spec]) => [
    `\`${name}\``,
    `\`--${spec.flag}\``,
    `\`${envName(name)}\``,
    spec.doc,
  ]);
}

/** The table as Markdown (`deno fmt` aligns it afterwards). */
export function settingsTable(): string {
  const rows = [["Setting", "Flag", "Environment", "Default"], ["---", "---", "---", "---"]]
    .concat(settingsRows());
  return rows.map((r) => `| ${r.join(" | ")} |`).join("\n");
}

/** The doc that holds the table, relative to the repository. */
export const SETTINGS_DOC = "docs/settings.md";

/** `doc` with the table between the markers replaced. */
export function withSettingsTable(doc: string): string {
  const start = doc.indexOf(MARKERS[0]);
  const end = doc.indexOf(MARKERS[1]);
  if (start < 0 || end < start) {
    throw new Error(`${SETTINGS_DOC} lacks the markers ${MARKERS.join(" ")}`);
  }
  return `${doc.slice(0, start + MARKERS[0].length)}\n\n${settingsTable()}\n\n${doc.slice(end)}`;
}

if (import.meta.main) {
  const path = new URL(`../${SETTINGS_DOC}`, import.meta.url);
  await Deno.writeTextFile(path, withSettingsTable(await Deno.readTextFile(path)));
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", path.pathname] }).output();
  if (!fmt.success) throw new Error(new TextDecoder().decode(fmt.stderr));
  console.log(`${SETTINGS_DOC}: settings table written`);
}
