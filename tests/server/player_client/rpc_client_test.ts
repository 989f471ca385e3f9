import assert from "node:assert/strict";
import { memoryTransportPair } from "../../../protocol/transport.ts";
import { RpcError, type RpcMessage } from "../../../protocol/jsonrpc.ts";
import { RpcClient } from "../../../server/player_client/rpc_client.ts";
import { CueportError } from "../../../server/core/errors.ts";

function peer() {
  const [clientSide, playerSide] = memoryTransportPair();
  const received: RpcMessage[] = [];
  playerSide.onmessage = (m) => received.push(m);
  void playerSide.start();
  const client = new RpcClient(clientSide, { timeoutMs: 50 });
  void client.start();
  return { client, playerSide, received };
}

Deno.test("RpcClient.request() rejects with TIMEOUT when the player does not answer", async () => {
  const { client } = peer();
  const error = await client.request("state.get").catch((e) => e);
  assert.ok(error instanceof CueportError);
  assert.equal(error.code, "TIMEOUT");
  assert.equal(client.pendingCount, 0);
  await client.close();
});

Deno.test("RpcClient rejects every pending request when the pipe closes mid-request", async () => {
  const { client, playerSide } = peer();
  const a = client.request("action.run", {}, { timeoutMs: 10_000 });
  const b = client.request("state.get", undefined, { timeoutMs: 10_000 });
  await playerSide.close();
  for (const p of [a, b]) {
    const error = await p.catch((e: CueportError) => e) as CueportError;
    assert.equal(error.code, "NOT_READY");
    assert.match(error.message, /stopped before answering/);
  }
  const after = await client.request("state.get").catch((e: CueportError) => e) as CueportError;
  assert.equal(after.code, "NOT_READY");
});

Deno.test("RpcClient delivers notifications before the response that follows them", async () => {
  const { client, playerSide, received } = peer();
  const order: string[] = [];
  client.onnotification = (method) => order.push(`notification ${method}`);
  const reply = client.request("action.run", {}, { onResponse: () => order.push("response read") })
    .then(() => order.push("request resolved"));
  await until(() => received.length > 0); // the request goes out with the next batch
  const id = (received[0] as { id: number }).id;
  await playerSide.send({ jsonrpc: "2.0", method: "state.update", params: { updates: [] } });
  await playerSide.send({ jsonrpc: "2.0", id, result: { applied: true } });
  await reply;
  assert.deepEqual(order, ["notification state.update", "response read", "request resolved"]);
  await client.close();
});

Deno.test("RpcClient turns an error response into an RpcError with code and message", async () => {
  const { client, playerSide, received } = peer();
  const reply = client.request("action.run", {}).catch((e) => e);
  await until(() => received.length > 0); // the request goes out with the next batch
  const id = (received[0] as { id: number }).id;
  await playerSide.send({
    jsonrpc: "2.0",
    id,
    error: { code: -32000, message: "Nothing is playing" },
  });
  const error = await reply;
  assert.ok(error instanceof RpcError);
  assert.deepEqual([error.code, error.message], [-32000, "Nothing is playing"]);
  await client.close();
});

/** Polls `condition` every few ms, for at most `ms`. */
async function until(condition: () => boolean, ms = 5000): Promise<void> {
  const deadline = performance.now() + ms;
  while (!condition()) {
    if (performance.now() > deadline) throw new Error("Condition not met in time");
    await new Promise((r) => setTimeout(r, 2));
  }
}

Deno.test("RpcClient: request.progress restarts the timeout of the request it names, only", async () => {
  const { client, playerSide, received } = peer();
  const reports: Array<[number, number | null]> = [];
  const started = performance.now();
  let isBusyDone = false;
  const busy = client.request("edit.apply", {}, {
    onProgress: (progress, total) => reports.push([progress, total]),
  }).finally(() => (isBusyDone = true));
  let idleError: CueportError | undefined;
  void client.request("state.get").catch((e) => (idleError = e));
  await until(() => received.length === 2);
  const id = (received[0] as { id: number }).id;
  // Report progress until the other request has timed out and this one has
  // outlived three of its timeouts.
  let step = 0;
  while (!idleError || performance.now() - started < 150) {
    assert.ok(performance.now() - started < 5000, "the other request timed out in time");
    await playerSide.send({
      jsonrpc: "2.0",
      method: "request.progress",
      params: { id, progress: ++step, total: 1000 },
    });
    await new Promise((r) => setTimeout(r, 5));
  }
  assert.equal(idleError!.code, "TIMEOUT", "progress for one request moves no other deadline");
  assert.equal(isBusyDone, false, "the request that advances has not timed out");
  await playerSide.send({ jsonrpc: "2.0", id, result: { ok: true } });
  assert.deepEqual(await busy, { ok: true });
  assert.deepEqual(reports.slice(0, 2), [[1, 1000], [2, 1000]]);
  await client.close();
});

Deno.test("RpcClient counts a timeout toward a hang only when no older request is pending", async () => {
  const { client, playerSide, received } = peer();
  const counts: number[] = [];
  client.ontimeout = (inRow) => counts.push(inRow);
  // A long request (a 1.0 player copying a file in order) holds the ones after it.
  const long = client.request("edit.apply", {}, { timeoutMs: 10_000 });
  const queued = [1, 2, 3].map(() =>
    client.request("action.run", {}).catch((e: CueportError) => e) as Promise<CueportError>
  );
  for (const error of await Promise.all(queued)) assert.equal(error.code, "TIMEOUT");
  assert.deepEqual(counts, [], "waiting behind an older request is not hanging");
  await playerSide.send({ jsonrpc: "2.0", id: (received[0] as { id: number }).id, result: {} });
  await long;
  const alone = await client.request("action.run", {}).catch((e: CueportError) =>
    e
  ) as CueportError;
  assert.equal(alone.code, "TIMEOUT");
  assert.deepEqual(counts, [1]);
  await client.close();
});
