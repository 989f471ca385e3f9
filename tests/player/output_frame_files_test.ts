import assert from "node:assert/strict";
import { saveOutputFrame } from "../../player/app_output.ts";
import { VirtualClock } from "../../player/clock.ts";
import type { Output } from "../../player/output/mod.ts";
import { decodePng, encodePng } from "../../server/media/render/codecs.ts";

/** An output whose frame() answers a 2x1 PNG of the quality asked as its red, in turn. */
function fakeOutput(): { output: Output; finish(): void } {
  const pending: Array<() => void> = [];
  const output = {
    frame: (asked: { quality?: number }) =>
      new Promise<Uint8Array>((resolve) =>
        pending.push(() =>
          resolve(
            encodePng({
              width: 2,
              height: 1,
              data: new Uint8Array([asked.quality ?? 0, 0, 0, 255, 0, 0, 0, 255]),
            }),
          )
        )
      ),
  } as unknown as Output;
  return { output, finish: () => pending.shift()!() };
}

Deno.test("saveOutputFrame() writes each request its own file and keeps only the last few", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    const { output, finish } = fakeOutput();
    const clock = new VirtualClock();
    // Two JPEG previews of the same size at once, of different qualities.
    const a = saveOutputFrame(output, clock, dataDir, { size: 64, format: "jpeg", quality: 70 });
    const b = saveOutputFrame(output, clock, dataDir, { size: 64, format: "jpeg", quality: 85 });
    finish();
    const first = await a;
    finish();
    const second = await b;
    assert.notEqual(first.path, second.path);
    assert.equal((await decodePng(await Deno.readFile(first.path))).data[0], 70);
    assert.equal((await decodePng(await Deno.readFile(second.path))).data[0], 85);
    for (let i = 0; i < 20; i++) {
      const next = saveOutputFrame(output, clock, dataDir, { size: 32 });
      finish();
      await next;
    }
    const left = [...Deno.readDirSync(`${dataDir}/cache/output`)].filter((e) =>
      !e.name.startsWith(".")
    );
    assert.equal(left.length, 8, left.map((e) => e.name).join(" "));
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});
