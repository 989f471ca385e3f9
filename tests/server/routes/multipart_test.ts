import assert from "node:assert/strict";
import { CueportError } from "../../../server/core/mod.ts";
import { multipartBoundary, readFilePart } from "../../../server/routes/multipart.ts";

const encoder = new TextEncoder();
const BOUNDARY = "----cueport7MA4YWxkTrZu0gW";
const DELIMITER = `\r\n--${BOUNDARY}`;
const CHUNK = 64 * 1024;

/** A body made of `chunks`, which counts the reads and the bytes read. */
function countedBody(chunks: Iterable<Uint8Array>) {
  const it = chunks[Symbol.iterator]();
  const counts = { reads: 0, bytes: 0, isCancelled: false };
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = it.next();
      if (next.done) return controller.close();
      counts.reads++;
      counts.bytes += next.value.length;
      controller.enqueue(next.value);
    },
    cancel() {
      counts.isCancelled = true;
    },
  }, { highWaterMark: 0 });
  return { body, counts };
}

/** `total` bytes of `pattern` repeated, as chunks of `size`, made as they are read. */
function* repeated(pattern: Uint8Array, total: number, size = CHUNK): Generator<Uint8Array> {
  const unit = new Uint8Array(size + pattern.length);
  for (let i = 0; i < unit.length; i++) unit[i] = pattern[i % pattern.length]!;
  for (let at = 0; at < total; at += size) {
    const offset = at % pattern.length;
    yield unit.slice(offset, offset + Math.min(size, total - at));
  }
}

function* concatChunks(...parts: Iterable<Uint8Array>[]): Generator<Uint8Array> {
  for (const part of parts) yield* part;
}

function form(file: Uint8Array, options: { preamble?: string } = {}): Uint8Array {
  const head = `${options.preamble ?? ""}--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="note"\r\n\r\nhello\r\n--${BOUNDARY}\r\n` +
    `Content-Disposition: form-data; name="file"; filename="tone.wav"\r\n` +
    `Content-Type: audio/wav\r\n\r\n`;
  return join([encoder.encode(head), file, encoder.encode(`${DELIMITER}--\r\n`)]);
}

function join(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

async function readAll(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk.slice());
  return join(parts);
}

async function refusal(promise: Promise<unknown>): Promise<CueportError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof CueportError, String(error));
    return error;
  }
  throw new Error("Expected a refusal");
}

/** File bytes full of near-delimiters: CRs, dashes and the delimiter's prefixes. */
const TRICKY = encoder.encode(
  `\r\r\n\r\n-\r\n--\r\n--${BOUNDARY.slice(0, 5)}x${DELIMITER.slice(0, -1)}-` +
    `\r\n--${BOUNDARY.slice(0, -1)}x--${BOUNDARY}\r\n\r\n\r`,
);

Deno.test("multipartBoundary() reads the boundary of multipart/form-data, null for other types", () => {
  assert.equal(multipartBoundary(null), null);
  assert.equal(multipartBoundary("application/octet-stream"), null);
  assert.equal(multipartBoundary("multipart/mixed; boundary=x"), null);
  assert.equal(multipartBoundary(`multipart/form-data; boundary=${BOUNDARY}`), BOUNDARY);
  assert.equal(multipartBoundary('Multipart/Form-Data; charset=utf-8; BOUNDARY="a b:c"'), "a b:c");
  assert.equal(multipartBoundary("multipart/form-data;boundary=abc ; x=1"), "abc");
  assert.equal(
    multipartBoundary(`multipart/form-data; boundary=${"b".repeat(70)}`),
    "b".repeat(70),
  );
});

Deno.test("multipartBoundary() refuses a missing or malformed boundary with 400 INVALID_MESSAGE", () => {
  const missing = [
    "multipart/form-data",
    "multipart/form-data;",
    "multipart/form-data; charset=utf-8",
    "multipart/form-data; boundary=",
    'multipart/form-data; boundary=""',
    'multipart/form-data; name="boundary=x"',
  ];
  for (const type of missing) {
    assert.throws(() => multipartBoundary(type), (e: unknown) => {
      assert.ok(e instanceof CueportError);
      assert.equal(e.code, "INVALID_MESSAGE");
      assert.equal(e.status, 400);
      assert.equal(e.details?.field, "content-type");
      assert.match(e.message, /^Invalid content-type ".*": multipart\/form-data needs a boundary/);
      return true;
    }, type);
  }
  const malformed = ["b".repeat(71), "ends in a space ", "a{b}", "tab\there", "caf\u00e9", 'a"b'];
  for (const boundary of malformed) {
    const type = `multipart/form-data; boundary="${boundary}"`;
    assert.throws(() => multipartBoundary(type), (e: unknown) => {
      assert.ok(e instanceof CueportError);
      assert.equal(e.code, "INVALID_MESSAGE");
      assert.match(e.message, /^Invalid boundary ".*": RFC 2046 allows 1-70/);
      assert.doesNotMatch(e.message, /\.$/);
      return true;
    }, type);
  }
});

Deno.test("readFilePart() streams the file part after a skipped field", async () => {
  const file = join([encoder.encode("RIFF"), TRICKY, new Uint8Array(1000).fill(0x0d)]);
  const { body, counts } = countedBody([form(file, { preamble: "a preamble\r\n" })]);
  const part = await readFilePart(body, { boundary: BOUNDARY, field: "file" });
  assert.equal(part.filename, "tone.wav");
  assert.equal(part.contentType, "audio/wav");
  assert.deepEqual(await readAll(part.chunks), file);
  assert.ok(counts.isCancelled, "the rest of the body is released");
});

