import assert from "node:assert/strict";
import { encodePng, encodeWav } from "../../../player/media/encode.ts";
import { jpeg, mp4 } from "../../../tools/testing/media.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";
import { listDir } from "../../../tools/testing/files.ts";

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

interface RawAnswer {
  status: number;
  headers: Headers;
  // deno-lint-ignore no-explicit-any
  body: any;
}

/** Sockets of stalled clients: a stalled client does not hang up, so they close after the service. */
const stalledClients = new Set<Deno.Conn>();

function closeStalledClients(): void {
  for (const conn of stalledClients) {
    try {
      conn.close();
    } catch { /* closed by its deadline */ }
  }
  stalledClients.clear();
}

/**
 * Sends a request head and `sent` bytes of its body over a socket, then
 * nothing more; resolves with the answer. A missing answer fails after
 * `deadlineMs` (default 5 s) instead of hanging.
 */
async function stalledUpload(
  svc: TestService,
  options: {
    query?: string;
    headers?: Record<string, string>;
    sent: Uint8Array;
    deadlineMs?: number;
  },
): Promise<RawAnswer> {
  const deadlineMs = options.deadlineMs ?? 5_000;
  const conn = await Deno.connect({ hostname: "127.0.0.1", port: svc.service.ports.http });
  stalledClients.add(conn);
  const deadline = setTimeout(() => conn.close(), deadlineMs);
  try {
    const headers = { "content-length": "10000000", ...options.headers };
    const head = `POST /api/v1/files/upload${options.query ?? ""} HTTP/1.1\r\nhost: 127.0.0.1\r\n` +
      Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n";
    await conn.write(new TextEncoder().encode(head));
    let written = 0;
    while (written < options.sent.length) {
      written += await conn.write(options.sent.subarray(written));
    }
    let text = "";
    const buf = new Uint8Array(16 * 1024);
    for (;;) {
      const end = text.indexOf("\r\n\r\n");
      const length = Number(/\r\ncontent-length: *(\d+)/i.exec(text)?.[1] ?? NaN);
      if (end >= 0 && text.length >= end + 4 + length) {
        const [status, ...lines] = text.slice(0, end).split("\r\n");
        const answer = new Headers(lines.map((l) => l.split(/: */, 2) as [string, string]));
        return {
          status: Number(status!.split(" ")[1]),
          headers: answer,
          body: JSON.parse(text.slice(end + 4, end + 4 + length)),
        };
      }
      const n = await conn.read(buf).catch(() => null);
      if (n === null) throw new Error(`No answer within ${deadlineMs} ms: ${JSON.stringify(text)}`);
      text += new TextDecoder().decode(buf.subarray(0, n));
    }
  } finally {
    clearTimeout(deadline);
  }
}

const BOUNDARY = "cueportXyZ42";
const FORM_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;

