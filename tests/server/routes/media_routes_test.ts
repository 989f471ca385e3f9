import assert from "node:assert/strict";
import { encodePng, encodeWav } from "../../../player/media/encode.ts";
import { decodePng, formatOf, jpegSize, pixel } from "../../../tools/testing/images.ts";
import { mp4 } from "../../../tools/testing/media.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { needs } from "../../../tools/testing/peers.ts";

interface Picture {
  status: number;
  headers: Headers;
  bytes: Uint8Array;
}

async function picture(svc: TestService, path: string, init?: RequestInit): Promise<Picture> {
  const res = await fetch(svc.base + path, init);
  return {
    status: res.status,
    headers: res.headers,
    bytes: new Uint8Array(await res.arrayBuffer()),
  };
}

/** Imports a file written to a temp path into the demo project; returns its file id. */
async function importFile(svc: TestService, name: string, bytes: Uint8Array): Promise<string> {
  const dir = await Deno.makeTempDir();
  await Deno.writeFile(`${dir}/${name}`, bytes);
  const answer = await svc.post("/api/v1/edit", {
    name: "file.import",
    params: { path: `${dir}/${name}` },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  await Deno.remove(dir, { recursive: true });
  return answer.body.edits[0].created.fileId;
}

/** Three vertical stripes, red | green | blue, the middle one as wide as the picture is high. */
function stripes(width: number, height: number): Uint8Array {
  const rgba = new Uint8Array(width * height * 4);
  const side = (width - height) / 2;
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const colour = x < side ? [255, 0, 0] : x < width - side ? [0, 200, 0] : [0, 0, 255];
      rgba.set([...colour, 255], (y * width + x) * 4);
    }
  }
  return encodePng(width, height, rgba);
}

/** A 440 Hz tone whose level grows from silence to full over `seconds`. */
function fadeIn(seconds: number, rate = 8000): Uint8Array {
  const samples = new Float32Array(seconds * rate);
  for (let i = 0; i < samples.length; i++) {
    samples[i] = (i / samples.length) * Math.sin((2 * Math.PI * 440 * i) / rate);
  }
  return encodeWav(samples, rate);
}

