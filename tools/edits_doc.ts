/**
 * `deno task docs:edits`: writes docs/edits.md from the edit catalog and
 * from live answers: it starts a service on the demo project, runs every
 * example below with curl, and records what came back. The doc test
 * (tests/docs/edits_doc_test.ts) runs the same examples again.
 * @module
 */
import { editJsonSchema, EDITS, type EditSpec } from "../protocol/edits/mod.ts";
import { encodePng, encodeWav } from "../player/media/encode.ts";
import { startTestService } from "./testing/service.ts";

/**
 * The examples, run in catalog order (each sees the ones before it); `$songID` and the like
 * stand for the id the last edit that created one answered.
 */
const EXAMPLES: Record<string, unknown> = {
  "clip.add": { songID: "song-opening", fileId: "file-sunset", position: 1, launchMode: "Gate" },
  "clip.move": { clipID: "clip-checker", songID: "song-finale", position: 0 },
  "clip.duplicate": { clipID: "clip-rings" },
  "clip.update": {
    clipID: "clip-rings",
    retrigger: "ignore",
    velocitySensitivity: 0.5,
    options: { opacity: 0.8, filters: { blur: 2 }, effects: ["effect-shift"] },
  },
  "clip.delete": { clipID: "clip-grid" },
  "clip.set_generator": {
    clipID: "clip-rings",
    generator: { presetId: "gen-plasma", params: { speed: 2 } },
  },
  "song.add": { title: "Encore", pgmId: "9", position: 3 },
  "song.move": { songID: "song-finale", position: 0 },
  "song.duplicate": { songID: "song-midnight", title: "Midnight Drive (long)" },
  "song.update": { songID: "song-opening", title: "Opening Night", pgmId: "11", audioVolume: 0.8 },
  "song.set_timeline": {
    songID: "song-midnight",
    cues: [
      { time: 0, action: "play", clipID: "clip-waves" },
      { time: 6.5, action: "trigger", clipID: "clip-flare" },
    ],
  },
  "song.set_lyrics": {
    songID: "song-midnight",
    lyrics: [{ time: 2, text: "Headlights on" }, { time: 9.5, text: "Into the night" }],
  },
  "song.delete": { songID: "$songID", keepClips: true },
  "song.set_timecode": { songID: "song-midnight", offset: "01:02:00:00" },
  "project.rename": { name: "Summer Tour" },
  "project.set_display": { width: 1280, height: 720, fps: 60 },
  "project.set_zoom": { zoom: 1.5 },
  "project.set_background_clips": { clipIDs: ["clip-starfield", "clip-sunset"] },
  "project.set_transition": { transition: { presetId: "tr-dissolve", duration: 2 } },
  "project.undo": {},
  "project.redo": {},
  "project.create": { name: "Summer Tour B-Sides" },
  "project.duplicate": {},
  "project.delete": {},
  "project.restore": { projectID: "$projectId" },
  "project.close": {},
  "project.open": { projectID: "$projectId" },
  "project.set_timecode": { chase: true, frameRate: 25, offset: "01:00:00:00", freewheel: 1 },
  "effect.add": { presetID: "fx-kaleidoscope", params: { segments: 8 } },
  "effect.update": { effectID: "effect-blur", params: { radius: 12 }, enabled: false },
  "effect.copy": { effectID: "effect-shift", name: "Hue Drift 2" },
  "effect.remove": { effectID: "effect-blur" },
  "visualizer.add": { presetID: "viz-scope" },
  "visualizer.update": { visualizerID: "viz-bars", name: "Spectrum" },
  "visualizer.copy": { visualizerID: "viz-bars" },
  "visualizer.remove": { visualizerID: "$visualizerID" },
  "preset.validate": {
    kind: "effect",
    name: "Glow",
    type: "glow",
    parameters: [{ name: "amount", type: "number", min: 0, max: 1, default: 2 }],
  },
  "preset.add": {
    kind: "effect",
    name: "Glow",
    type: "glow",
    parameters: [{ name: "amount", type: "number", min: 0, max: 1, default: 0.5 }],
  },
  "preset.update": { kind: "effect", presetID: "$presetID", code: "// glow shader" },
  "preset.remove": { kind: "effect", presetID: "$presetID" },
  "preset.import": { path: "/home/show/shaders/Invert.fs" },
  "control.update": { controlID: "c", name: "Strobe rate", clamp: true },
  "control.set_targets": {
    controlID: "C",
    targets: [{ target: "clip:clip-strobe/speed", min: 0.5, max: 4, curve: "exponential" }],
  },
  "file.import": { path: "/home/show/media/intro.png", name: "Intro.png" },
  "effect.set_input": {
    effectID: "$effectID",
    input: "maskImage",
    source: { from: "file", fileId: "file-sunset" },
  },
  "visualizer.set_input": {
    visualizerID: "$visualizerID",
    input: "maskImage",
    source: { from: "below" },
  },
};

/** An ISF shader that reads a second picture (`maskImage`), for the set_input examples. */
const MASK_SHADER = `/*{
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "maskImage", "TYPE": "image" }
  ]
}*/
void main() {
  gl_FragColor = IMG_THIS_PIXEL(inputImage) * IMG_THIS_PIXEL(maskImage).r;
}
`;

