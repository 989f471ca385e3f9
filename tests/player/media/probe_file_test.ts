/**
 * `media.probe` (player protocol 1.18): a file measured as `file.import` measures it, nothing
 * imported; a file `file.import` refuses is refused with the same code and message.
 */
import assert from "node:assert/strict";
import { connectInitialized } from "../../../tools/testing/player_rpc.ts";
import { jpeg, mp4 } from "../../../tools/testing/media.ts";

Deno.test("media.probe measures a file from its bytes and imports nothing", async () => {
  const p = await connectInitialized("1.18");
  try {
    const files = p.running.app.snapshot().projects[0]!.files.length;
    await Deno.writeFile(`${p.dataDir}/still.png.jpg`, jpeg(32, 18));
    await Deno.writeFile(`${p.dataDir}/clip.mov`, mp4("isom", 1000, 2500, 64, 48));
    const still = await p.call("media.probe", { path: `${p.dataDir}/still.png.jpg` });
    assert.deepEqual(still.result, {
      kind: "image",
      mimeType: "image/jpeg",
      width: 32,
      height: 18,
      duration: null,
      size: jpeg(32, 18).length,
    });
    const clip = await p.call("media.probe", { path: `${p.dataDir}/clip.mov` });
    assert.deepEqual(
      [clip.result.kind, clip.result.mimeType, clip.result.duration],
      ["video", "video/mp4", 2.5],
      "by its bytes, not its name",
    );
    assert.equal(p.running.app.snapshot().projects[0]!.files.length, files, "nothing imported");
  } finally {
    await p.close();
  }
});

Deno.test("media.probe refuses what file.import refuses, with its code and message", async () => {
  const p = await connectInitialized("1.18");
  try {
    await Deno.writeTextFile(`${p.dataDir}/junk.mp4`, "not media\n".repeat(50));
    const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, ...new Array(20).fill(0)];
    await Deno.writeFile(`${p.dataDir}/short.png`, new Uint8Array(png));
    const cases = [["junk.mp4", -32003], ["short.png", -32004], ["none.wav", -32001]] as const;
    for (const [name, code] of cases) {
      const path = `${p.dataDir}/${name}`;
      const probed = await p.call("media.probe", { path });
      assert.equal(probed.error?.code, code, `${name}: ${JSON.stringify(probed)}`);
      const imported = await p.call("edit.apply", {
        projectId: null,
        edits: [{ name: "file.import", params: { path } }],
      });
      assert.deepEqual(
        [probed.error.code, probed.error.message],
        [imported.error?.code, imported.error?.message],
        `${name}: as file.import`,
      );
    }
    const bad = await p.call("media.probe", { path: "" });
    assert.equal(bad.error?.code, -32602, "an empty path is bad params");
  } finally {
    await p.close();
  }
});
