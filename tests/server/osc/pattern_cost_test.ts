/**
 * What one OSC message may cost: a pattern takes one unit of the rate budget
 * per address it matches, and the values it sets reach the player coalesced
 * (the last value of each Control per round trip), so no sender can queue
 * more than the player takes.
 */
import assert from "node:assert/strict";
import { Method } from "../../../protocol/methods.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { OscPeer } from "./_peer.ts";
import { ValueCoalescer, valueKey } from "../../../server/osc/coalesce.ts";

Deno.test("OSC: a pattern costs the rate budget one unit per address it matches", async () => {
  // A datagram costs 1/10 of a request, the burst is 2 requests: 20 addresses at once.
  const svc = await startTestService({
    oscAllow: ["127.0.0.2"],
    httpRatePerSecond: 1,
    httpBurst: 2,
    oscRatePerSecond: 10,
  });
  const desk = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  try {
    const all = await desk.ask("/control/*", [0.5]);
    assert.equal(all.status, "error");
    assert.equal(all.data.code, "RATE_LIMITED", "26 addresses cost more than the burst of 20");
    const controls = (await svc.get("/api/v1/projects/show/playstate")).body.controls;
    assert.equal(controls.A, undefined, "nothing of the refused pattern ran");
    const some = await desk.ask("/control/{A,B,C}", [0.25]);
    assert.equal(some.status, "ok");
    await until("A, B and C set", async () => {
      const now = (await svc.get("/api/v1/projects/show/playstate")).body.controls;
      return now.A === 0.25 && now.B === 0.25 && now.C === 0.25;
    });
  } finally {
    await desk.close();
    await svc.stop();
  }
});

Deno.test("OSC: a stream of /control/* reaches the player coalesced, the last value of each Control applied", async () => {
  const svc = await startTestService();
  const supervisor = svc.service.supervisor;
  const request = supervisor.request.bind(supervisor);
  let actions = 0;
  supervisor.request = ((method, params, options) => {
    if (method === Method.ACTION_RUN) actions++;
    return request(method, params, options);
  }) as typeof supervisor.request;
  const desk = OscPeer.open(svc.service.ports.osc);
  try {
    const sent = 200;
    for (let i = 1; i <= sent; i++) await desk.send("/control/*", [i / sent]);
    await until("every Control at the last value", async () => {
      const controls = (await svc.get("/api/v1/projects/show/playstate")).body.controls;
      return [..."ABCDEFGHIJKLMNOPQRSTUVWXYZ"].every((letter) => controls[letter] === 1);
    });
    assert.ok(
      actions < (26 * sent) / 4,
      `${actions} player calls for ${26 * sent} values: they were not coalesced`,
    );
  } finally {
    supervisor.request = request;
    await desk.close();
    await svc.stop();
  }
});

Deno.test("ValueCoalescer runs one call per key at a time; the latest waiting one runs next, and those it replaced get its outcome", async () => {
  const values = new ValueCoalescer();
  const started: number[] = [];
  const gates: Array<() => void> = [];
  const call = (n: number) => () => {
    started.push(n);
    return new Promise((resolve) => gates.push(() => resolve(n)));
  };
  const first = values.run("A", call(1));
  const second = values.run("A", call(2));
  const third = values.run("A", call(3));
  const other = values.run("B", call(9));
  assert.deepEqual(started, [1, 9], "one call per key runs; B does not wait for A");
  gates.shift()!(); // 1 answers: the latest waiting value (3) goes, 2 never does
  assert.equal(await first, 1);
  assert.deepEqual(started, [1, 9, 3]);
  gates.shift()!(); // 9
  gates.shift()!(); // 3
  assert.deepEqual([await other, await second, await third], [9, 3, 3]);
  assert.equal(values.size, 0);
  assert.equal(valueKey({ name: "SET_CONTROL", params: ["a", 1] }), "SET_CONTROL||A");
  assert.equal(valueKey({ name: "PLAY_IN", params: [] }), null);
});
