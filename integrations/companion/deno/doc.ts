/**
 * `deno task docs:companion`: writes the generated part of docs/companion.md (the module's
 * actions, feedbacks, variables and presets, as the built module declares them to Companion) and
 * docs/companion-page.png (a page of its presets drawn with its own feedback images), from the
 * built module run against the demo project. tests/integrations/companion/doc_test.ts fails when
 * the doc is not what the module declares.
 * @module
 */
import { Buffer } from "node:buffer";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { ModuleHost } from "./host.ts";
import { KEY, type KeyPicture, renderPage } from "./page.ts";

/** Where the doc lives, and its generated part's markers. */
export const DOC_PATH = new URL("../../../docs/companion.md", import.meta.url);
/** The page picture. */
export const PAGE_PATH = new URL("../../../docs/companion-page.png", import.meta.url);
const START = "<!-- companion:start -->";
const END = "<!-- companion:end -->";

// deno-lint-ignore no-explicit-any
type Json = any;

const cell = (s: unknown) => String(s ?? "").replace(/\|/g, "\\|").replace(/\n/g, " ");

function optionText(o: Json): string {
  // Songs, Clips and Controls come from the open Project: their choices are not the module's.
  const isLive = ["clipID", "songID", "controlID"].includes(o.id);
  const kind = o.type === "dropdown" && !isLive && o.choices?.length > 0 && o.choices.length <= 4
    ? `${o.type}: ${o.choices.map((c: Json) => c.id === "" ? "(none)" : c.id).join(", ")}`
    : o.type;
  return `\`${o.id}\` (${kind})`;
}

/** The generated Markdown, from what the module declared. */
export function docSection(host: ModuleHost): string {
  const out: string[] = [
    START,
    "",
    "### Actions",
    "",
    "| Action id | Name | Options |",
    "| --- | --- | --- |",
  ];
  for (const [id, a] of Object.entries(host.actions) as [string, Json][]) {
    out.push(
      `| \`${id}\` | ${cell(a.name)} | ${cell(a.options.map(optionText).join(", ") || "-")} |`,
    );
  }
  out.push(
    "",
    "### Feedbacks",
    "",
    "| Feedback id | Type | Name | Options |",
    "| --- | --- | --- | --- |",
  );
  for (const [id, f] of Object.entries(host.feedbacks) as [string, Json][]) {
    out.push(
      `| \`${id}\` | ${f.type} | ${cell(f.name)} | ${
        cell(f.options.map(optionText).join(", ") || "-")
      } |`,
    );
  }
  out.push("", "### Variables", "", "| Variable | Name |", "| --- | --- |");
  for (const v of host.variableDefinitions) {
    out.push(`| \`$(cueport:${v.id})\` | ${cell(v.name)} |`);
  }
  out.push(
    "",
    "### Presets",
    "",
    "For the demo project; the Clip, Control and Song presets follow the open Project.",
    "",
    "| Section | Preset | Press | Feedbacks |",
    "| --- | --- | --- | --- |",
  );
  for (const section of host.presets.structure) {
    for (const id of section.definitions as string[]) {
      const p = host.presets.presets[id];
      const step = p.steps[0] ?? {};
      const press = [
        ...(step.down ?? []),
        ...(step.rotate_left ?? []),
        ...(step.rotate_right ?? []),
      ]
        .map((a: Json) => a.actionId);
      out.push(
        `| ${cell(section.name)} | ${cell(p.name)} | ${
          cell([...new Set(press)].join(", ") || "-")
        } | ${cell(p.feedbacks.map((f: Json) => f.feedbackId).join(", ") || "-")} |`,
      );
    }
  }
  out.push("", END);
  return out.join("\n");
}

/** The doc with its generated part replaced. */
export function withSection(doc: string, section: string): string {
  const from = doc.indexOf(START);
  const to = doc.indexOf(END);
  if (from < 0 || to < 0) {
    throw new Error(`docs/companion.md lacks the ${START} and ${END} markers`);
  }
  return doc.slice(0, from) + section + doc.slice(to + END.length);
}