Deno.test("media routes", async (t) => {
  const svc = await startTestService({}, { demo: true });
  try {
    await t.step(
      "every file of the demo has a thumbnail, every audio file a waveform",
      async () => {
        const stored = JSON.parse(
          await Deno.readTextFile(`${svc.dataDir}/projects/demo/project.json`),
        );
        const demoFiles: string[] = stored.files.map((f: { id: string }) => f.id);
        assert.ok(demoFiles.length >= 5, `${demoFiles.length} files`);
        for (const fileId of demoFiles) {
          const thumb = await picture(svc, `/thumbnails/demo/${fileId}.jpg?size=64`);
          assert.equal(thumb.status, 200, `${fileId}: ${new TextDecoder().decode(thumb.bytes)}`);
          assert.equal(formatOf(thumb.bytes), "jpeg");
          assert.deepEqual(jpegSize(thumb.bytes), { width: 64, height: 64 });
          if (fileId.endsWith("-audio")) {
            assert.equal(thumb.headers.get("x-cueport-origin"), "card");
            const wave = await picture(svc, `/waveforms/demo/${fileId}.png`);
            assert.equal(wave.status, 200);
            const decoded = decodePng(wave.bytes);
            assert.deepEqual([decoded.width, decoded.height], [1024, 256]);
          } else assert.equal(thumb.headers.get("x-cueport-origin"), "image");
        }
      },
    );

    await t.step("size, format and quality do what they say", async () => {
      const png = await picture(svc, "/thumbnails/demo/file-aurora.jpg?size=100&format=png");
      assert.equal(png.headers.get("content-type"), "image/png");
      assert.deepEqual([decodePng(png.bytes).width, decodePng(png.bytes).height], [100, 100]);
      const original = await picture(svc, "/thumbnails/demo/file-aurora.jpg");
      assert.equal(original.headers.get("content-type"), "image/jpeg");
      const stored = JSON.parse(
        await Deno.readTextFile(`${svc.dataDir}/projects/demo/project.json`),
      );
      const aurora = stored.files.find((f: { id: string }) => f.id === "file-aurora");
      assert.deepEqual(jpegSize(original.bytes), { width: aurora.width, height: aurora.height });
      const low = await picture(svc, "/thumbnails/demo/file-aurora.jpg?size=256&quality=10");
      const high = await picture(svc, "/thumbnails/demo/file-aurora.jpg?size=256&quality=95");
      assert.ok(
        low.bytes.length < high.bytes.length * 0.7,
        `quality 10: ${low.bytes.length} bytes, 95: ${high.bytes.length}`,
      );
      assert.equal(low.headers.get("cache-control"), "private, no-cache");
      assert.notEqual(low.headers.get("etag"), high.headers.get("etag"));
    });

    await t.step("the path's extension chooses the format; format= wins over it", async () => {
      const cases: Array<[string, string, "png" | "jpeg"]> = [
        ["/thumbnails/demo/file-aurora.png?size=32", "image/png", "png"],
        ["/thumbnails/demo/file-aurora.jpeg?size=32", "image/jpeg", "jpeg"],
        ["/thumbnails/demo/file-aurora.jpg?size=32", "image/jpeg", "jpeg"],
        ["/thumbnails/demo/file-aurora.jpg?size=32&format=png", "image/png", "png"],
        ["/thumbnails/demo/file-aurora.png?size=32&format=jpeg", "image/jpeg", "jpeg"],
      ];
      for (const [path, type, format] of cases) {
        const answer = await picture(svc, path);
        assert.equal(answer.status, 200, path);
        assert.equal(answer.headers.get("content-type"), type, path);
        assert.equal(formatOf(answer.bytes), format, path);
      }
      // The same picture by either name of JPEG: the same bytes and ETag.
      const jpg = await picture(svc, "/thumbnails/demo/file-aurora.jpg?size=32");
      const jpeg = await picture(svc, "/thumbnails/demo/file-aurora.jpeg?size=32");
      assert.equal(jpg.headers.get("etag"), jpeg.headers.get("etag"));
    });

    await t.step("an unknown query parameter is 400 naming it, as a bad one is", async () => {
      const cases: Array<[string, string]> = [
        ["/thumbnails/demo/file-aurora.jpg?sise=64", "sise"],
        ["/thumbnails/demo/file-aurora.png?size=64&quallity=10", "quallity"],
        ["/waveforms/demo/file-song-opening-audio.png?widht=800", "widht"],
        ["/api/v1/projects/demo/clips?ids=x&idz=y", "idz"],
      ];
      for (const [path, field] of cases) {
        const answer = await svc.get(path);
        assert.equal(answer.status, 400, path);
        assert.equal(answer.body.error.code, "INVALID_MESSAGE", path);
        assert.deepEqual(answer.body.error.details, { field }, path);
        assert.match(answer.body.error.message, new RegExp(`^Invalid ${field}: `), path);
      }
      const typo = await svc.get("/thumbnails/demo/file-aurora.jpg?sise=64");
      assert.equal(
        typo.body.error.message,
        'Invalid sise: not a query parameter of this route (did you mean "size"?): use size, overlay, format, quality',
      );
    });

    await t.step("the overlay changes the centre and leaves the corners", async () => {
      const path = "/thumbnails/demo/file-aurora.jpg?size=128&format=png";
      const plain = decodePng((await picture(svc, `${path}&overlay=none`)).bytes);
      for (const overlay of ["play", "pause"]) {
        const marked = decodePng((await picture(svc, `${path}&overlay=${overlay}`)).bytes);
        assert.deepEqual(pixel(marked, 1, 1), pixel(plain, 1, 1), `${overlay}: corner kept`);
        let changed = 0;
        for (let y = 48; y < 80; y++) {
          for (let x = 48; x < 80; x++) {
            if (pixel(marked, x, y).join() !== pixel(plain, x, y).join()) changed++;
          }
        }
        assert.ok(changed > 500, `${overlay}: ${changed} of 1024 centre pixels changed`);
      }
      const tiny = await picture(svc, "/thumbnails/demo/file-aurora.jpg?size=16&overlay=play");
      assert.deepEqual(jpegSize(tiny.bytes), { width: 16, height: 16 });
    });

    await t.step("a wide picture becomes a square by keeping its middle", async () => {
      const fileId = await importFile(svc, "wide.png", stripes(300, 100));
      const square = decodePng(
        (await picture(svc, `/thumbnails/demo/${fileId}.jpg?size=50&format=png`)).bytes,
      );
      assert.deepEqual([square.width, square.height], [50, 50]);
      for (const [x, y] of [[2, 2], [47, 25], [25, 47]]) {
        const [r, g, b] = pixel(square, x!, y!);
        assert.ok(
          g! > 150 && r! < 60 && b! < 60,
          `(${x}, ${y}) is the green middle: ${r},${g},${b}`,
        );
      }
    });

    await t.step("a tone that fades in draws a growing envelope", async () => {
      const fileId = await importFile(svc, "fade.wav", fadeIn(4));
      const wave = decodePng(
        (await picture(svc, `/waveforms/demo/${fileId}.png?width=200&height=100`)).bytes,
      );
      assert.deepEqual([wave.width, wave.height], [200, 100]);
      const background = pixel(wave, 0, 0).join();
      const heights = Array.from({ length: 200 }, (_, x) => {
        let drawn = 0;
        for (let y = 0; y < 100; y++) if (pixel(wave, x, y).join() !== background) drawn++;
        return drawn;
      });
      const mean = (from: number, to: number) =>
        heights.slice(from, to).reduce((a, b) => a + b, 0) / (to - from);
      const quarters = [mean(0, 50), mean(50, 100), mean(100, 150), mean(150, 200)];
      for (let i = 1; i < 4; i++) {
        assert.ok(quarters[i]! > quarters[i - 1]!, `growing: ${quarters.map(Math.round)}`);
      }
      assert.ok(quarters[3]! > 60, `loud at the end: ${quarters[3]}`);
    });

    await t.step("If-None-Match with the ETag is 304 without a body", async () => {
      const path = "/thumbnails/demo/file-rings.jpg?size=32";
      const first = await picture(svc, path);
      const etag = first.headers.get("etag")!;
      assert.match(etag, /^"[0-9a-f]{32}"$/);
      const again = await picture(svc, path, { headers: { "if-none-match": etag } });
      assert.equal(again.status, 304);
      assert.equal(again.bytes.length, 0);
      assert.equal(again.headers.get("etag"), etag);
      const other = await picture(svc, path, { headers: { "if-none-match": '"other"' } });
      assert.equal(other.status, 200);
      assert.deepEqual(other.bytes, first.bytes);
      const wave = "/waveforms/demo/file-song-opening-audio.png";
      const waveTag = (await picture(svc, wave)).headers.get("etag")!;
      assert.equal(
        (await picture(svc, wave, { headers: { "if-none-match": waveTag } })).status,
        304,
      );
    });

    await t.step("every bad parameter is 400 naming it", async () => {
      const cases: Array<[string, string]> = [
        ["/thumbnails/demo/file-aurora.jpg?size=8", "size"],
        ["/thumbnails/demo/file-aurora.jpg?size=513", "size"],
        ["/thumbnails/demo/file-aurora.jpg?size=big", "size"],
        ["/thumbnails/demo/file-aurora.jpg?size=20.5", "size"],
        ["/thumbnails/demo/file-aurora.jpg?quality=0", "quality"],
        ["/thumbnails/demo/file-aurora.jpg?quality=101", "quality"],
        ["/thumbnails/demo/file-aurora.jpg?overlay=spin", "overlay"],
        ["/thumbnails/demo/file-aurora.jpg?format=gif", "format"],
        ["/waveforms/demo/file-song-opening-audio.png?width=4", "width"],
        ["/waveforms/demo/file-song-opening-audio.png?height=5000", "height"],
        ["/waveforms/demo/file-aurora.png", "fileId"],
      ];
      for (const [path, field] of cases) {
        const answer = await svc.get(path);
        assert.equal(answer.status, 400, path);
        assert.equal(answer.body.error.code, "INVALID_MESSAGE", path);
        assert.equal(answer.body.error.details.field, field, path);
      }
    });

    await t.step("unknown projects, files and cameras are 404", async () => {
      for (
        const path of [
          "/thumbnails/nope/file-aurora.jpg",
          "/thumbnails/demo/nope.jpg",
          "/thumbnails/demo/nope.png",
          "/thumbnails/demo/file-aurora.webp",
          "/waveforms/demo/nope.png",
          "/waveforms/nope/file-song-opening-audio.png",
          "/camera-thumbnails/video9.jpg",
        ]
      ) {
        const answer = await svc.get(path);
        assert.equal(answer.status, 404, path);
        assert.equal(answer.body.error.code, "NOT_FOUND", path);
      }
    });

    await t.step("a remote device needs a token, as on every route", async () => {
      const answer = await remoteRequest(
        svc.service.ports.http,
        "GET",
        "/thumbnails/demo/file-aurora.jpg",
      );
      assert.equal(answer.status, 401);
    });

    await t.step(
      "a camera's thumbnail: the default is the test pattern, kept for 5 s",
      async () => {
        const first = await picture(svc, "/camera-thumbnails/default.jpg");
        assert.equal(first.status, 200);
        assert.equal(first.headers.get("x-cueport-origin"), "camera");
        assert.deepEqual(jpegSize(first.bytes), { width: 640, height: 360 });
        const named = await picture(svc, "/camera-thumbnails/test-pattern.jpg");
        assert.equal(named.headers.get("etag"), first.headers.get("etag"), "the same picture");
      },
    );

    await t.step("50 clients asking the same cold picture get the same bytes", async () => {
      const path = "/thumbnails/demo/file-strobe.jpg?size=77&overlay=pause";
      const answers = await Promise.all(Array.from({ length: 50 }, () => picture(svc, path)));
      assert.ok(answers.every((a) => a.status === 200));
      assert.equal(new Set(answers.map((a) => a.headers.get("etag"))).size, 1);
    });
  } finally {
    await svc.stop();
  }
});

