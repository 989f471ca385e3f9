import assert from "node:assert/strict";
import { type BytePipe, keptWriter, LineTransport, streamPipe } from "../../protocol/transport.ts";
import type { RpcError, RpcMessage } from "../../protocol/jsonrpc.ts";

Deno.test("LineTransport splits messages across and within chunks, and reports bad lines", async () => {
  const enc = new TextEncoder();
  const chunks = [
    '{"jsonrpc":"2.0","met',
    'hod":"a"}\n{"jsonrpc":"2.0","id":1,"result":3}\n\n',
    "not json\n",
    '{"x":1}\n',
  ];
  const readable = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
  const written: string[] = [];
  const writable = new WritableStream<Uint8Array>({
    write: (b) => void written.push(new TextDecoder().decode(b)),
  });
  const t = new LineTransport(streamPipe(readable, writable));
  const got: RpcMessage[] = [];
  const errors: string[] = [];
  let closed = 0;
  t.onmessage = (m) => got.push(m);
  t.onerror = (e) => errors.push(e.message);
  t.onclose = () => closed++;
  await t.start();
  assert.deepEqual(got, [{ jsonrpc: "2.0", method: "a" }, { jsonrpc: "2.0", id: 1, result: 3 }]);
  assert.equal(errors.length, 2);
  assert.match(errors[0]!, /^Line is not JSON: /);
  assert.match(errors[1]!, /not a JSON-RPC 2.0 object/);
  assert.equal(closed, 1);
  await t.send({ jsonrpc: "2.0", id: 2, result: null }); // the write side outlives the read side
  assert.deepEqual(written, ['{"jsonrpc":"2.0","id":2,"result":null}\n']);
  await t.close();
  await assert.rejects(t.send({ jsonrpc: "2.0", method: "x" }), /closed/);
});

Deno.test("LineTransport reads a byte stream into a reused buffer without mixing up lines", async () => {
  // Lines longer than the 64 KiB read buffer, split at odd places, in a byte stream
  // (what a child's stdout is): each read lands in the buffer the previous one used.
  const big = "x".repeat(150_000);
  const text = [1, 2, 3].map((id) => JSON.stringify({ jsonrpc: "2.0", id, result: big + id }))
    .join("\n") + "\n";
  const bytes = new TextEncoder().encode(text);
  let offset = 0;
  const readable = new ReadableStream({
    type: "bytes",
    pull(controller) {
      if (offset >= bytes.length) {
        controller.close();
        return controller.byobRequest?.respond(0); // ends the pending read
      }
      const end = Math.min(bytes.length, offset + 40_000 + (offset % 7));
      controller.enqueue(bytes.slice(offset, end));
      offset = end;
    },
  });
  const t = new LineTransport(streamPipe(readable, new WritableStream()));
  const got: RpcMessage[] = [];
  t.onmessage = (m) => got.push(m);
  await t.start();
  assert.deepEqual(got.map((m) => "result" in m ? m.result : null), [1, 2, 3].map((i) => big + i));
});

Deno.test("LineTransport refuses a line over its limit without quoting it and reads on after its newline", async () => {
  const line = (id: number, text = "") =>
    JSON.stringify({ jsonrpc: "2.0", id, result: text }) + "\n";
  const long = line(9, "a".repeat(500));
  const enc = new TextEncoder();
  const chunks = [line(1) + long.slice(0, 50), long.slice(50, 300), long.slice(300) + line(2)];
  const readable = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(enc.encode(chunk));
      c.close();
    },
  });
  const t = new LineTransport(streamPipe(readable, new WritableStream()), { maxLineBytes: 100 });
  const got: RpcMessage[] = [];
  const errors: Error[] = [];
  t.onmessage = (m) => got.push(m);
  t.onerror = (e) => errors.push(e);
  await t.start();
  assert.deepEqual(got.map((m) => "id" in m && m.id), [1, 2]);
  assert.deepEqual(errors.map((e) => [(e as RpcError).code, e.message]), [
    [-32600, "Line too long: over 100 bytes"],
  ]);
});