/** The same for a Visualizer, which also reads the sound (`fft`). */
const MASK_VISUALIZER = MASK_SHADER
  .replace(
    '"TYPE": "image" }\n  ]',
    '"TYPE": "image" },\n    { "NAME": "fft", "TYPE": "audioFFT" }\n  ]',
  )
  .replace("IMG_THIS_PIXEL(maskImage).r", "IMG_THIS_PIXEL(maskImage).r * IMG_THIS_PIXEL(fft).r");

/** Edits run and shown before an example, after a sentence that says why. */
type Prelude = { says: string; edits: { name: string; params: unknown }[] };

/** A preset of `kind` with `code`, then an item of it, after the sentence `says`. */
const itemOfShader = (kind: string, name: string, code: string, says: string): Prelude => ({
  says,
  edits: [
    { name: "preset.add", params: { kind, name, type: "isf", code } },
    { name: `${kind}.add`, params: { presetID: "$presetID" } },
  ],
});

/**
 * What an edit's example needs that the demo lacks: the demo's Effects and Visualizers read no
 * second picture.
 */
const PRELUDES: Record<string, Prelude> = {
  "effect.set_input": itemOfShader(
    "effect",
    "Masked",
    MASK_SHADER,
    "The demo's Effects read no second picture. First a preset whose shader reads one " +
      "(`maskImage`), and an Effect of it:",
  ),
  "visualizer.set_input": itemOfShader(
    "visualizer",
    "Masked Scope",
    MASK_VISUALIZER,
    "The demo's Visualizers read no picture. First a preset whose shader reads one " +
      "(`maskImage`) beside the sound, and a Visualizer of it:",
  ),
};

/** The `projectID` of the body (the batch's Project) of the examples that must name it. */
const BODY_PROJECT: Record<string, string> = {
  "project.delete": "$projectId",
  "project.close": "$projectId",
};

/** A path the file.import example names; the doc test puts a real file there. */
export const IMPORT_EXAMPLE_PATH = "/home/show/media/intro.png";

/** A path the preset.import example names; the doc test puts `SHADER_EXAMPLE` there. */
export const SHADER_EXAMPLE_PATH = "/home/show/shaders/Invert.fs";

/** The ISF file of the preset.import example: an effect that inverts colours. */
export const SHADER_EXAMPLE = `/*{
  "DESCRIPTION": "Inverts the colours",
  "INPUTS": [
    { "NAME": "inputImage", "TYPE": "image" },
    { "NAME": "amount", "TYPE": "float", "MIN": 0, "MAX": 1, "DEFAULT": 1 }
  ]
}*/
void main() {
  vec4 c = IMG_THIS_PIXEL(inputImage);
  gl_FragColor = vec4(mix(c.rgb, 1.0 - c.rgb, amount), c.a);
}
`;

function paramRows(spec: EditSpec): string[] {
  const schema = editJsonSchema(spec) as {
    properties?: Record<string, Record<string, unknown>>;
    required?: string[];
  };
  const rows = Object.entries(schema.properties ?? {}).map(([name, p]) => {
    const type = p.enum ? (p.enum as string[]).map((v) => `\`${v}\``).join(" \\| ") : p.type ??
      (p.anyOf ? "see schema" : "any");
    const range = [
      p.minimum !== undefined ? `min ${p.minimum}` : "",
      p.maximum !== undefined && (p.maximum as number) < 1e15 ? `max ${p.maximum}` : "",
      p.default !== undefined ? `default \`${JSON.stringify(p.default)}\`` : "",
    ].filter(Boolean).join(", ");
    const required = schema.required?.includes(name) ? "yes" : "";
    return `| \`${name}\` | ${type} | ${required} | ${p.description ?? ""}${
      range ? ` (${range})` : ""
    } |`;
  });
  return rows.length
    ? ["| param | type | required | meaning |", "| --- | --- | --- | --- |", ...rows]
    : ["No parameters."];
}

/**
 * The doc with every id this run created replaced by one derived from its
 * kind and order of appearance (`song-` and 8 hex digits, like a real one),
 * so that regenerating the doc changes only what the answers changed.
 */
async function withStableIds(doc: string, answers: unknown[]): Promise<string> {
  // New ids are the kind and 8 hex digits (`newId`); the demo's are words.
  const ids = answers.flatMap((answer) =>
    [...JSON.stringify(answer).matchAll(/\b[a-z]+-[0-9a-f]{8}\b/g)].map((m) => m[0])
  );
  const perKind = new Map<string, number>();
  for (const id of new Set(ids)) {
    const kind = id.slice(0, id.lastIndexOf("-"));
    const n = (perKind.get(kind) ?? 0) + 1;
    perKind.set(kind, n);
    const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(`${kind}#${n}`));
    doc = doc.replaceAll(id, `${kind}-${new Uint8Array(digest).slice(0, 4).toHex()}`);
  }
  return doc;
}