Deno.test(
  "videos: a frame through ffmpeg, or a card without it; a broken image is a card",
  needs("ffmpeg"),
  async (t) => {
    const dir = await Deno.makeTempDir();
    const video = `${dir}/clip.mp4`;
    const made = await new Deno.Command("ffmpeg", {
      args: ["-v", "error", "-f", "lavfi", "-i", "testsrc=size=320x180:rate=10:duration=2", video],
    }).output();
    assert.ok(made.success, new TextDecoder().decode(made.stderr));
    for (const ffmpeg of ["ffmpeg", "off"]) {
      await t.step(`ffmpeg ${ffmpeg}`, async () => {
        const svc = await startTestService({ ffmpeg }, { demo: true });
        try {
          const fileId = await importFile(svc, "clip.mp4", await Deno.readFile(video));
          const thumb = await picture(svc, `/thumbnails/demo/${fileId}.jpg?size=96`);
          assert.equal(thumb.status, 200);
          assert.deepEqual(jpegSize(thumb.bytes), { width: 96, height: 96 });
          assert.equal(
            thumb.headers.get("x-cueport-origin"),
            ffmpeg === "off" ? "card" : "video-frame",
          );
          const fake = await importFile(svc, "fake.mp4", mp4("isom", 1000, 5000, 640, 360));
          const card = await picture(svc, `/thumbnails/demo/${fake}.jpg?size=64`);
          assert.equal(card.headers.get("x-cueport-origin"), "card", "ffmpeg fails on it: a card");
        } finally {
          await svc.stop();
        }
      });
    }
    await Deno.remove(dir, { recursive: true });
  },
);

Deno.test("a camera's frame of more pixels than maxImagePixels is a card, as any picture", async () => {
  // The test pattern is 640x360 (230,400 pixels).
  const svc = await startTestService({ maxImagePixels: 640 * 360 - 1 });
  try {
    const frame = await picture(svc, "/camera-thumbnails/default.jpg");
    assert.equal(frame.status, 200);
    assert.equal(frame.headers.get("x-cueport-origin"), "camera");
    assert.deepEqual(jpegSize(frame.bytes), { width: 512, height: 512 }, "a card, not the pattern");
  } finally {
    await svc.stop();
  }
});
