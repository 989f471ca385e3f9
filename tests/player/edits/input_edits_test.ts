/**
 * `effect.set_input` and `visualizer.set_input` (issue 45): an image input of the item's shader
 * bound to a Clip, the layers below, a camera, an image file or the preset's IMPORTED image,
 * undoable, unbound with null; every reference checked by name. And `preset.import` of a `.fs`
 * with its `IMPORTED` images beside it: stored content-addressed with the preset.
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { Refusal } from "../../../player/errors.ts";
import { encodePng } from "../../../lib/png.ts";
import { RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { withApp } from "../../../tools/testing/player_app.ts";

const MASK = `/*{
  "INPUTS": [
    {"NAME": "inputImage", "TYPE": "image"},
    {"NAME": "maskImage", "TYPE": "image"}
  ],
  "IMPORTED": {"maskImage": {"PATH": "mask.png"}, "grain": {"PATH": "grain.png"}}
}*/
void main() {
  gl_FragColor = IMG_THIS_PIXEL(inputImage) * IMG_THIS_PIXEL(maskImage).r * IMG_THIS_PIXEL(grain);
}
`;

const edit = async (app: PlayerApp, name: string, params: Record<string, unknown>) =>
  (await app.applyEdits({ projectId: null, edits: [{ name, params }] })).edits[0]!;

const effectOf = (app: PlayerApp, id: string) =>
  app.snapshot().projects.find((p) => p.id === "show")!.effects.find((e) => e.id === id)!;

/** A refusal with `code` whose message matches `message`. */
const refused = (code: number, message: RegExp) => (error: unknown) => {
  assert.ok(error instanceof Refusal, String(error));
  assert.equal(error.code, code, error.message);
  assert.match(error.message, message);
  return true;
};

/** A 2x2 PNG of one colour. */
const png = (rgb: number[]) => encodePng(2, 2, new Uint8Array(Array(4).fill([...rgb, 255]).flat()));

/** The mask preset imported from a folder with its two images; the folder. */
async function importMask(app: PlayerApp): Promise<{ presetID: string; dir: string }> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-imported-" });
  await Deno.writeTextFile(`${dir}/Mask.fs`, MASK);
  await Deno.writeFile(`${dir}/mask.png`, png([255, 0, 0]));
  await Deno.writeFile(`${dir}/grain.png`, png([0, 0, 255]));
  const { created } = await edit(app, "preset.import", { path: `${dir}/Mask.fs` });
  return { presetID: created!.presetID!, dir };
}

Deno.test("preset.import stores the IMPORTED images beside the .fs with the preset, content-addressed", async () => {
  await withApp(async (app, dataDir) => {
    const { presetID, dir } = await importMask(app);
    const preset = app.presets().find((p) => p.id === presetID)!;
    assert.deepEqual(preset.images?.map((i) => [i.name, i.file, i.mimeType, i.width]), [
      ["maskImage", "mask.png", "image/png", 2],
      ["grain", "grain.png", "image/png", 2],
    ]);
    for (const image of preset.images!) {
      const bytes = await Deno.readFile(`${dataDir}/preset_images/${image.sha256}.png`);
      assert.deepEqual(bytes, await Deno.readFile(`${dir}/${image.file}`));
    }
    const onDisk = JSON.parse(await Deno.readTextFile(`${dataDir}/presets.json`));
    assert.equal(onDisk[0].images.length, 2);
    // A missing image refuses the import, and nothing is added.
    await Deno.remove(`${dir}/grain.png`);
    await assert.rejects(
      edit(app, "preset.import", { path: `${dir}/Mask.fs`, name: "Mask 2" }),
      refused(RpcErrorCode.NOT_FOUND, /IMPORTED "grain" reads "grain\.png", which is not beside/),
    );
    // Not an image: refused by what it is.
    await Deno.writeTextFile(`${dir}/grain.png`, "not a picture");
    await assert.rejects(
      edit(app, "preset.import", { path: `${dir}/Mask.fs`, name: "Mask 2" }),
      refused(RpcErrorCode.INVALID_PARAMS, /IMPORTED "grain" .* is not an image the output reads/),
    );
    assert.equal(app.presets().filter((p) => !p.builtIn).length, 1);
    await Deno.remove(dir, { recursive: true });
  });
});

Deno.test("effect.set_input binds an image input, null unbinds it, undo restores it", async () => {
  await withApp(async (app) => {
    const { presetID, dir } = await importMask(app);
    const effectID = (await edit(app, "effect.add", { presetID })).created!.effectID!;
    const set = (source: unknown) =>
      edit(app, "effect.set_input", { effectID, input: "maskImage", source });
    await set({ from: "clip", clipID: "c2" });
    assert.deepEqual(effectOf(app, effectID).inputs, { maskImage: { from: "clip", clipID: "c2" } });
    for (
      const source of [{ from: "below" }, { from: "imported" }, {
        from: "camera",
        cameraId: "test-pattern",
      }]
    ) {
      await set(source);
      assert.deepEqual(effectOf(app, effectID).inputs, { maskImage: source });
    }
    await edit(app, "project.undo", {});
    assert.deepEqual(effectOf(app, effectID).inputs, { maskImage: { from: "imported" } });
    await set(null);
    assert.equal(effectOf(app, effectID).inputs, undefined);
    await Deno.remove(dir, { recursive: true });
  });
});

Deno.test("effect.set_input refuses an unknown Effect, input, Clip, file, camera or imported image by name", async () => {
  await withApp(async (app) => {
    const { presetID, dir } = await importMask(app);
    const effectID = (await edit(app, "effect.add", { presetID })).created!.effectID!;
    const set = (params: Record<string, unknown>) =>
      edit(app, "effect.set_input", { effectID, input: "maskImage", ...params });
    await assert.rejects(
      set({ effectID: "fx-nope", source: { from: "below" } }),
      refused(RpcErrorCode.NOT_FOUND, /Effect "fx-nope" does not exist/),
    );
    for (const input of ["inputImage", "grain", "nope"]) {
      await assert.rejects(
        set({ input, source: { from: "below" } }),
        refused(
          RpcErrorCode.INVALID_PARAMS,
          new RegExp(`^Invalid params\\.input: "${input}" is not an image input .*"maskImage"`),
        ),
      );
    }
    await assert.rejects(
      set({ source: { from: "clip", clipID: "c-nope" } }),
      refused(RpcErrorCode.NOT_FOUND, /Clip "c-nope" does not exist/),
    );
    await assert.rejects(
      set({ source: { from: "file", fileId: "f-nope" } }),
      refused(RpcErrorCode.NOT_FOUND, /File "f-nope" does not exist/),
    );
    await assert.rejects(
      set({ source: { from: "file", fileId: "f-audio" } }),
      refused(RpcErrorCode.INVALID_PARAMS, /file "f-audio" is an audio file: bind an image file/),
    );
    await assert.rejects(
      set({ source: { from: "camera", cameraId: "video99" } }),
      refused(
        RpcErrorCode.NOT_FOUND,
        /Camera "video99" does not exist: the cameras are .*"test-pattern"/,
      ),
    );
    // An Effect of a preset without IMPORTED images: "imported" has nothing to read.
    const plain = MASK.replace(/,\s*"IMPORTED": \{[^\n]*\}/, "").replace(
      " * IMG_THIS_PIXEL(grain)",
      "",
    );
    const other = (await edit(app, "preset.add", {
      kind: "effect",
      name: "Plain mask",
      type: "isf",
      code: plain,
    })).created!.presetID!;
    const plainFx = (await edit(app, "effect.add", { presetID: other })).created!.effectID!;
    await assert.rejects(
      set({ effectID: plainFx, source: { from: "imported" } }),
      refused(RpcErrorCode.INVALID_PARAMS, /preset "[^"]+" has no IMPORTED image "maskImage"/),
    );
    assert.equal(effectOf(app, effectID).inputs, undefined, "nothing was written");
    await Deno.remove(dir, { recursive: true });
  });
});

Deno.test("visualizer.set_input binds a visualizer's image input", async () => {
  await withApp(async (app) => {
    const code = MASK.replace(/,\s*"IMPORTED": \{[^\n]*\}/, "")
      .replace(" * IMG_THIS_PIXEL(grain)", " * IMG_THIS_PIXEL(fft).r")
      .replace(
        '{"NAME": "maskImage", "TYPE": "image"}',
        '{"NAME": "maskImage", "TYPE": "image"}, {"NAME": "fft", "TYPE": "audioFFT"}',
      );
    const presetID = (await edit(app, "preset.add", {
      kind: "visualizer",
      name: "Masked",
      type: "isf",
      code,
    })).created!.presetID!;
    const id = (await edit(app, "visualizer.add", { presetID })).created!.visualizerID!;
    await edit(app, "visualizer.set_input", {
      visualizerID: id,
      input: "maskImage",
      source: { from: "below" },
    });
    const show = app.snapshot().projects.find((p) => p.id === "show")!;
    assert.deepEqual(show.visualizers.find((v) => v.id === id)?.inputs, {
      maskImage: { from: "below" },
    });
  });
});
