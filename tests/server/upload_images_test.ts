/**
 * A shader uploaded with its IMPORTED images (several `file` fields of one multipart upload, the
 * `.fs` first) becomes a preset with its images, shown in `GET /api/v1/presets/...` and read back
 * from `.../images/<name>`; a `.vs` sent after its `.fs` is its vertex shader; an Effect
 * of it binds an input over HTTP, shown in the Project's effects (issue 45).
 */
import assert from "node:assert/strict";
import { encodePng } from "../../lib/png.ts";
import { startTestService } from "../../tools/testing/service.ts";

const SHADER = `/*{
  "INPUTS": [{"NAME": "inputImage", "TYPE": "image"}, {"NAME": "maskImage", "TYPE": "image"}],
  "IMPORTED": {"noiseTex": {"PATH": "noise.png"}}
}*/
void main() {
  gl_FragColor = IMG_THIS_PIXEL(inputImage) * IMG_THIS_PIXEL(maskImage) * IMG_THIS_PIXEL(noiseTex);
}
`;

const png = new Uint8Array(encodePng(2, 2, new Uint8Array(16).fill(200)));

Deno.test("an .fs uploaded with its IMPORTED image keeps it; an Effect of it binds an input over HTTP", async () => {
  const svc = await startTestService();
  try {
    const upload = async (files: [string, BlobPart][]) => {
      const form = new FormData();
      for (const [name, bytes] of files) form.append("file", new Blob([bytes]), name);
      const res = await fetch(`${svc.base}/api/v1/files/upload`, { method: "POST", body: form });
      return { status: res.status, body: await res.json() };
    };
    // Alone, its image is missing: refused as the upload's to mend, naming the file to send with
    // it (not the staging folder's path, which means nothing to the client).
    const alone = await upload([["Masked.fs", SHADER]]);
    assert.equal(alone.status, 400, JSON.stringify(alone.body));
    assert.equal(alone.body.error.code, "INVALID_MESSAGE");
    assert.equal(alone.body.error.details.field, "file");
    assert.equal(
      alone.body.error.message,
      'Invalid file: IMPORTED "noiseTex" reads "noise.png", which this upload did not send: ' +
        "send it in the same upload, a further file field named noise.png after the .fs " +
        "(curl -F 'file=@Masked.fs' -F 'file=@noise.png')",
    );
    const both = await upload([["Masked.fs", SHADER], ["noise.png", png.buffer]]);
    assert.equal(both.status, 200, JSON.stringify(both.body));
    const presetID = both.body.edits[0].created.presetID;
    const preset = (await svc.get(`/api/v1/presets/effect/${presetID}`)).body;
    assert.equal(preset.name, "Masked");
    assert.deepEqual(
      preset.images.map((i: Record<string, unknown>) => [i.name, i.file, i.width, i.size]),
      [["noiseTex", "noise.png", 2, png.length]],
    );
    // Read back: the bytes it was imported with (the export beside the code).
    const back = await fetch(`${svc.base}/api/v1/presets/effect/${presetID}/images/noiseTex`);
    assert.equal(back.status, 200);
    assert.equal(back.headers.get("content-type"), "image/png");
    assert.deepEqual(new Uint8Array(await back.arrayBuffer()), png);
    const none = await fetch(`${svc.base}/api/v1/presets/effect/${presetID}/images/nope`);
    assert.equal(none.status, 404);
    assert.match(
      (await none.json()).error.message,
      /no IMPORTED image "nope" \(its images: "noiseTex"\)/,
    );
    const files = (await svc.get("/api/v1/projects/show")).body.files;
    assert.ok(!files.some((f: { name: string }) => f.name === "noise.png"), "no media file");

    const added = await svc.post("/api/v1/edit", { name: "effect.add", params: { presetID } });
    const effectID = added.body.edits[0].created.effectID;
    const bound = await svc.post("/api/v1/edit", {
      name: "effect.set_input",
      params: { effectID, input: "maskImage", source: { from: "below" } },
    });
    assert.equal(bound.status, 200, JSON.stringify(bound.body));
    const effects = (await svc.get("/api/v1/projects/show")).body.effects;
    const effect = effects.find((e: { effectId: string }) => e.effectId === effectID);
    assert.deepEqual(effect.inputs, { maskImage: { from: "below" } });
    // A .vs sent after its .fs under the same name is its vertexCode (staged side by side).
    const dir = new URL("../fixtures/isf_files/", import.meta.url);
    const read = (name: string) => Deno.readTextFile(new URL(encodeURIComponent(name), dir));
    const [fs, vs] = [await read("3d Rotate.fs"), await read("3d Rotate.vs")];
    const rotate = await upload([["3d Rotate.fs", fs], ["3d Rotate.vs", vs]]);
    assert.equal(rotate.status, 200, JSON.stringify(rotate.body));
    const rotateId = rotate.body.edits[0].created.presetID;
    assert.equal((await svc.get(`/api/v1/presets/effect/${rotateId}`)).body.vertexCode, vs);
    // A .vs whose code is refused names the upload's file field too, not the player's path.
    const brokenVs = await upload([["3d Rotate.fs", fs], ["3d Rotate.vs", "void main( {"]]);
    assert.equal(brokenVs.status, 422, JSON.stringify(brokenVs.body));
    assert.equal(brokenVs.body.error.details.field, "file", JSON.stringify(brokenVs.body));
    assert.match(brokenVs.body.error.message, /^Invalid file \(\.vs\)/);
    const wrong = await svc.post("/api/v1/edit", {
      name: "effect.set_input",
      params: { effectID, input: "noiseTex", source: { from: "below" } },
    });
    assert.equal(wrong.status, 400, JSON.stringify(wrong.body));
    assert.match(wrong.body.error.message, /"noiseTex" is not an image input/);
    // The field a player's refusal names is `details.field`, as for the service's own checks.
    assert.equal(wrong.body.error.details?.field, "params.input", JSON.stringify(wrong.body));
    const batch = await svc.post("/api/v1/edit", {
      edits: [
        {
          name: "effect.set_input",
          params: { effectID, input: "maskImage", source: { from: "below" } },
        },
        {
          name: "effect.set_input",
          params: { effectID, input: "noiseTex", source: { from: "below" } },
        },
      ],
    });
    assert.equal(batch.status, 400, JSON.stringify(batch.body));
    assert.equal(
      batch.body.error.details?.field,
      "edits.1.params.input",
      JSON.stringify(batch.body),
    );
  } finally {
    await svc.stop();
  }
});
