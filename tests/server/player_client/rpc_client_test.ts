import assert from "node:assert/strict";
import { memoryTransportPair } from "../../../protocol/transport.ts";
import { RpcError, type RpcMessage } from "../../../protocol/jsonrpc.ts";
import { RpcClient } from "../../../server/player_client/rpc_client.ts";
import { CueportError } from "../../../server/core/errors.ts";

function peer() {
  const [clientSide, playerSide] = memoryTransportPair();
  const received: RpcMessage[] = [];
  let wake = () => {};
  playerSide.onmessage = (m) => {
    received.push(m);
    wake();
  };
  /** Resolves once the player has received `n` messages: each message wakes it, no clock. */
  const receivedAtLeast = async (n: number) => {
    while (received.length < n) await new Promise<void>((resolve) => wake = resolve);
  };
  void playerSide.start();
  let now = 0;
  const client = new RpcClient(clientSide, { now: () => now });
  const setNow = (ms: number) => (now = ms);
  void client.start();
  return { client, playerSide, received, receivedAtLeast, setNow };
}

Deno.test("RpcClient.request() has no deadline: an answer that comes late is the answer", async () => {
  const { client, playerSide, received, receivedAtLeast, setNow } = peer();
  const answers: Array<[string, number]> = [];
  client.onanswer = (method, ms) => answers.push([method, ms]);
  const reply = client.request("edit.apply", {});
  await receivedAtLeast(1);
  setNow(3_600_000); // an hour on the client's clock
  await playerSide.send({ jsonrpc: "2.0", id: (received[0] as { id: number }).id, result: 7 });
  assert.equal(await reply, 7);
  assert.deepEqual(answers, [["edit.apply", 3_600_000]]);
  assert.equal(client.lastProgressAt, 3_600_000);
  await client.close();
});

Deno.test("RpcClient rejects every pending request when the pipe closes mid-request", async () => {
  const { client, playerSide } = peer();
  const a = client.request("action.run", {});
  const b = client.request("state.get", undefined);
  await playerSide.close();
  for (const [p, method] of [[a, "action.run"], [b, "state.get"]] as const) {
    const error = await p.catch((e: CueportError) => e) as CueportError;
    assert.equal(error.code, "NOT_READY");
    assert.equal(
      error.message,
      `The player stopped before answering ${method}, so whether it was done is unknown: send it again with the same Idempotency-Key to get its outcome`,
    );
  }
  const after = await client.request("state.get").catch((e: CueportError) => e) as CueportError;
  assert.equal(after.code, "NOT_READY");
});

Deno.test("RpcClient delivers notifications before the response that follows them", async () => {
  const { client, playerSide, received, receivedAtLeast } = peer();
  const order: string[] = [];
  client.onnotification = (method) => order.push(`notification ${method}`);
  const reply = client.request("action.run", {}, { onResponse: () => order.push("response read") })
    .then(() => order.push("request resolved"));
  await receivedAtLeast(1); // the request goes out with the next batch
  const id = (received[0] as { id: number }).id;
  await playerSide.send({ jsonrpc: "2.0", method: "state.update", params: { updates: [] } });
  await playerSide.send({ jsonrpc: "2.0", id, result: { applied: true } });
  await reply;
  assert.deepEqual(order, ["notification state.update", "response read", "request resolved"]);
  await client.close();
});

