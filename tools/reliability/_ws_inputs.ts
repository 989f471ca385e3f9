/**
 * Fuzzed WebSocket inputs: messages of the right shape with mutated fields,
 * malformed frames (RFC 6455 violations), and mutated upgrade requests.
 * @module
 */
import { validWsMessage } from "./_corpus.ts";
import { isSafeInput, mutateText, mutateValue } from "./_mutate.ts";
import type { Rng } from "./_prng.ts";
import { encodeFrame, Opcode } from "./_ws_frames.ts";

const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder("utf-8", { fatal: true });

/** One frame's bytes for a session that must stay open: valid framing, fuzzed content. */
export function sessionInput(rng: Rng, id: string): Uint8Array | null {
  const valid = validWsMessage(rng, id);
  const r = rng.next();
  let payload: Uint8Array;
  if (r < 0.1) payload = encoder.encode(JSON.stringify(valid));
  else if (r < 0.65) payload = encoder.encode(JSON.stringify(mutateValue(valid, rng)));
  else if (r < 0.93) payload = mutateText(JSON.stringify(valid), rng);
  else if (r < 0.98) return encodeFrame(rng.bytes(rng.size(4096)), { opcode: Opcode.binary });
  else {payload = encoder.encode(
      `{"type":"ping","pad":"${"x".repeat(rng.range(65_536, 1_000_000))}"}`,
    );}
  if (!isSafeInput(payload)) return null;
  try {
    strictUtf8.decode(payload);
  } catch {
    // Invalid UTF-8 in a text frame ends the connection (RFC 6455 8.1): send it as binary here.
    return encodeFrame(payload, { opcode: Opcode.binary });
  }
  return encodeFrame(payload, { opcode: Opcode.text });
}

/** A frame sequence that breaks RFC 6455, with its kind. */
export function malformedFrames(rng: Rng): { kind: string; bytes: Uint8Array } {
  const text = encoder.encode('{"type":"ping"}');
  const kinds: Array<[string, () => Uint8Array[]]> = [
    [
      "reserved opcode",
      () => [encodeFrame(text, { opcode: rng.pick([3, 4, 5, 6, 7, 11, 12, 15]) })],
    ],
    ["RSV bits", () => [encodeFrame(text, { opcode: Opcode.text, rsv: rng.range(1, 7) })]],
    ["unmasked", () => [encodeFrame(text, { opcode: Opcode.text, isMasked: false })]],
    [
      "long control frame",
      () => [encodeFrame(rng.bytes(rng.range(126, 2000)), { opcode: Opcode.ping })],
    ],
    ["fragmented control", () => [encodeFrame(text, { opcode: Opcode.ping, isFinal: false })]],
    ["lone continuation", () => [encodeFrame(text, { opcode: Opcode.continuation })]],
    [
      "invalid UTF-8 text",
      () => [encodeFrame(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]), { opcode: Opcode.text })],
    ],
    [
      "truncated frame",
      () => [encodeFrame(text, { opcode: Opcode.text, declaredLength: rng.range(100, 60_000) })],
    ],
    ["2^63 length", () => [encodeFrame(text, { opcode: Opcode.text, declaredLength: 2 ** 63 })]],
    ["1 TB length", () => [encodeFrame(text, { opcode: Opcode.text, declaredLength: 2 ** 40 })]],
    ["bad close", () => [
      encodeFrame(
        rng.pick([new Uint8Array([3, 231]), new Uint8Array([0, 1]), new Uint8Array([1])]),
        {
          opcode: Opcode.close,
        },
      ),
    ]],
    ["interleaved messages", () => [
      encodeFrame(text, { opcode: Opcode.text, isFinal: false }),
      encodeFrame(text, { opcode: Opcode.text }),
    ]],
    ["random bytes", () => [rng.bytes(rng.range(1, 2048))]],
    ["many fragments", () => {
      const n = rng.range(100, 20_000);
      return [
        encodeFrame(encoder.encode('{"type":'), { opcode: Opcode.text, isFinal: false }),
        ...Array.from(
          { length: n },
          () => encodeFrame(encoder.encode(" "), { opcode: 0, isFinal: false }),
        ),
        encodeFrame(encoder.encode('"ping"}'), { opcode: Opcode.continuation }),
      ];
    }],
    [
      "16 MiB message",
      () => [encodeFrame(new Uint8Array(16 * 1024 * 1024).fill(0x20), { opcode: Opcode.text })],
    ],
    ["unsolicited pong", () => [encodeFrame(rng.bytes(8), { opcode: Opcode.pong })]],
  ];
  const [kind, make] = rng.pick(kinds);
  const parts = make();
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return { kind, bytes: out };
}

/** An upgrade request on the WebSocket port with one thing wrong, with its kind. */
export function mutatedHandshake(port: number, rng: Rng): { kind: string; text: string } {
  const headers: Record<string, string> = {
    host: `127.0.0.1:${port}`,
    upgrade: "websocket",
    connection: "Upgrade",
    "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ==",
    "sec-websocket-version": "13",
  };
  let method = "GET";
  let path = "/v1";
  const kinds: Array<[string, () => void]> = [
    ["no key", () => delete headers["sec-websocket-key"]],
    ["bad key", () => (headers["sec-websocket-key"] = rng.pick(["", "!!!", "a".repeat(5000)]))],
    ["version 8", () => (headers["sec-websocket-version"] = rng.pick(["8", "", "13, 8", "99999"]))],
    ["no version", () => delete headers["sec-websocket-version"]],
    ["no connection", () => delete headers.connection],
    ["upgrade h2c", () => (headers.upgrade = "h2c")],
    ["POST", () => (method = rng.pick(["POST", "PUT", "DELETE", "OPTIONS"]))],
    ["other path", () => (path = rng.pick(["/", "/v2", "/v1/x", "/v1?token=a", "//v1", "/%ff"]))],
    ["evil origin", () => (headers.origin = "http://evil.example")],
    ["evil host", () => (headers.host = "evil.example")],
    ["protocols", () => (headers["sec-websocket-protocol"] = rng.string(rng.size(5000)))],
    [
      "extensions",
      () => (headers["sec-websocket-extensions"] = "permessage-deflate; client_max_window_bits=99"),
    ],
  ];
  const [kind, apply] = rng.pick(kinds);
  apply();
  const text = `${method} ${path} HTTP/1.1\r\n` +
    Object.entries(headers).map(([k, v]) => `${k}: ${v}\r\n`).join("") + "\r\n";
  return { kind, text };
}
