import assert from "node:assert/strict";
import { EventBus, type IntervalTimers, type UpdateBatch } from "../../../server/core/event_bus.ts";
import type { StateUpdate } from "../../../protocol/state.ts";

const control = (value: number): StateUpdate => ({
  updateType: "playstate",
  projectId: "p",
  data: { event: "control-changed", controlID: "A", value },
});
const clip = (clipID: string, newState: string): StateUpdate => ({
  updateType: "playstate",
  projectId: "p",
  data: { event: "clip-play-state-changed", clipID, newState },
});

Deno.test("EventBus coalesces a burst into one batch with each value's latest state", () => {
  const bus = new EventBus({ windowMs: 1000 });
  const batches: UpdateBatch[] = [];
  bus.subscribe((b) => batches.push(b));
  for (let i = 0; i <= 100; i++) bus.publish(control(i / 100));
  bus.publish(clip("c1", "playing"));
  bus.publish(clip("c2", "playing"));
  bus.publish(clip("c1", "stopped"));
  bus.flush();
  assert.equal(batches.length, 1);
  assert.equal(batches[0]!.seq, 1);
  assert.deepEqual(
    batches[0]!.updates.map((u) => [u.data.event, u.data.clipID ?? u.data.value, u.data.newState]),
    [
      ["control-changed", 1, undefined],
      ["clip-play-state-changed", "c2", "playing"],
      ["clip-play-state-changed", "c1", "stopped"],
    ],
  );
  bus.publish(control(0));
  bus.flush();
  assert.equal(batches[1]!.seq, 2);
  bus.close();
});

Deno.test("EventBus lets a full update supersede everything before it in the batch", () => {
  const bus = new EventBus({ windowMs: 1000 });
  const batches: UpdateBatch[] = [];
  bus.subscribe((b) => batches.push(b));
  bus.publish(clip("c1", "playing"));
  bus.publish({ updateType: "full", projectId: null, data: { event: "player-ready" } });
  bus.publish(control(0.5));
  bus.flush();
  assert.deepEqual(batches[0]!.updates.map((u) => u.updateType), ["full", "playstate"]);
  bus.close();
});

Deno.test("EventBus delivers on its own after the window", async () => {
  const bus = new EventBus({ windowMs: 0 });
  const got = new Promise<UpdateBatch>((resolve) => bus.subscribe(resolve));
  bus.publish(control(1));
  assert.equal((await got).updates.length, 1);
  bus.close();
});

/** Interval timers the test ticks by hand: which run, and how many were ever started. */
function handTimers() {
  const running = new Map<number, () => void>();
  let started = 0;
  const timers: IntervalTimers = {
    setInterval(tick) {
      running.set(++started, tick);
      return started;
    },
    clearInterval: (id) => void running.delete(id as number),
  };
  const tick = () => [...running.values()].forEach((f) => f());
  return { timers, running, tick, started: () => started };
}

Deno.test("EventBus runs a run of windows on one interval, stopped by a tick with nothing to deliver", () => {
  const { timers, running, tick, started } = handTimers();
  const bus = new EventBus({ windowMs: 5, timers });
  const batches: UpdateBatch[] = [];
  bus.subscribe((b) => batches.push(b));
  bus.publish(control(1));
  bus.publish(control(2));
  assert.equal(running.size, 1);
  tick(); // the first window: delivered, the interval runs on
  bus.publish(control(3));
  tick();
  assert.deepEqual(batches.map((b) => b.updates.map((u) => u.data.value)), [[2], [3]]);
  assert.equal(started(), 1, "one interval for the run of windows");
  tick(); // nothing came: the interval stops
  assert.equal(running.size, 0);
  assert.equal(batches.length, 2);
  bus.publish(control(4)); // a new run
  assert.equal(running.size, 1);
  bus.flush(); // delivers now and stops the interval
  assert.equal(running.size, 0);
  assert.equal(batches[2]!.updates[0]!.data.value, 4);
  bus.publish(control(5));
  bus.close(); // stops it, and drops what is pending
  assert.equal(running.size, 0);
  assert.equal(batches.length, 3);
});

Deno.test("EventBus delivers window after window on its one timer, and after a flush that cleared it", async () => {
  const bus = new EventBus({ windowMs: 0 });
  const batches: UpdateBatch[] = [];
  let wake = () => {};
  bus.subscribe((b) => {
    batches.push(b);
    wake();
  });
  const next = () => new Promise<void>((resolve) => wake = resolve);
  for (let i = 1; i <= 3; i++) {
    const delivered = next();
    bus.publish(control(i));
    await delivered;
  }
  bus.publish(control(4));
  bus.flush(); // clears the armed timer: nothing is delivered twice
  const delivered = next();
  bus.publish(control(5));
  await delivered;
  assert.deepEqual(batches.map((b) => [b.seq, b.updates.map((u) => u.data.value)]), [
    [1, [1]],
    [2, [2]],
    [3, [3]],
    [4, [4]],
    [5, [5]],
  ]);
  bus.close();
});

Deno.test("EventBus publishing from a listener opens the next window", async () => {
  const bus = new EventBus({ windowMs: 0 });
  const values: unknown[] = [];
  const done = new Promise<void>((resolve) =>
    bus.subscribe((b) => {
      values.push(b.updates[0]!.data.value);
      if (values.length < 3) bus.publish(control(values.length + 1));
      else resolve();
    })
  );
  bus.publish(control(1));
  await done;
  assert.deepEqual(values, [1, 2, 3]);
  bus.close();
});