if (import.meta.main) {
  const svc = await startTestService({}, { demo: true }); // the tests' service, on the demo
  const work = await Deno.makeTempDir();
  await Deno.writeFile(`${work}/intro.png`, encodePng(8, 8, new Uint8Array(256)));
  await Deno.writeFile(`${work}/tone.wav`, encodeWav(new Float32Array(4410), 44100));
  await Deno.writeTextFile(`${work}/Invert.fs`, SHADER_EXAMPLE);
  const created = new Map<string, string>();
  const run = async (command: string) => {
    const line = command.replaceAll("http://localhost:17736", svc.base)
      .replaceAll(IMPORT_EXAMPLE_PATH, `${work}/intro.png`)
      .replaceAll(SHADER_EXAMPLE_PATH, `${work}/Invert.fs`);
    const out = await new Deno.Command("sh", { args: ["-c", line], cwd: work, stdout: "piped" })
      .output();
    return JSON.parse(new TextDecoder().decode(out.stdout));
  };
  const curl = (body: unknown) =>
    `curl -s -X POST http://localhost:17736/api/v1/edit \\\n  -H 'Content-Type: application/json' \\\n  -d '${
      JSON.stringify(body)
    }'`;
  // In the doc's order (the template's examples, then each edit's), so that a reader running
  // them in order, and the doc test, see the answers shown.
  const refused = curl({ name: "clip.move", params: { clipID: "clip-sunset", position: 9 } });
  const refusedAnswer = await run(refused);
  const batch = curl({
    edits: [
      { name: "song.add", params: { title: "Second Encore" } },
      { name: "clip.move", params: { clipID: "clip-sunset", position: 0 } },
    ],
  });
  const batchAnswer = await run(batch);
  const upload = `curl -s -F 'file=@intro.png' http://localhost:17736/api/v1/files/upload`;
  const uploadAnswer = await run(upload);
  const raw =
    `curl -s --data-binary @tone.wav 'http://localhost:17736/api/v1/files/upload?name=Tone.wav&projectID=demo'`;
  const rawAnswer = await run(raw);
  const sections: string[] = [];
  const sectionAnswers: unknown[] = [];
  let group = "";
  for (const spec of EDITS) {
    if (spec.group !== group) {
      group = spec.group;
      sections.push(`## ${group[0]!.toUpperCase()}${group.slice(1)}`, "");
    }
    /** Runs one edit, its `$tokens` replaced; its command and answer as the doc shows them. */
    const example = async (name: string, body: Record<string, unknown>) => {
      let text = JSON.stringify(body);
      for (const [token, id] of created) text = text.replaceAll(token, id);
      const command = curl({ name, ...JSON.parse(text) });
      const answer = await run(command);
      sectionAnswers.push(answer);
      for (const [key, id] of Object.entries(answer.edits?.[0]?.created ?? {})) {
        created.set(`$${key}`, id as string);
      }
      return ["```sh", command, "```", "", "```json", JSON.stringify(answer, null, 2), "```", ""];
    };
    sections.push(
      `### ${spec.name}`,
      "",
      `${spec.summary}.${spec.isLocalOnly ? " Local clients only." : ""}`,
      "",
      ...paramRows(spec),
      "",
    );
    const prelude = PRELUDES[spec.name];
    if (prelude !== undefined) {
      sections.push(prelude.says, "");
      for (const step of prelude.edits) {
        sections.push(...await example(step.name, { params: step.params }));
      }
      sections.push("Then the edit itself:", "");
    }
    sections.push(
      ...await example(spec.name, {
        params: EXAMPLES[spec.name],
        projectID: BODY_PROJECT[spec.name],
      }),
    );
  }
  await svc.stop();
  await Deno.remove(work, { recursive: true });
  const template = await Deno.readTextFile(new URL("./edits_doc.md", import.meta.url));
  const doc = template
    .replace("{{EDITS}}", sections.join("\n"))
    .replace(
      "{{BATCH}}",
      ["```sh", batch, "```", "", "```json", JSON.stringify(batchAnswer, null, 2), "```"].join(
        "\n",
      ),
    )
    .replace(
      "{{REFUSED}}",
      ["```sh", refused, "```", "", "```json", JSON.stringify(refusedAnswer, null, 2), "```"].join(
        "\n",
      ),
    )
    .replace(
      "{{UPLOAD}}",
      [
        "```sh",
        upload,
        "```",
        "",
        "```json",
        JSON.stringify(uploadAnswer, null, 2),
        "```",
        "",
        "```sh",
        raw,
        "```",
        "",
        "```json",
        JSON.stringify(rawAnswer, null, 2),
        "```",
      ].join("\n"),
    );
  const answers = [refusedAnswer, batchAnswer, uploadAnswer, rawAnswer, ...sectionAnswers];
  const path = new URL("../docs/edits.md", import.meta.url);
  await Deno.writeTextFile(path, await withStableIds(doc, answers));
  // Aligned as `deno fmt --check` wants it, so a rerun with nothing changed changes nothing.
  const fmt = await new Deno.Command(Deno.execPath(), { args: ["fmt", path.pathname] }).output();
  if (!fmt.success) throw new Error(new TextDecoder().decode(fmt.stderr));
  console.log("docs/edits.md written");
}
