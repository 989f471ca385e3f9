import assert from "node:assert/strict";
import { bigProject } from "../../../bench/big_project.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { RawSocket, TestSocket } from "../../../tools/testing/ws_client.ts";
import { until } from "../../../tools/testing/until.ts";

/**
 * `promise`, or a failure naming `what` after 2 minutes: a hang guard, not a speed bound (it fails
 * only what would otherwise never end).
 */
async function unlessStuck<T>(promise: Promise<T>, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer in 2 minutes`)), 120_000);
  });
  try {
    return await Promise.race([promise, stuck]);
  } finally {
    clearTimeout(timer);
  }
}

const hasFull = (m: { event?: string; payload?: Array<{ updateType: string }> }) =>
  m.event === "state-update" && m.payload!.some((u) => u.updateType === "full");

Deno.test("a stalled WebSocket client never delays others; it is resynced with a full update", async () => {
  const svc = await startTestService(
    { wsMaxBufferedBytes: 64 * 1024, wsLagCloseMs: 120_000 },
    { projects: [bigProject("big", 100, 100)] },
  );
  const slow = await RawSocket.open("127.0.0.1", svc.service.ports.ws);
  const fast = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    slow.send({ type: "auth", id: "a", payload: {} });
    await until("the slow client's auth", () => slow.json().some((m) => m.id === "a"), 20_000);
    await fast.take();
    await fast.auth();
    slow.pause();

    // Each refresh sends every client a full update of a 10,000-Clip project (about 3.5 MB).
    for (let i = 0; i < 4; i++) {
      await svc.post("/api/v1/refresh", {});
      await fast.take(hasFull);
    }
    await until(
      "the stalled client to count as lagging",
      () => svc.service.sockets.laggingCount === 1,
      20_000,
    );
    // The fast client's round trips while the other stays stalled: each is answered, so none
    // waits for the stalled client, which reads nothing until `resume()` below (an answer that
    // waited on it would never come). No time bound: speed is `deno task bench`'s and the
    // slow_ws_client probe's.
    for (let i = 0; i < 20; i++) {
      const answer = await unlessStuck(
        fast.request({ type: "action", action: { name: "SET_CONTROL", params: ["A", i / 20] } }),
        `the fast client's round trip ${i}`,
      );
      assert.equal(answer.type, "response");
      assert.equal(svc.service.sockets.laggingCount, 1, "the other client is still stalled");
    }
    assert.equal(svc.service.sockets.clientCount, 2, "the stalled client is kept, not dropped");

    slow.resume();
    await until(
      "the resync",
      () => slow.json().some((m) => hasFull(m) && m.payload[0].data.event === "resync"),
      20_000,
    );
    const updates = slow.json().filter((m) => m.event === "state-update");
    const resync = updates.find((m) => m.payload[0]?.data?.event === "resync")!;
    const before = updates[updates.indexOf(resync) - 1];
    assert.ok(
      resync.seq > (before?.seq ?? 0) + 1,
      "the sequence numbers show the skipped messages",
    );
    assert.equal(svc.service.sockets.laggingCount, 0);
  } finally {
    slow.destroy();
    await fast.close();
    await svc.stop();
  }
});
