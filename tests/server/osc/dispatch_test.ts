import assert from "node:assert/strict";
import type { Policy } from "../../../server/core/mod.ts";
import { ADDRESSES } from "../../../server/osc/addresses.ts";
import { Dispatch, MAX_WAITING_CALLS } from "../../../server/osc/dispatch.ts";
import { Outbox, type Peer } from "../../../server/osc/outbox.ts";
import { peerOn, recordingSocket } from "./_recording.ts";

/** A policy whose every call waits for the player until `release` is called. */
function waitingPolicy() {
  const releases: (() => void)[] = [];
  const policy = {
    prepare: () => ({
      input: {},
      run: () => new Promise<string>((resolve) => releases.push(() => resolve("done"))),
    }),
  } as unknown as Policy;
  return { policy, release: () => releases.splice(0).forEach((r) => r()) };
}

const QUERY = ADDRESSES.find((entry) => entry.kind === "query" && entry.args.length === 0)!;

Deno.test("Dispatch.run() refuses a sender's call past MAX_WAITING_CALLS waiting, and takes it again once they end", async () => {
  const socket = recordingSocket();
  const outbox = new Outbox({ bytesPerSecond: 1e9, isAllowed: () => true });
  const { policy, release } = waitingPolicy();
  const dispatch = new Dispatch({ policy, outbox });
  const call = (peer: Peer) =>
    dispatch.run({
      address: QUERY.path,
      matches: [{ entry: QUERY, fromPath: new Map() }],
      values: [],
      peer,
      grant: { device: "desk" },
    });
  const desk = peerOn(socket);
  for (let i = 0; i < MAX_WAITING_CALLS; i++) call(desk);
  assert.equal(socket.sent.length, 0);
  call(desk);
  assert.equal(socket.sent.length, 1);
  assert.equal(socket.sent[0]!.body.status, "error");
  assert.match(JSON.stringify(socket.sent[0]!.body), /RATE_LIMITED/);
  assert.equal(dispatch.failed, 1);
  // Another sender has its own share.
  call(peerOn(socket, "10.0.0.10"));
  assert.equal(socket.sent.length, 1);

  release();
  // One turn of the event loop (no time passes): the released calls answer in microtasks.
  await new Promise((resolve) => setTimeout(resolve, 0));
  assert.equal(socket.sent.filter((s) => s.body.status === "ok").length, MAX_WAITING_CALLS + 1);
  call(desk);
  assert.equal(socket.sent.length, MAX_WAITING_CALLS + 2); // no refusal: it waits again
  release();
});