/** `text` as `deno fmt` leaves a Markdown file (its tables aligned), so the doc passes fmt --check. */
export async function formatMarkdown(text: string): Promise<string> {
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "fmt",
      "--config",
      new URL("../../../deno.json", import.meta.url).pathname,
      "--ext",
      "md",
      "-",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(new TextEncoder().encode(text));
  await writer.close();
  const out = await child.output();
  if (!out.success) throw new Error(`deno fmt: ${new TextDecoder().decode(out.stderr)}`);
  return new TextDecoder().decode(out.stdout);
}

/** The doc as the module's declarations make it. */
export async function currentDoc(host: ModuleHost): Promise<string> {
  return await formatMarkdown(withSection(await Deno.readTextFile(DOC_PATH), docSection(host)));
}

/** The module, connected to `svc`, with its definitions in. */
export async function connectedModule(svc: TestService): Promise<ModuleHost> {
  const host = await ModuleHost.start();
  await host.init({
    bonjour: null,
    host: "127.0.0.1",
    httpPort: svc.service.ports.http,
    wsPort: svc.service.ports.ws,
    pairingCode: "",
    deviceName: "Companion docs",
  });
  await host.until(
    () => host.status.status === "ok" && host.presets.structure.length > 0,
    "the module",
  );
  await host.until(() => host.variables.get("project_name"), "the variables");
  return host;
}

const fill = (text: string, host: ModuleHost) =>
  text.replace(/\\n/g, "\n").replace(
    /\$\(cueport:([a-z_]+)\)/g,
    (_, id) => String(host.variables.get(id) ?? ""),
  );

/** Every preset drawn as a key, with its feedbacks evaluated by the module. */
async function keys(host: ModuleHost): Promise<KeyPicture[]> {
  const ids = host.presets.structure.flatMap((s: Json) => s.definitions as string[]);
  const placed: Record<string, Json> = {};
  for (const id of ids) {
    host.presets.presets[id].feedbacks.forEach((f: Json, i: number) => {
      placed[`${id}#${i}`] = {
        feedbackId: f.feedbackId,
        options: f.options,
        image: { width: KEY, height: KEY },
      };
    });
  }
  await host.placeFeedbacks(placed);
  await host.until(
    () => Object.keys(placed).every((k) => host.feedbackValues.has(k)),
    "every feedback value",
  );
  return ids.map((id: string) => {
    const p = host.presets.presets[id];
    const key: KeyPicture = {
      bgcolor: p.style.bgcolor,
      color: p.style.color,
      text: fill(p.style.text, host),
      images: [],
    };
    if (p.style.alignment) key.alignment = p.style.alignment;
    p.feedbacks.forEach((f: Json, i: number) => {
      const value = host.feedbackValues.get(`${id}#${i}`)?.value;
      if (value && typeof value === "object" && value.png64) {
        key.images.push(Buffer.from(value.png64, "base64"));
      } else if (typeof value === "boolean" && value !== !!f.isInverted) {
        Object.assign(key, f.style ?? {});
      }
    });
    return key;
  });
}

/** Puts the demo show in a state worth a picture: a Clip playing, one paused, one armed, values, mute. */
async function stage(svc: TestService): Promise<void> {
  for (
    const [name, params] of [
      ["TRIGGER_CLIP_IN", ["clip-rings"]],
      ["PAUSE_IN", ["clip-rings"]],
      ["TRIGGER_CLIP_IN", ["clip-aurora"]],
      ["PLAY_CLIP_IN", ["clip-checker"]], // selected, then stopped: armed
      ["STOP_CLIP_IN", ["clip-checker"]],
      ["SET_CONTROL", ["A", 0.7]],
      ["SET_CONTROL", ["B", 0.3]],
      ["MUTE_TOGGLE", []],
    ] as const
  ) await svc.post("/api/v1/action", { name, params });
}

if (import.meta.main) {
  const svc = await startTestService({}, { demo: true });
  const host = await connectedModule(svc);
  try {
    await Deno.writeTextFile(DOC_PATH, await currentDoc(host));
    await stage(svc);
    await host.until(() => host.variables.get("muted") === true, "the staged show");
    await Deno.writeFile(PAGE_PATH, await renderPage(await keys(host)));
    console.log(`wrote ${DOC_PATH.pathname} and ${PAGE_PATH.pathname}`);
  } finally {
    await host.stop();
    await svc.stop();
  }
}