Deno.test("RpcClient turns an error response into an RpcError with code and message", async () => {
  const { client, playerSide, received, receivedAtLeast } = peer();
  const reply = client.request("action.run", {}).catch((e) => e);
  await receivedAtLeast(1); // the request goes out with the next batch
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

Deno.test("RpcClient: request.progress is progress of the request it names; a heartbeat's answer is a message, not progress", async () => {
  const { client, playerSide, received, receivedAtLeast, setNow } = peer();
  const reports: Array<[number, number | null]> = [];
  const busy = client.request("edit.apply", {}, {
    onProgress: (progress, total) => reports.push([progress, total]),
  });
  const beat = client.request("heartbeat");
  await receivedAtLeast(2);
  const [id, beatId] = received.map((m) => (m as { id: number }).id);
  setNow(1000);
  await playerSide.send({ jsonrpc: "2.0", id: beatId!, result: {} });
  await beat;
  assert.deepEqual([client.lastMessageAt, client.lastProgressAt], [1000, 0]);
  setNow(2000);
  await playerSide.send({
    jsonrpc: "2.0",
    method: "request.progress",
    params: { id, progress: 1, total: 1000 },
  });
  assert.deepEqual([client.lastMessageAt, client.lastProgressAt], [2000, 2000]);
  assert.deepEqual(client.oldestPending(), { method: "edit.apply", forMs: 2000 });
  assert.deepEqual(reports, [[1, 1000]]);
  await playerSide.send({ jsonrpc: "2.0", id: id!, result: { ok: true } });
  assert.deepEqual(await busy, { ok: true });
  await client.close();
});

Deno.test("RpcClient.abandon() answers what was pending NOT_READY, saying the player was declared hung", async () => {
  const { client, receivedAtLeast } = peer();
  const pending = client.request("edit.apply", {}).catch((e: CueportError) => e);
  await receivedAtLeast(1);
  await client.abandon("was declared hung");
  const error = await pending as CueportError;
  assert.equal(error.code, "NOT_READY");
  assert.match(
    error.message,
    /^The player was declared hung before answering edit\.apply, so whether/,
  );
  assert.equal(client.pendingCount, 0);
});

Deno.test("RpcClient.batchesActions: the actions of one write go as one action.batch between the other requests, each settled by its entry", async () => {
  const { client, playerSide, received, receivedAtLeast } = peer();
  client.batchesActions = true;
  const answers: string[] = [];
  client.onanswer = (method) => answers.push(method);
  const a = client.request("action.run", { name: "A" });
  const b = client.request("action.run", { name: "B" }).catch((e: RpcError) => e);
  const state = client.request("state.get");
  const c = client.request("action.run", { name: "C" });
  await receivedAtLeast(3);
  const [batch, get, alone] = received as Array<{ id: number; method: string; params: unknown }>;
  assert.deepEqual([batch!.method, get!.method, alone!.method], [
    "action.batch",
    "state.get",
    "action.run",
  ]);
  assert.deepEqual(batch!.params, { actions: [{ name: "A" }, { name: "B" }] });
  assert.deepEqual(alone!.params, { name: "C" }, "an action alone goes as action.run");
  assert.equal(client.pendingCount, 4, "each action waits for its own answer");
  await playerSide.send({
    jsonrpc: "2.0",
    id: batch!.id,
    result: {
      outcomes: [
        { applied: true, message: "a" },
        { error: { code: -32000, message: "no", data: { x: 1 } } },
      ],
    },
  });
  assert.deepEqual(await a, { applied: true, message: "a" });
  const refused = await b as RpcError;
  assert.ok(refused instanceof RpcError);
  assert.deepEqual([refused.code, refused.message, refused.data], [-32000, "no", { x: 1 }]);
  assert.deepEqual(answers, ["action.run", "action.run"]);
  await playerSide.send({ jsonrpc: "2.0", id: get!.id, result: {} });
  await playerSide.send({
    jsonrpc: "2.0",
    id: alone!.id,
    result: { applied: false, message: "c" },
  });
  await Promise.all([state, c]);
  assert.equal(client.pendingCount, 0);
  await client.close();
});

Deno.test("RpcClient.batchesActions: an error answer to a batch refuses each action; an entry missing is a player error; a closed pipe answers NOT_READY", async () => {
  const { client, playerSide, received, receivedAtLeast } = peer();
  client.batchesActions = true;
  const run = () => client.request("action.run", {}).catch((e: RpcError | CueportError) => e);
  const first = [run(), run()];
  await receivedAtLeast(1);
  const id = (n: number) => (received[n] as { id: number }).id;
  await playerSide.send({
    jsonrpc: "2.0",
    id: id(0),
    error: { code: -32602, message: "Invalid params for action.batch: params.actions: Too big" },
  });
  for (const error of await Promise.all(first)) {
    assert.ok(error instanceof RpcError);
    assert.equal(error.code, -32602);
  }
  const second = [run(), run()];
  await receivedAtLeast(2);
  await playerSide.send({
    jsonrpc: "2.0",
    id: id(1),
    result: { outcomes: [{ applied: true, message: "one" }] },
  });
  assert.deepEqual(await second[0], { applied: true, message: "one" });
  const missing = await second[1] as RpcError;
  assert.equal(missing.code, -32603);
  assert.match(missing.message, /without an outcome for this action/);
  const third = [run(), run()];
  await receivedAtLeast(3);
  await playerSide.close();
  for (const error of await Promise.all(third)) {
    assert.equal((error as CueportError).code, "NOT_READY");
  }
});

Deno.test("RpcClient.batchesActions: a malformed entry (null, not an object) is an entry without an outcome; the actions after it go on", async () => {
  const { client, playerSide, received, receivedAtLeast } = peer();
  client.batchesActions = true;
  const run = () => client.request("action.run", {}).catch((e: RpcError) => e);
  const first = run();
  await receivedAtLeast(1);
  const batched = [run(), run(), run()];
  await playerSide.send({ jsonrpc: "2.0", id: (received[0] as { id: number }).id, result: {} });
  await first;
  await receivedAtLeast(2);
  const batch = received[1] as { id: number; method: string };
  assert.equal(batch.method, "action.batch");
  const held = run(); // goes while the batch is out
  await playerSide.send({
    jsonrpc: "2.0",
    id: batch.id,
    result: { outcomes: [null, 7, { applied: true, message: "c" }] },
  });
  const [a, b, c] = await Promise.all(batched);
  for (const error of [a, b]) {
    assert.ok(error instanceof RpcError);
    assert.match(error.message, /without an outcome for this action/);
  }
  assert.deepEqual(c, { applied: true, message: "c" });
  await receivedAtLeast(3);
  await playerSide.send({ jsonrpc: "2.0", id: (received[2] as { id: number }).id, result: {} });
  assert.deepEqual(await held, {});
  assert.equal(client.pendingCount, 0);
  await client.close();
});

Deno.test("RpcClient without batchesActions (a player before 1.11) sends each action as action.run", async () => {
  const { client, received, receivedAtLeast } = peer();
  void client.request("action.run", { name: "A" }).catch(() => {});
  void client.request("action.run", { name: "B" }).catch(() => {});
  await receivedAtLeast(2);
  assert.deepEqual(received.map((m) => (m as { method: string }).method), [
    "action.run",
    "action.run",
  ]);
  await client.close();
});

Deno.test("RpcClient.batchesActions: actions do not wait for the actions out: a later turn's go at once, as their own batch, and are answered in any order", async () => {
  const { client, playerSide, received, receivedAtLeast } = peer();
  client.batchesActions = true;
  const run = (name: string) => client.request("action.run", { name });
  const a = run("A");
  await receivedAtLeast(1);
  const [b, c] = [run("B"), run("C")];
  await receivedAtLeast(2); // A is not answered
  const batch = received[1] as { id: number; method: string; params: unknown };
  assert.equal(batch.method, "action.batch");
  assert.deepEqual(batch.params, { actions: [{ name: "B" }, { name: "C" }] });
  const d = run("D");
  const state = client.request("state.get");
  await receivedAtLeast(3); // neither A nor the batch answered
  assert.equal((received[2] as { method: string }).method, "action.run");
  assert.equal((received[3] as { method: string }).method, "state.get");
  const outcomes = [{ applied: true, message: "b" }, { applied: true, message: "c" }];
  await playerSide.send({ jsonrpc: "2.0", id: batch.id, result: { outcomes } });
  for (
    const [m, result] of [
      [received[0], { applied: true, message: "a" }],
      [received[2], { applied: true, message: "d" }],
      [received[3], {}],
    ]
  ) await playerSide.send({ jsonrpc: "2.0", id: (m as { id: number }).id, result });
  assert.deepEqual(await Promise.all([a, b, c, d, state]), [
    { applied: true, message: "a" },
    ...outcomes,
    { applied: true, message: "d" },
    {},
  ]);
  assert.equal(client.pendingCount, 0);
  await client.close();
});
