import assert from "node:assert/strict";
import { RpcError, type RpcMessage } from "../../protocol/jsonrpc.ts";
import type { BytePipe } from "../../protocol/transport.ts";
import {
  MAX_REQUEST_DEPTH,
  MAX_REQUEST_LINE_BYTES,
  RequestTransport,
  type RequestTransportOptions,
} from "../../player/request_transport.ts";

const encoder = new TextEncoder();

/**
 * A pipe that returns `chunks` one per read, each in the same reused buffer
 * (as stdin is read): a view kept past the next read would be overwritten.
 */
function reusedBufferPipe(chunks: Array<string | Uint8Array>): BytePipe & { written: string[] } {
  const bytes = chunks.map((c) => typeof c === "string" ? encoder.encode(c) : c);
  const buffer = new Uint8Array(Math.max(1, ...bytes.map((b) => b.length)));
  const written: string[] = [];
  let next = 0;
  return {
    written,
    read() {
      buffer.fill(0x23); // '#': what a stale view would read
      const chunk = bytes[next++];
      if (!chunk) return Promise.resolve(null);
      buffer.set(chunk);
      return Promise.resolve(buffer.subarray(0, chunk.length));
    },
    write(data) {
      written.push(new TextDecoder().decode(data));
      return Promise.resolve();
    },
    close: () => Promise.resolve(),
  };
}

/** Reads every chunk through a transport; the messages and errors it reported. */
async function readAll(chunks: Array<string | Uint8Array>, options: RequestTransportOptions = {}) {
  const transport = new RequestTransport(reusedBufferPipe(chunks), options);
  const messages: RpcMessage[] = [];
  const errors: RpcError[] = [];
  transport.onmessage = (m) => messages.push(m);
  transport.onerror = (e) => errors.push(e as RpcError);
  await transport.start();
  return { messages, errors };
}

const request = (id: number, params: unknown = {}) =>
  JSON.stringify({ jsonrpc: "2.0", id, method: "state.get", params }) + "\n";

Deno.test("RequestTransport splits lines within and across reads, a character split between two", async () => {
  const line = request(2, { name: "Zo\u00eb \u4e2d" });
  const bytes = encoder.encode(line);
  const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of the e with diaeresis
  const { messages, errors } = await readAll([
    request(1) + "\n  \n" + line.slice(0, 10),
    bytes.slice(10, split),
    bytes.slice(split),
    request(3).slice(0, 20),
    request(3).slice(20) + request(4),
  ]);
  assert.deepEqual(errors, []);
  assert.deepEqual(messages.map((m) => "id" in m && m.id), [1, 2, 3, 4]);
  assert.deepEqual((messages[1] as { params: unknown }).params, { name: "Zo\u00eb \u4e2d" });
});

Deno.test("RequestTransport refuses a line over the limit with -32600 and reads on after its newline", async () => {
  const long = request(9, { text: "a".repeat(500) });
  const { messages, errors } = await readAll([
    request(1) + long.slice(0, 50),
    long.slice(50, 300), // over 100 bytes here: refused, the rest skipped
    long.slice(300) + request(2),
    request(3) + request(4) + long + request(5), // a long line inside one read
  ], { maxLineBytes: 100 });
  assert.deepEqual(messages.map((m) => "id" in m && m.id), [1, 2, 3, 4, 5]);
  assert.equal(errors.length, 2);
  for (const error of errors) {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32600);
    assert.equal(error.message, "Request line too long: over 100 bytes");
  }
});

Deno.test("RequestTransport reads a line of MAX_REQUEST_LINE_BYTES and refuses one byte more", async () => {
  const head = '{"jsonrpc":"2.0","id":1,"method":"x","params":"';
  const fill = MAX_REQUEST_LINE_BYTES - head.length - 2;
  const line = (n: number) => encoder.encode(`${head}${"a".repeat(n)}"}\n`);
  const chunks = (bytes: Uint8Array) =>
    Array.from(
      { length: Math.ceil(bytes.length / 65536) },
      (_, i) => bytes.subarray(i * 65536, (i + 1) * 65536),
    );
  const { messages, errors } = await readAll([
    ...chunks(line(fill)),
    ...chunks(line(fill + 1)),
    request(2),
  ]);
  assert.deepEqual(messages.map((m) => "id" in m && m.id), [1, 2]);
  assert.equal((messages[0] as { params: string }).params.length, fill);
  assert.deepEqual(errors.map((e) => e.code), [-32600]);
});

Deno.test("RequestTransport refuses nesting over the limit unparsed; brackets in strings do not count", async () => {
  const nested = (depth: number) => "[".repeat(depth) + "]".repeat(depth);
  const { messages, errors } = await readAll([
    request(1, { deep: JSON.parse(nested(MAX_REQUEST_DEPTH - 2)) }), // at the limit, with the request's
    request(2, { deep: JSON.parse(nested(MAX_REQUEST_DEPTH)) }),
    request(3, { text: "[".repeat(5000) + '\\"' + "{".repeat(5000) }),
    `{"jsonrpc":"2.0","id":4,"method":"x","params":${"[".repeat(400_000)}}\n`,
    request(5),
  ]);
  assert.deepEqual(messages.map((m) => "id" in m && m.id), [1, 3, 5]);
  assert.deepEqual(errors.map((e) => [e.code, e.message]), [
    [-32600, "Request nested too deep: over 1000 levels of arrays and objects"],
    [-32600, "Request nested too deep: over 1000 levels of arrays and objects"],
  ]);
});

Deno.test("RequestTransport reports a line that is no JSON as -32700 without quoting it whole", async () => {
  const garbage = "x".repeat(1_000_000);
  const { messages, errors } = await readAll([
    `${garbage}\n{"jsonrpc":"2.0"`,
    `,"id":1}\n[1]\n${request(2)}`,
  ]);
  assert.deepEqual(messages.map((m) => "id" in m && m.id), [2]);
  assert.deepEqual(errors.map((e) => e.code), [-32700, -32600, -32600]);
  assert.match(errors[0]!.message, /^Line is not JSON: /);
  assert.ok(errors[0]!.message.length < 300, `${errors[0]!.message.length} characters`);
});

Deno.test("RequestTransport answers after its input ended, until closed", async () => {
  const pipe = reusedBufferPipe([request(1)]);
  const transport = new RequestTransport(pipe);
  let closed = 0;
  transport.onclose = () => closed++;
  await transport.start();
  assert.equal(closed, 1);
  await transport.sendMany([
    { jsonrpc: "2.0", id: 1, result: {} },
    { jsonrpc: "2.0", method: "log", params: { level: "info", message: "\u00e9" } },
  ]);
  assert.deepEqual(pipe.written, [
    '{"jsonrpc":"2.0","id":1,"result":{}}\n' +
    '{"jsonrpc":"2.0","method":"log","params":{"level":"info","message":"\u00e9"}}\n',
  ]);
  await transport.close();
  assert.equal(closed, 1);
  await assert.rejects(transport.send({ jsonrpc: "2.0", id: 2, result: {} }), /closed/);
});
