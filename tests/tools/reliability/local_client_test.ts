import assert from "node:assert/strict";
import { requestText } from "../../../tools/reliability/_exchange.ts";
import { LocalClient } from "../../../tools/reliability/_local_client.ts";

/** A server on a thread of its own: it answers while the test's thread is blocked. */
const SERVER = `
self.onmessage = ({ data: { answered } }) => {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: ({ port }) => self.postMessage(port) }, () => {
    queueMicrotask(() => { Atomics.store(answered, 0, 1); Atomics.notify(answered, 0); });
    return new Response("ok");
  });
};`;

Deno.test("LocalClient.exchange() times the service on its own thread, not the caller's turn", async () => {
  const url = URL.createObjectURL(new Blob([SERVER], { type: "text/javascript" }));
  const server = new Worker(url, { type: "module" });
  const client = new LocalClient();
  try {
    const answered = new Int32Array(new SharedArrayBuffer(4));
    const { promise: listening, resolve } = Promise.withResolvers<number>();
    server.onmessage = (event) => resolve(event.data);
    server.postMessage({ answered });
    const port = await listening;
    const started = performance.now();
    const outcome = client.exchange({
      port,
      data: requestText("GET", "/", { host: `127.0.0.1:${port}` }),
      answerWithinMs: 30_000,
      timeoutMs: 30_000,
    });
    // The caller's thread is held (a probe that floods, starved): until the answer, then 2 s
    // more. Timed on this thread, the request took all of it; on its own, not the 2 s after.
    Atomics.wait(answered, 0, 0, 30_000);
    const answeredAfter = performance.now() - started;
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, answeredAfter + 2000);
    const held = performance.now() - started;
    const { status, ms } = await outcome;
    assert.equal(status, 200);
    assert.ok(ms < held - 1000, `timed ${ms} ms while the caller was held ${held} ms`);
  } finally {
    client.close();
    server.terminate();
    URL.revokeObjectURL(url);
  }
});
