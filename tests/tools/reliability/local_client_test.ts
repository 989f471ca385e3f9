import assert from "node:assert/strict";
import { requestText } from "../../../tools/reliability/_exchange.ts";
import { LocalClient } from "../../../tools/reliability/_local_client.ts";

/**
 * A server on a thread of its own: it answers while the test's thread is blocked, and flags
 * `done` once the client has closed its connection (the client's exchange is over).
 */
const SERVER = `
self.onmessage = async ({ data: { done } }) => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  self.postMessage(listener.addr.port);
  const conn = await listener.accept();
  const buffer = new Uint8Array(4096);
  let text = "";
  while (!text.includes("\\r\\n\\r\\n")) {
    const n = await conn.read(buffer);
    if (n === null) break;
    text += new TextDecoder().decode(buffer.subarray(0, n));
  }
  await conn.write(new TextEncoder().encode(
    "HTTP/1.1 200 OK\\r\\ncontent-length: 2\\r\\nconnection: close\\r\\n\\r\\nok",
  ));
  await conn.closeWrite();
  try {
    while ((await conn.read(buffer)) !== null);
  } catch {
    // reset by the client: closed all the same
  }
  Atomics.store(done, 0, 1);
  Atomics.notify(done, 0);
};`;

Deno.test("LocalClient.exchange() runs and times the exchange on its own thread, not the caller's turn", async () => {
  const url = URL.createObjectURL(new Blob([SERVER], { type: "text/javascript" }));
  const server = new Worker(url, { type: "module" });
  const client = new LocalClient();
  try {
    const done = new Int32Array(new SharedArrayBuffer(4));
    const { promise: listening, resolve } = Promise.withResolvers<number>();
    server.onmessage = (event) => resolve(event.data);
    server.postMessage({ done });
    const port = await listening;
    const started = performance.now();
    const outcome = client.exchange({
      port,
      data: requestText("GET", "/", { host: `127.0.0.1:${port}` }),
      answerWithinMs: 30_000,
      timeoutMs: 30_000,
    });
    // The caller's thread is held (a probe that floods, starved) from the call: the whole
    // exchange happens while it is, up to the client's close (the 30 s only bound a failure).
    assert.equal(
      Atomics.wait(done, 0, 0, 30_000),
      "ok",
      "the exchange ran while the caller was held",
    );
    // Then held a second more: an answer timed on the caller's turn would count it.
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1000);
    const heldUntil = performance.now() - started;
    const { status, text, ms } = await outcome;
    assert.equal(status, 200);
    assert.match(text, /ok$/);
    assert.ok(
      ms < heldUntil,
      `timed ${ms} ms, ending before the caller was let go at ${heldUntil} ms`,
    );
  } finally {
    client.close();
    server.terminate();
    URL.revokeObjectURL(url);
  }
});
