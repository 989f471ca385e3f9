import assert from "node:assert/strict";
import { EDITS } from "../../protocol/edits/mod.ts";
import { encodePng, encodeWav } from "../../player/media/encode.ts";
import { IMPORT_EXAMPLE_PATH, SHADER_EXAMPLE, SHADER_EXAMPLE_PATH } from "../../tools/edits_doc.ts";
import { examples, MintedIds, runExamples } from "../../tools/testing/doc_examples.ts";
import { startTestService } from "../../tools/testing/service.ts";
import { needs } from "../../tools/testing/peers.ts";

Deno.test({
  name: "docs/edits.md: every edit has an example, and every example answers as documented",
  ignore: Deno.build.os === "windows" || needs("curl").ignore,
  async fn() {
    const doc = await Deno.readTextFile(new URL("../../docs/edits.md", import.meta.url));
    for (const edit of EDITS) assert.ok(doc.includes(`### ${edit.name}\n`), edit.name);
    // Each edit's section shows it working: at least one of its examples answers `ok`.
    const sections = doc.split(/\n(?=#{2,3} )/);
    const failing = EDITS.map((edit) => edit.name).filter((name) => {
      const section = sections.find((s) => s.startsWith(`### ${name}\n`))!;
      return !examples(section).some((e) => (e.expected as { ok?: boolean } | undefined)?.ok);
    });
    assert.deepEqual(failing, [], "edits whose section shows no example that works");
    const list = examples(doc);
    assert.ok(list.length >= EDITS.length, `found ${list.length} examples`);
    const svc = await startTestService({}, { demo: true });
    const work = await Deno.makeTempDir();
    await Deno.writeFile(`${work}/intro.png`, encodePng(8, 8, new Uint8Array(256)));
    await Deno.writeFile(`${work}/tone.wav`, encodeWav(new Float32Array(4410), 44100));
    await Deno.writeTextFile(`${work}/Invert.fs`, SHADER_EXAMPLE);
    // Ids the doc shows for created items stand for the ones this run creates.
    const ids = new MintedIds();
    try {
      const live = (command: string) =>
        command.replaceAll("http://localhost:17736", svc.base)
          .replaceAll(IMPORT_EXAMPLE_PATH, `${work}/intro.png`)
          .replaceAll(SHADER_EXAMPLE_PATH, `${work}/Invert.fs`);
      assert.deepEqual(await runExamples(list, { work, ids, live }), []);
    } finally {
      await svc.stop();
      await Deno.remove(work, { recursive: true });
    }
  },
});
