import assert from "node:assert/strict";
import type { WorkerResponse } from "../../../../server/media/render/worker.ts";
import { FfmpegError, runFfmpeg } from "../../../../server/media/render/ffmpeg.ts";
import { decoded, MAX_PIXELS, paint, source, tempDir, writeImage } from "./_fixtures.ts";

function roundTrip(worker: Worker, message: unknown): Promise<WorkerResponse> {
  return new Promise((resolve, reject) => {
    worker.onmessage = (event: MessageEvent<WorkerResponse | { ready: true }>) => {
      if (!("ready" in event.data)) resolve(event.data); // `ready`: its codecs are compiled
    };
    worker.onerror = (event) => reject(new Error(event.message));
    worker.postMessage(message);
  });
}

Deno.test("worker.ts renders a job and answers errors by code", async () => {
  const dir = await tempDir();
  const worker = new Worker(
    new URL("../../../../server/media/render/worker.ts", import.meta.url).href,
    { type: "module" },
  );
  try {
    const path = `${dir}/red.png`;
    await writeImage(path, paint(40, 20, () => [200, 0, 0]), "png");
    const job = {
      type: "thumbnail",
      source: source(path, "image"),
      size: 32,
      overlay: "play",
      format: "png",
      quality: 85,
      ffmpeg: null,
      maxPixels: MAX_PIXELS,
    };
    const ok = await roundTrip(worker, { id: 7, job });
    assert.ok(ok.ok);
    assert.deepEqual([ok.id, ok.rendered.width, ok.rendered.origin], [7, 32, "image"]);
    assert.equal((await decoded(ok.rendered.bytes)).width, 32);

    const waveformOfImage = {
      type: "waveform",
      source: source(path, "image"),
      width: 10,
      height: 10,
      ffmpeg: null,
    };
    const refused = await roundTrip(worker, { id: 8, job: waveformOfImage });
    assert.ok(!refused.ok);
    assert.deepEqual([refused.id, refused.error.code], [8, "UNSUPPORTED_MEDIA"]);

    const broken = await roundTrip(worker, { id: 9, job: { ...waveformOfImage, width: -1 } });
    assert.ok(!broken.ok);
    assert.equal(broken.error.code, "SERVER_ERROR");
    assert.doesNotMatch(broken.error.message, /\bat |\.ts:/, "no stack in the message");
  } finally {
    worker.terminate();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("runFfmpeg() kills an ffmpeg that outlives its deadline", async () => {
  const dir = await tempDir();
  try {
    const stuck = `${dir}/stuck-ffmpeg`;
    await Deno.writeTextFile(stuck, "#!/bin/sh\nexec sleep 60\n");
    await Deno.chmod(stuck, 0o755);
    await assert.rejects(
      runFfmpeg({ command: stuck, args: [], deadlineMs: 50, onData: () => {} }),
      (e) => e instanceof FfmpegError && e.reason === "timeout",
    );
    await assert.rejects(
      runFfmpeg({ command: `${dir}/none`, args: [], deadlineMs: 1000, onData: () => {} }),
      (e) => e instanceof FfmpegError && e.reason === "missing",
    );
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