Deno.test("LineTransport reads lines over the buffer it keeps, one after another, each whole", async () => {
  // Over `retainBytes` (2 KiB here): the buffer of each is let go, and the next grows its own.
  const lines = [5_000, 70_000, 3_000].map((n, i) =>
    JSON.stringify({ jsonrpc: "2.0", id: i, result: String(i).repeat(n) })
  );
  const bytes = new TextEncoder().encode(lines.join("\n") + "\n");
  const readable = new ReadableStream<Uint8Array>({
    start(c) {
      for (let at = 0; at < bytes.length; at += 1_000) c.enqueue(bytes.slice(at, at + 1_000));
      c.close();
    },
  });
  const t = new LineTransport(streamPipe(readable, new WritableStream()), { retainBytes: 2048 });
  const got: RpcMessage[] = [];
  t.onmessage = (m) => got.push(m);
  await t.start();
  assert.deepEqual(got.map((m) => JSON.stringify(m)), lines);
});

Deno.test("LineTransport reads a pipe that listens: each read split at once, a throw ends the read", async () => {
  const encoder = new TextEncoder();
  const buffer = new Uint8Array(64);
  let listens = 0;
  const pipe = (chunks: string[]): BytePipe => ({
    read: () => Promise.reject(new Error("read() called on a pipe that listens")),
    write: () => Promise.resolve(),
    close: () => Promise.resolve(),
    listen(onBytes) {
      listens++;
      for (const chunk of chunks) {
        buffer.fill(0x23); // '#': what a view kept past its call would read
        const bytes = encoder.encode(chunk);
        buffer.set(bytes);
        try {
          onBytes(buffer.subarray(0, bytes.length));
        } catch (error) {
          return Promise.reject(error);
        }
      }
      return Promise.resolve();
    },
  });
  const t = new LineTransport(
    pipe(['{"jsonrpc":"2.0","met', 'hod":"a"}\n{"jsonrpc":"2.0",', '"method":"b"}\n']),
  );
  const got: RpcMessage[] = [];
  t.onmessage = (m) => got.push(m);
  await t.start();
  assert.deepEqual(got, [{ jsonrpc: "2.0", method: "a" }, { jsonrpc: "2.0", method: "b" }]);
  assert.equal(listens, 1);
  // A throw of the handler ends the read, as it ends a loop of reads: reported, then closed.
  const failing = new LineTransport(
    pipe(['{"jsonrpc":"2.0","method":"a"}\n', '{"jsonrpc":"2.0","method":"b"}\n']),
  );
  const errors: string[] = [];
  let closed = 0;
  failing.onmessage = () => {
    throw new Error("handler failed");
  };
  failing.onerror = (e) => errors.push(e.message);
  failing.onclose = () => closed++;
  await failing.start();
  assert.deepEqual(errors, ["handler failed"]);
  assert.equal(closed, 1);
});

Deno.test("keptWriter reuses one buffer once its write resolved, and never overwrites one being written", async () => {
  const dec = new TextDecoder();
  const writes: Array<{ bytes: Uint8Array; done: PromiseWithResolvers<void> }> = [];
  const writeText = keptWriter((bytes) => {
    const done = Promise.withResolvers<void>();
    writes.push({ bytes, done });
    return done.promise;
  }, 64);
  const first = writeText("\u00e91\n");
  const second = writeText("b\n"); // the first still being written: its own array
  assert.equal(dec.decode(writes[0]!.bytes), "\u00e91\n");
  assert.equal(dec.decode(writes[1]!.bytes), "b\n");
  assert.notEqual(writes[1]!.bytes.buffer, writes[0]!.bytes.buffer);
  writes[0]!.done.resolve();
  writes[1]!.done.resolve();
  await Promise.all([first, second]);
  const third = writeText("c\n");
  assert.equal(writes[2]!.bytes.buffer, writes[0]!.bytes.buffer, "the kept buffer, free again");
  assert.equal(dec.decode(writes[2]!.bytes), "c\n");
  writes[2]!.done.reject(new Error("pipe closed"));
  await assert.rejects(third, /pipe closed/);
  writeText("x".repeat(30)); // may not fit 64 bytes as UTF-8 (3 a unit): its own array
  assert.notEqual(writes[3]!.bytes.buffer, writes[0]!.bytes.buffer);
  writeText("d\n"); // free again after a failed write
  assert.equal(writes[4]!.bytes.buffer, writes[0]!.bytes.buffer);
});