function formHead(name: string): Uint8Array {
  return new TextEncoder().encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\n` +
      `Content-Type: application/octet-stream\r\n\r\n`,
  );
}

Deno.test("POST /api/v1/files/upload ends a stalled upload with 408, leaving nothing", async (t) => {
  // The one wait on wall time in these tests: the configured idle timeout.
  const svc = await startTestService({ uploadIdleTimeoutMs: 300 });
  const media = `${svc.dataDir}/projects/show/media`;
  const staging = `${svc.dataDir}/uploads`;
  try {
    const mediaBefore = await listDir(media);
    const filesBefore = (await svc.get("/api/v1/projects/show")).body.files.length;
    const expectTimedOut = async (answer: Promise<RawAnswer>) => {
      const res = await answer;
      assert.equal(res.status, 408, JSON.stringify(res.body));
      assert.equal(res.body.error.code, "REQUEST_TIMEOUT");
      assert.match(res.body.error.message, /^Upload stalled: no byte for 300 ms/);
      assert.equal(res.headers.get("connection"), "close");
      assert.deepEqual(await listDir(staging), []);
      assert.deepEqual(await listDir(media), mediaBefore);
      assert.equal((await svc.get("/api/v1/projects/show")).body.files.length, filesBefore);
    };
    await t.step("a raw body stalled after its first bytes, its staging file removed", async () => {
      await Deno.mkdir(staging, { recursive: true });
      const watcher = Deno.watchFs(staging);
      const answer = stalledUpload(svc, {
        query: "?name=stalled.wav",
        sent: new Uint8Array(65536),
      });
      let created = "";
      for await (const event of watcher) {
        created = event.paths.find((p) => p.endsWith(".upload")) ?? "";
        if (event.kind === "create" && created) break;
      }
      watcher.close();
      assert.ok(created, "the upload was being staged");
      await expectTimedOut(answer);
    });
    await t.step("a multipart body stalled in the file's bytes", async () => {
      const sent = new Uint8Array([...formHead("stalled.png"), ...new Uint8Array(4096)]);
      await expectTimedOut(stalledUpload(svc, { headers: { "content-type": FORM_TYPE }, sent }));
    });
    await t.step("a multipart body stalled before its first boundary", async () => {
      const sent = new TextEncoder().encode("a preamble that never ends");
      await expectTimedOut(stalledUpload(svc, { headers: { "content-type": FORM_TYPE }, sent }));
    });
    await t.step("uploads after a stalled one are taken", async () => {
      const res = await upload(svc, multipart("after.png", KINDS[0]![1]));
      assert.equal(res.status, 200, JSON.stringify(res.body));
    });
  } finally {
    await svc.stop();
    closeStalledClients();
  }
});

Deno.test("POST /api/v1/files/upload refuses a multipart type without a valid boundary at once", async () => {
  const svc = await startTestService({ uploadIdleTimeoutMs: 300 });
  try {
    const types = [
      "multipart/form-data",
      "multipart/form-data; charset=utf-8",
      `multipart/form-data; boundary=${"b".repeat(71)}`,
      'multipart/form-data; boundary="ends in a space "',
    ];
    for (const type of types) {
      // No byte of the body is sent: a 400 (not the 408 of the idle timeout) comes before it.
      const res = await stalledUpload(svc, {
        query: "?name=a.png",
        headers: { "content-type": type },
        sent: new Uint8Array(0),
      });
      assert.equal(res.status, 400, type);
      assert.equal(res.body.error.code, "INVALID_MESSAGE");
      assert.equal(res.body.error.details.field, "content-type");
      assert.match(res.body.error.message, /^Invalid (content-type|boundary) "/);
    }
    assert.deepEqual(await listDir(`${svc.dataDir}/uploads`), []);
  } finally {
    await svc.stop();
    closeStalledClients();
  }
});

Deno.test("POST /api/v1/files/upload refuses a WAV bomb at its chunk past the limit, before the rest of its body", async () => {
  // A long idle timeout: the answer must come from the chunk walk, not from the stalled body.
  const svc = await startTestService({ uploadIdleTimeoutMs: 120_000 });
  try {
    const sent = new Uint8Array(12 + 8 * 8192); // the first 64 KiB of a million empty chunks
    sent.set(new TextEncoder().encode("RIFF"), 0);
    new DataView(sent.buffer).setUint32(4, 8 * 1024 * 1024, true);
    sent.set(new TextEncoder().encode("WAVE"), 8);
    for (let at = 12; at < sent.length; at += 8) sent.set(new TextEncoder().encode("JUNK"), at);
    const res = await stalledUpload(svc, { query: "?name=bomb.wav", sent, deadlineMs: 60_000 });
    assert.equal(res.status, 400, JSON.stringify(res.body));
    assert.equal(res.body.error.code, "CORRUPT_MEDIA");
    assert.match(res.body.error.message, /more than 1000 chunks before its "fmt " and "data"/);
    assert.deepEqual(await listDir(`${svc.dataDir}/uploads`).catch(() => []), []);
  } finally {
    await svc.stop();
    closeStalledClients();
  }
});
