/**
 * A stand-in for the picture worker whose job neither reports progress nor lets its event loop
 * turn until the test opens its gate (`job.gate`, shared cells: 0 set to 1 opens it, 1 is set once the
 * thread holds): `?busy` spins on the
 * CPU meanwhile (a synchronous decode), `?hung` sleeps (a thread that waits for nothing that
 * comes). It finds its thread as the real worker does (`ownThreadId`) and tells the pool in its
 * `ready`.
 * @module
 */
import { ownThreadId } from "../../../server/media/pool_thread.ts";

const scope = globalThis as unknown as {
  postMessage(m: unknown): void;
  onmessage: ((e: MessageEvent) => void) | null;
};
const isBusy = new URL(import.meta.url).search === "?busy";

/** Holds this thread until the gate opens (cell 0), spinning or asleep; cell 1 tells it holds. */
function hold(gate: Int32Array): void {
  Atomics.store(gate, 1, 1);
  Atomics.notify(gate, 1);
  if (isBusy) { while (Atomics.load(gate, 0) === 0) { /* the CPU is used, the loop is held */ } }
  else Atomics.wait(gate, 0, 0);
}

scope.onmessage = async (event) => {
  const message = event.data;
  if ("lookLock" in message) {
    const tid = await ownThreadId(message.lookLock);
    return scope.postMessage({ ready: true, nice: null, tid });
  }
  hold(new Int32Array(message.job.gate));
  const rendered = {
    bytes: new Uint8Array(1),
    contentType: "image/png",
    width: 1,
    height: 1,
    origin: "card",
  };
  scope.postMessage({ id: message.id, ok: true, rendered, usage: { pixels: 0, heapBytes: 0 } });
};
