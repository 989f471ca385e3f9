/**
 * Malformed HTTP/1.1 as raw bytes: broken request lines, headers, lengths
 * and chunking, smuggling shapes, HTTP/2 and upgrade requests on the HTTP port.
 * @module
 */
import type { Rng } from "./_prng.ts";

const encoder = new TextEncoder();

/** Malformed HTTP/1.1 of one of several kinds, as raw bytes, with the kind's name. */
export function malformedRequest(host: string, rng: Rng): { kind: string; bytes: Uint8Array } {
  const h = `host: ${host}\r\n`;
  const kinds: Array<[string, () => string | Uint8Array]> = [
    ["random bytes", () => rng.bytes(rng.range(1, 4096))],
    [
      "bad request line",
      () => rng.pick(["GET\r\n\r\n", "GET / HTTP/9.9\r\n\r\n", " / HTTP/1.1\r\n\r\n"]),
    ],
    ["header without colon", () => `GET /health HTTP/1.1\r\n${h}nocolon\r\n\r\n`],
    [
      "huge header",
      () => `GET /health HTTP/1.1\r\n${h}x-a: ${"a".repeat(rng.range(60_000, 1_000_000))}\r\n\r\n`,
    ],
    [
      "many headers",
      () => `GET /health HTTP/1.1\r\n${h}${"x-b: 1\r\n".repeat(rng.range(100, 20_000))}\r\n`,
    ],
    ["huge URI", () => `GET /${"a".repeat(rng.range(10_000, 200_000))} HTTP/1.1\r\n${h}\r\n`],
    [
      "bad chunk size",
      () =>
        `POST /api/v1/action HTTP/1.1\r\n${h}transfer-encoding: chunked\r\n\r\n${
          rng.pick(["zz", "ffffffffffffffffff", "-1", "1;" + "x".repeat(10_000)])
        }\r\n{}\r\n0\r\n\r\n`,
    ],
    [
      "CL and TE",
      () =>
        `POST /api/v1/action HTTP/1.1\r\n${h}content-length: 4\r\ntransfer-encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n`,
    ],
    [
      "two lengths",
      () => `POST /api/v1/action HTTP/1.1\r\n${h}content-length: 2\r\ncontent-length: 9\r\n\r\n{}`,
    ],
    [
      "bad length",
      () =>
        `POST /api/v1/action HTTP/1.1\r\n${h}content-length: ${
          rng.pick(["-1", "1e9", "99999999999999999999", "abc", " 2"])
        }\r\n\r\n{}`,
    ],
    ["short body", () => `POST /api/v1/edit HTTP/1.1\r\n${h}content-length: 5000\r\n\r\n{"name":`],
    ["HTTP/2 preface", () => "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"],
    ["pipelined", () => `GET /health HTTP/1.1\r\n${h}\r\n`.repeat(rng.range(2, 200))],
    ["bare LF", () => `GET /health HTTP/1.1\n${h.trim()}\n\n`],
    ["NUL bytes", () => `GET /he\0alth HTTP/1.1\r\n${h}x-n: a\0b\r\n\r\n`],
    [
      "absolute URI",
      () =>
        rng.pick([
          "GET http://evil.example/health HTTP/1.1\r\n",
          "CONNECT evil:443 HTTP/1.1\r\n",
          "OPTIONS * HTTP/1.1\r\n",
        ]) + `${h}\r\n`,
    ],
    [
      "upgrade",
      () =>
        `GET /v1 HTTP/1.1\r\n${h}upgrade: ${
          rng.pick(["websocket", "h2c"])
        }\r\nconnection: upgrade\r\n\r\n`,
    ],
    ["no host", () => "GET /health HTTP/1.1\r\n\r\n"],
    ["two hosts", () => `GET /health HTTP/1.1\r\n${h}host: evil.example\r\n\r\n`],
    [
      "expect continue",
      () =>
        `POST /api/v1/action HTTP/1.1\r\n${h}expect: 100-continue\r\ncontent-length: 20\r\n\r\n`,
    ],
    ["HTTP/1.0", () => "GET /health HTTP/1.0\r\n\r\n"],
  ];
  const [kind, make] = rng.pick(kinds);
  const made = make();
  return { kind, bytes: typeof made === "string" ? encoder.encode(made) : made };
}
