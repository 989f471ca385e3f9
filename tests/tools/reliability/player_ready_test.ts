import assert from "node:assert/strict";
import { untilPlayerReady } from "../../../tools/reliability/_service.ts";

/** A /health that says `ready: false` for the first `notReady` asks, then `ready: true`. */
function health(notReady: number) {
  let asks = 0;
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, () => {
    asks++;
    return Response.json({ ready: asks > notReady });
  });
  return { server, asks: () => asks };
}

Deno.test("untilPlayerReady() waits for /health to say the player is ready, and no longer", async () => {
  const { server, asks } = health(3);
  try {
    await untilPlayerReady(server.addr.port, () => true);
    assert.equal(asks(), 4, "asked until the first ready: true");
  } finally {
    await server.shutdown();
  }
});

Deno.test("untilPlayerReady() gives up when the service exits first, saying so", async () => {
  const { server } = health(Infinity);
  let running = true;
  try {
    const waiting = untilPlayerReady(server.addr.port, () => running);
    running = false;
    await assert.rejects(waiting, /exited before its player was ready/);
  } finally {
    await server.shutdown();
  }
});
