import assert from "node:assert/strict";
import { Uint8ArrayReader, Uint8ArrayWriter, ZipWriter } from "@zip.js/zip.js";
import { importShow } from "../../../player/show/mod.ts";
import { openZip, readEntry } from "../../../player/show/zip_file.ts";
import { MAX_SHOW_JSON_BYTES } from "../../../protocol/show_file.ts";
import { openFixture } from "../../../tools/testing/fixture.ts";
import { sha256Hex } from "../../../tools/testing/show_files.ts";

/** What the bomb's `project.json` claims to be (manifest and zip headers): bytes. */
const CLAIMED = 1000;
/** What it inflates to: bytes (spaces, which deflate to almost nothing). */
const INFLATED = 32 * 1024 * 1024;

/** Sets the uncompressed size of `name` in its local header and central directory record. */
function claimSize(zip: Uint8Array, name: string, size: number): void {
  const view = new DataView(zip.buffer, zip.byteOffset, zip.byteLength);
  const encoded = new TextEncoder().encode(name);
  let patched = 0;
  for (let i = 0; i + 46 < zip.length; i++) {
    const signature = view.getUint32(i, true);
    const [nameAt, sizeAt] = signature === 0x04034b50
      ? [i + 30, i + 22]
      : signature === 0x02014b50
      ? [i + 46, i + 24]
      : [-1, -1];
    if (nameAt < 0) continue;
    const at = zip.subarray(nameAt, nameAt + encoded.length);
    if (at.every((b, k) => b === encoded[k])) {
      view.setUint32(sizeAt, size, true);
      patched++;
    }
  }
  assert.equal(patched, 2, "local header and central directory");
}

/** A show file whose project.json says 1000 bytes everywhere and inflates to 32 MB. */
async function bombShow(): Promise<Uint8Array> {
  const text = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));
  const bomb = new Uint8Array(INFLATED).fill(0x20);
  const presets = text([]);
  const manifest = text({
    format: "cueport-show",
    version: 1,
    createdAt: new Date().toISOString(),
    cueportVersion: "test",
    project: { id: "show", name: "Show", revision: 0 },
    entries: [
      { path: "project.json", size: CLAIMED, sha256: "0".repeat(64) },
      { path: "presets.json", size: presets.length, sha256: await sha256Hex(presets) },
    ],
  });
  const writer = new ZipWriter(new Uint8ArrayWriter(), { dataDescriptor: false });
  await writer.add("project.json", new Uint8ArrayReader(bomb), { level: 9 });
  await writer.add("presets.json", new Uint8ArrayReader(presets));
  await writer.add("manifest.json", new Uint8ArrayReader(manifest));
  const zip = await writer.close();
  claimSize(zip, "project.json", CLAIMED);
  return zip;
}

Deno.test("readEntry stops inflating a JSON entry at its cap: a zip bomb is refused before it is read past it", async () => {
  const f = await openFixture();
  try {
    const file = `${f.dataDir}/bomb.cueport.zip`;
    await Deno.writeFile(file, await bombShow());
    assert.ok((await Deno.stat(file)).size < 100_000, "the bomb is small on disk");
    const zip = await openZip(file);
    try {
      const entry = zip.entries.find((e) => e.filename === "project.json")!;
      let inflated = 0;
      await assert.rejects(
        readEntry(entry as Parameters<typeof readEntry>[0], CLAIMED, (n) => inflated += n),
        /inflates past 1000 bytes/,
      );
      assert.ok(inflated < 1024 * 1024, `inflated ${inflated} bytes of ${INFLATED}`);
    } finally {
      await zip.close();
    }
    await assert.rejects(
      importShow(f.app, { path: file, replace: false }, {
        progress: () => {},
        signal: new AbortController().signal,
      }).settle(),
      /Invalid show file: entry "project\.json" inflates past 1000 bytes \(the size the manifest and the zip declare; a JSON entry is at most 67108864 bytes\)/,
    );
    assert.equal(MAX_SHOW_JSON_BYTES, 64 * 1024 * 1024);
  } finally {
    await f.close();
  }
});