Deno.test("readFilePart() finds the same part whatever the chunking", async () => {
  const file = join([TRICKY, encoder.encode("end"), TRICKY]);
  const whole = form(file);
  const splits: Uint8Array[][] = [];
  for (let at = 0; at <= whole.length; at++) splits.push([whole.slice(0, at), whole.slice(at)]);
  for (let a = 0; a < whole.length; a += 7) {
    for (let b = a + 1; b < Math.min(whole.length, a + DELIMITER.length + 3); b++) {
      splits.push([whole.slice(0, a), whole.slice(a, b), whole.slice(b)]);
    }
  }
  splits.push([...whole].map((byte) => new Uint8Array([byte])));
  for (const chunks of splits) {
    const { body } = countedBody(chunks);
    const part = await readFilePart(body, { boundary: BOUNDARY, field: "file" });
    assert.equal(part.filename, "tone.wav");
    assert.deepEqual(await readAll(part.chunks), file, `split ${chunks.map((c) => c.length)}`);
  }
});

Deno.test("readFilePart() refuses a body without its boundary after a bounded number of reads", async () => {
  // 48 MiB of bytes that never hold the boundary (the old reader searched them all, again and again).
  for (const filler of ["x", "\r\n", "-", `\r\n--${BOUNDARY.slice(0, -1)}`]) {
    const { body, counts } = countedBody(repeated(encoder.encode(filler), 48 * 1024 ** 2));
    const error = await refusal(
      readFilePart(body, { boundary: BOUNDARY, field: "file", maxSkippedBytes: 1024 ** 2 }),
    );
    assert.ok(counts.reads <= 1024 ** 2 / CHUNK + 1, `${counts.reads} reads`);
    assert.equal(error.code, "INVALID_MESSAGE");
    assert.match(error.message, /more than 1048576 bytes before the file part "file"/);
    assert.ok(counts.isCancelled);
  }
});

Deno.test("readFilePart() streams a pathological file body holding at most a chunk", async () => {
  const head = encoder.encode(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="f"\r\n\r\n`,
  );
  const size = 32 * 1024 ** 2;
  const fillers = ["\r\n-", "\r\n--", "-\r", `\r\n--${BOUNDARY.slice(0, -1)}`];
  for (const filler of fillers) {
    const pattern = encoder.encode(filler);
    const { body, counts } = countedBody(
      concatChunks([head], repeated(pattern, size), [encoder.encode(`${DELIMITER}--`)]),
    );
    const part = await readFilePart(body, { boundary: BOUNDARY, field: "file" });
    let received = 0;
    let isSame = true;
    for await (const chunk of part.chunks) {
      // What was read and not yet handed on: at most a delimiter's carry and one chunk.
      assert.ok(counts.bytes - head.length - received <= CHUNK + DELIMITER.length);
      for (let i = 0; i < chunk.length; i += 997) {
        isSame &&= chunk[i] === pattern[(received + i) % pattern.length];
      }
      received += chunk.length;
    }
    assert.equal(received, size, filler);
    assert.ok(isSame, filler);
    assert.equal(counts.reads, size / CHUNK + 2, "each chunk read once");
  }
});

Deno.test("readFilePart() refuses endless part headers after a bounded number of reads", async () => {
  const head = encoder.encode(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n`);
  const { body, counts } = countedBody(
    concatChunks([head], repeated(encoder.encode("X-Pad: a\r\n"), 48 * 1024 ** 2, 100)),
  );
  const error = await refusal(readFilePart(body, { boundary: BOUNDARY, field: "file" }));
  assert.ok(counts.reads <= 16 * 1024 / 100 + 2, `${counts.reads} reads`);
  assert.match(error.message, /^Invalid multipart body: part headers longer than 16382 bytes$/);
});

Deno.test("readFilePart() refuses malformed and truncated bodies", async () => {
  const cases: Array<[string, RegExp]> = [
    ["", /the body ends before its first boundary/],
    ["a preamble\r\n-", /the body ends before its first boundary/],
    [`--${BOUNDARY}`, /the body ends after a boundary/],
    [`--${BOUNDARY}x\r\n\r\n`, /a boundary is not followed by a line break/],
    [`--${BOUNDARY}\r\nContent-Disposition: form-data`, /the body ends in part headers/],
    [
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc`,
      /the body ends before the closing boundary/,
    ],
    [
      `--${BOUNDARY}\r\nContent-Disposition: form-data; name="file"\r\n\r\nnot a file${DELIMITER}--`,
      /^Invalid file: no file part named "file"$/,
    ],
  ];
  for (const [text, message] of cases) {
    const { body } = countedBody([encoder.encode(text)]);
    const error = await refusal(
      readFilePart(body, { boundary: BOUNDARY, field: "file" }).then((p) => readAll(p.chunks)),
    );
    assert.equal(error.code, "INVALID_MESSAGE");
    assert.match(error.message, message, JSON.stringify(text));
  }
});

Deno.test("readFilePart() takes padding after a boundary and a part without headers", async () => {
  const text = `--${BOUNDARY} \t\r\n\r\nno headers${DELIMITER}\r\n` +
    `content-disposition: form-data; filename=a.png; name=file\r\n\r\nPNG${DELIMITER}--`;
  const { body } = countedBody([encoder.encode(text)]);
  const part = await readFilePart(body, { boundary: BOUNDARY, field: "file" });
  assert.equal(part.filename, "a.png");
  assert.equal(part.contentType, null);
  assert.equal(new TextDecoder().decode(await readAll(part.chunks)), "PNG");
});
