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
  await new Promise((r) => setTimeout(r, 0));
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
  await new Promise((r) => setTimeout(r, 0));
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
