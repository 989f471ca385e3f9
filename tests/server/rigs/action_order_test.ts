/**
 * Two actions of one show time run in one order on every rig (server/rigs/actions.ts): each rig
 * hears of its own action first (it schedules what it put) and of the other's when the watch
 * delivers it, yet both run them by show time, then id. The etcd here is in memory, its watch
 * delivered when the test says, so the two rigs hear the entries in opposite orders every run
 * (`dedupe_test.ts` met that order by chance once, at a load of 6, and the rigs' last actions
 * differed).
 */
import assert from "node:assert/strict";
import { GroupActions } from "../../../server/rigs/actions.ts";
import type { Etcd, WatchEvent, WatchOptions } from "../../../server/rigs/etcd.ts";
import { ShowClock } from "../../../server/rigs/clock/mod.ts";
import { VirtualClock } from "../../../player/clock.ts";
import type { NormalizedAction } from "../../../protocol/actions.ts";
import type { ActionResult } from "../../../server/core/action_runner.ts";

/** An etcd of one process: puts are kept, and each watch is told of them when `deliver` says. */
class HeldEtcd {
  readonly endpoint = "memory";
  #revision = 0;
  readonly #held: WatchEvent[] = [];
  readonly #watchers: WatchOptions[] = [];

  put(key: string, value: string, lease = "0"): Promise<number> {
    const revision = ++this.#revision;
    this.#held.push({
      type: "put",
      kv: { key, value, lease, createRevision: revision, modRevision: revision },
    });
    return Promise.resolve(revision);
  }

  grant(): Promise<string> {
    return Promise.resolve("1");
  }

  watch(_prefix: string, options: WatchOptions): Promise<void> {
    this.#watchers.push(options);
    return new Promise((resolve) => options.signal.addEventListener("abort", () => resolve()));
  }

  /** Tells every watch of what was put since the last time. */
  deliver(): void {
    const events = this.#held.splice(0);
    for (const w of this.#watchers) w.onEvents(events, this.#revision);
  }
}

const go = (n: number) =>
  ({
    name: "TRIGGER_CLIP_IN",
    projectId: null,
    params: { clipId: `c${n}` },
  }) as unknown as NormalizedAction;

/**
 * One rig's `GroupActions` on the shared etcd and `show` clock, started: `ran` holds the Clip of
 * each action it sent its player, in order.
 */
function rigActions(etcd: HeldEtcd, rig: string, show: ShowClock) {
  const ran: string[] = [];
  const actions = new GroupActions({
    etcd: etcd as unknown as Etcd,
    ...{ prefix: "/cueport/t/actions/", rig, group: "t", show },
    leadMs: 120,
    send: (action) => {
      ran.push((action.params as { clipId: string }).clipId);
      return Promise.resolve({ applied: true, message: "ok" } as ActionResult);
    },
    log: () => {},
  });
  actions.start();
  return { actions, ran };
}

Deno.test("two actions of one show time run in the same order on every rig, whichever each heard of first", async () => {
  const etcd = new HeldEtcd();
  const clock = new VirtualClock(1_000_000);
  const rigs = ["a", "b"].map((rig) => rigActions(etcd, rig, new ShowClock(clock)));
  const [a, b] = rigs as [typeof rigs[0], typeof rigs[0]];
  try {
    // Each rig puts its own at the same show time and schedules it; then the watch tells both.
    await a.actions.submit(go(1));
    await b.actions.submit(go(2));
    etcd.deliver();
    assert.deepEqual([a.actions.scheduled, b.actions.scheduled], [2, 2]);
    clock.advance(200);
    assert.equal(a.ran.length, 2);
    assert.deepEqual(a.ran, b.ran, "the same order on both rigs");
    assert.equal(a.actions.last?.entry.id, b.actions.last?.entry.id);
    // One due later still runs later, after both.
    await b.actions.submit(go(3));
    clock.advance(1);
    await a.actions.submit(go(4));
    etcd.deliver();
    clock.advance(200);
    assert.deepEqual(a.ran.slice(2), ["c3", "c4"]);
    assert.deepEqual(b.ran, a.ran);
  } finally {
    await a.actions.stop();
    await b.actions.stop();
  }
});

/**
 * A show clock whose timers fire only when the test says: a loaded rig whose timer is late, so
 * an entry the watch brings after its show time meets one still waiting with an earlier time.
 */
class LateTimers {
  time = 0;
  readonly #timers = new Map<number, { at: number; run: () => void }>();
  #next = 0;

  now(): number {
    return this.time;
  }

  scheduleAt(at: number, run: () => void): () => void {
    const id = this.#next++;
    this.#timers.set(id, { at, run });
    return () => this.#timers.delete(id);
  }

  /** Fires every timer due, earliest first. */
  fire(): void {
    const due = [...this.#timers.entries()].filter(([, t]) => t.at <= this.time);
    for (const [id, t] of due.sort((x, y) => x[1].at - y[1].at)) {
      if (this.#timers.delete(id)) t.run();
    }
  }
}

Deno.test("an action the watch brings after its show time runs after one still waiting with an earlier show time", async () => {
  const etcd = new HeldEtcd();
  const show = new LateTimers();
  const { actions, ran } = rigActions(etcd, "a", show as unknown as ShowClock);
  const other = rigActions(etcd, "b", show as unknown as ShowClock).actions;
  try {
    await actions.submit(go(1)); // due at 120, waiting here
    show.time = 10;
    await other.submit(go(2)); // due at 130: another rig's
    show.time = 200; // this rig's timer has not fired yet (a busy machine)
    etcd.deliver(); // the other rig's entry arrives 70 ms after its show time
    show.fire();
    assert.deepEqual(ran, ["c1", "c2"], "by show time, the late one second");
    assert.equal(actions.late, 1);
  } finally {
    await actions.stop();
    await other.stop();
  }
});
