import assert from "node:assert/strict";
import { encodePng, encodeWav } from "../../../player/media/encode.ts";
import { jpeg, mp4 } from "../../_helpers/media.ts";
import { startTestService, type TestService } from "../../_helpers/service.ts";
import { TestSocket } from "../../_helpers/ws_client.ts";

const KINDS: Array<[string, Uint8Array, string, string]> = [
  ["still.png", encodePng(4, 3, new Uint8Array(48)), "image", "image/png"],
  ["photo.jpg", jpeg(32, 24), "image", "image/jpeg"],
  ["tone.wav", encodeWav(new Float32Array(8000), 8000), "audio", "audio/wav"],
  ["movie.mp4", mp4("isom", 1000, 3000, 64, 48), "video", "video/mp4"],
  ["movie.mov", mp4("qt  ", 600, 1200, 32, 16), "video", "video/quicktime"],
];

function multipart(name: string, bytes: Uint8Array, field = "file"): FormData {
  const form = new FormData();
  form.append("note", "a text field before the file is skipped");
  form.append(field, new Blob([bytes as Uint8Array<ArrayBuffer>]), name);
  return form;
}

async function upload(svc: TestService, body: BodyInit, query = "") {
  const res = await fetch(`${svc.base}/api/v1/files/upload${query}`, { method: "POST", body });
  return { status: res.status, body: await res.json() };
}

async function listDir(path: string): Promise<string[]> {
  const names: string[] = [];
  try {
    for await (const e of Deno.readDir(path)) names.push(e.name);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  return names.sort();
}

Deno.test("POST /api/v1/files/upload imports each supported kind, multipart and raw", async (t) => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    for (const [name, bytes, kind, mime] of KINDS) {
      await t.step(`${name} as multipart/form-data`, async () => {
        const res = await upload(svc, multipart(name, bytes));
        assert.equal(res.status, 200, JSON.stringify(res.body));
        const fileId = res.body.edits[0].created.fileId;
        const files = (await svc.get("/api/v1/projects/show")).body.files;
        const file = files.find((f: { fileId: string }) => f.fileId === fileId);
        assert.equal(file.kind, kind);
        assert.equal(file.mimeType, mime);
        assert.equal(file.size, bytes.length);
        const stored = await Deno.readFile(`${svc.dataDir}/projects/show/media/${file.name}`);
        assert.deepEqual(stored, bytes);
      });
    }
    await t.step(
      "a raw body named in the query; the name is sanitized, never overwrites",
      async () => {
        const wav = KINDS[2]![1];
        const res = await upload(svc, wav as BodyInit, "?name=tone.wav");
        assert.equal(res.status, 200);
        assert.match(res.body.edits[0].message, /media\/tone \(2\)\.wav/);
        const odd = await upload(
          svc,
          wav as BodyInit,
          `?name=${encodeURIComponent("my song?.wav")}`,
        );
        assert.match(odd.body.edits[0].message, /media\/my song_\.wav/);
        const media = await listDir(`${svc.dataDir}/projects/show/media`);
        assert.ok(media.includes("tone.wav") && media.includes("tone (2).wav"));
      },
    );
    await t.step("clients see upload-progress updates; duration is measured", async () => {
      const progress = await ws.take((m) =>
        m.payload?.some?.((u: { data: { event: string; done?: boolean } }) =>
          u.data.event === "upload-progress" && u.data.done
        )
      );
      assert.ok(progress);
      const files = (await svc.get("/api/v1/projects/show")).body.files;
      const movie = files.find((f: { name: string }) => f.name === "movie.mp4");
      assert.equal(movie.duration, 3);
      assert.equal(movie.width, 64);
    });
    await t.step("an upload is undoable like any edit", async () => {
      const before = (await svc.get("/api/v1/projects/show")).body.files.length;
      await svc.post("/api/v1/edit", { name: "project.undo" });
      assert.equal((await svc.get("/api/v1/projects/show")).body.files.length, before - 1);
    });
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("POST /api/v1/files/upload refuses oversize, traversal, corrupt and unknown files, leaving nothing", async (t) => {
  const svc = await startTestService({ maxUploadBytes: 4096 });
  const media = `${svc.dataDir}/projects/show/media`;
  const staging = `${svc.dataDir}/uploads`;
  try {
    const mediaBefore = await listDir(media);
    const expectNothingLeft = async () => {
      assert.deepEqual(await listDir(media), mediaBefore);
      assert.deepEqual(await listDir(staging), []);
      assert.equal((await svc.get("/api/v1/projects/show")).body.files.length, 1);
    };
    await t.step("over the size limit: 413, announced or not", async () => {
      const big = new Uint8Array(10_000);
      big.set(encodePng(4, 3, new Uint8Array(48)));
      const announced = await upload(svc, big as BodyInit, "?name=big.png");
      assert.equal(announced.status, 413);
      assert.equal(announced.body.error.code, "PAYLOAD_TOO_LARGE");
      const streamed = await upload(
        svc,
        new Blob([big]).stream().pipeThrough(new TransformStream()),
        "?name=big.png",
      );
      assert.equal(streamed.status, 413);
      await expectNothingLeft();
    });
    await t.step("a name that leaves the media folder: 400", async () => {
      const png = KINDS[0]![1];
      const raw = await upload(
        svc,
        png as BodyInit,
        `?name=${encodeURIComponent("../../evil.png")}`,
      );
      assert.equal(raw.status, 400);
      assert.equal(raw.body.error.details.field, "name");
      const form = await upload(svc, multipart("..\\evil.png", png));
      assert.equal(form.status, 400);
      await expectNothingLeft();
    });
    await t.step("corrupt media: 400 CORRUPT_MEDIA; unknown bytes: 415", async () => {
      const corrupt = await upload(svc, multipart("broken.png", KINDS[0]![1].slice(0, 10)));
      assert.equal(corrupt.status, 400);
      assert.equal(corrupt.body.error.code, "CORRUPT_MEDIA");
      const text = new TextEncoder().encode("just text, named like a movie");
      const unknown = await upload(svc, multipart("movie.mp4", text));
      assert.equal(unknown.status, 415);
      assert.equal(unknown.body.error.code, "UNSUPPORTED_MEDIA");
      await expectNothingLeft();
    });
    await t.step("no file field, no name, or an unknown project", async () => {
      const noField = await upload(svc, multipart("a.png", KINDS[0]![1], "picture"));
      assert.equal(noField.status, 400);
      assert.equal(noField.body.error.details.field, "file");
      const noName = await upload(svc, KINDS[0]![1] as BodyInit);
      assert.equal(noName.status, 400);
      const ghost = await upload(svc, KINDS[0]![1] as BodyInit, "?name=a.png&projectID=ghost");
      assert.equal(ghost.status, 404);
      await expectNothingLeft();
    });
  } finally {
    await svc.stop();
  }
});
