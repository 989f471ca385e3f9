/**
 * `GroupActions` (server/rigs/actions.ts) against one real etcd member on the loopback, each rig's
 * show clock on one virtual clock: an action taken on one rig is scheduled by both at one show
 * time and runs on both when it comes, though their own clocks read 250 ms apart; one seen after
 * its show time runs at once and is counted late; one etcd does not take runs on its rig alone;
 * `seededChoice` chooses the same from the same seed. With real players (in process, on the
 * virtual clock): one rig's timer fired 50 ms late, both rigs' Clip is at one position at one show
 * time, the late one having started it where it would be (protocol 1.14 `due`).
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST, untilActionsWatched } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import { GroupActions, seededChoice } from "../../../server/rigs/actions.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import { EtcdUnavailable } from "../../../server/rigs/etcd.ts";
import type { Etcd } from "../../../server/rigs/etcd.ts";
import { ShowClock, skewedClock } from "../../../server/rigs/clock/mod.ts";
import { VirtualClock } from "../../../player/clock.ts";
import type { NormalizedAction } from "../../../protocol/actions.ts";
import type { ActionResult } from "../../../server/core/action_runner.ts";
import type { LocalClock } from "../../../server/rigs/clock/local_clock.ts";
import { PlayerApp } from "../../../player/app.ts";
import { playerMethods, type Session } from "../../../player/rpc_methods.ts";
import { type ActionOutcome, Method } from "../../../protocol/methods.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";

const opts = LOOPBACK_ETCD_TEST;
const TRIGGER = {
  name: "TRIGGER_CLIP_IN",
  projectId: null,
  params: { clipId: "c1" },
} as unknown as NormalizedAction;

/** A rig's actions on `etcd`, its show clock on `local`; what it sent to its player, and when. */
function rig(
  name: string,
  etcd: Etcd,
  local: VirtualClock | ReturnType<typeof skewedClock>,
  hasQuorum?: () => boolean,
) {
  const show = new ShowClock(local);
  const sent: Array<{ name: string; at: number }> = [];
  const actions = new GroupActions({
    etcd,
    prefix: "/cueport/t/actions/",
    rig: name,
    group: "t",
    show,
    leadMs: 120,
    ...(hasQuorum ? { hasQuorum } : {}),
    send: (action) => {
      sent.push({ name: action.name, at: show.now() });
      if (action.params.clipId === "gone") return Promise.reject(new Error("No Clip gone"));
      return Promise.resolve(
        { applied: true, message: `Triggered ${action.params.clipId}` } as ActionResult,
      );
    },
    log: () => {},
  });
  actions.start();
  return { show, sent, actions };
}

Deno.test({
  ...opts,
  name: "GroupActions: an action taken on one rig runs on both at one show time",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const clock = new VirtualClock(1_000_000);
    const a = rig("a", new GatewayEtcd([solo.url]), clock);
    // b's own clock reads 250 ms behind; its show clock is corrected onto a's.
    const b = rig("b", new GatewayEtcd([solo.url]), skewedClock(clock, -250));
    b.show.correct(250, 0);
    a.show.lead();
    try {
      // Both watches are up once they deliver an entry put after they started.
      await untilActionsWatched(solo.url, [a, b]);
      const answer = await a.actions.submit(TRIGGER);
      assert.match(
        answer.message,
        /^Scheduled on every rig of group t at show time \d+ ms \(in 120 ms\)$/,
      );
      await until("b scheduled it", () => b.actions.scheduled === 1);
      assert.deepEqual([a.sent, b.sent], [[], []], "nothing runs before its show time");
      clock.advance(119);
      assert.deepEqual([a.sent, b.sent], [[], []]);
      clock.advance(1);
      const at = a.show.now();
      assert.deepEqual(a.sent, [{ name: "TRIGGER_CLIP_IN", at }]);
      assert.deepEqual(b.sent, [{ name: "TRIGGER_CLIP_IN", at }], "the same show time on b");
      assert.equal(a.actions.last?.entry.id, b.actions.last?.entry.id);
      assert.equal(a.actions.last?.entry.seed, b.actions.last?.entry.seed, "one seed for both");
      assert.deepEqual([a.actions.late, b.actions.late], [0, 0]);
      await until("b's player answered", () => b.actions.last?.outcome !== null);
      assert.equal(b.actions.last?.outcome, "Triggered c1", "what the player said, in the status");

      // b's show clock 500 ms ahead: the next action is past its time when b sees it.
      b.show.correct(750, 0);
      await a.actions.submit(TRIGGER);
      await until("b ran it late", () => b.sent.length === 2);
      assert.equal(b.actions.late, 1);
      assert.ok(b.actions.last!.lateMs > 300, `late by ${b.actions.last!.lateMs} ms`);
    } finally {
      await a.actions.stop();
      await b.actions.stop();
      await solo.stop();
    }
  },
});

Deno.test("GroupActions: an action etcd does not take runs on this rig alone, and says so", async () => {
  const refusing = {
    put: () => Promise.reject(new EtcdUnavailable("No etcd member answered")),
    grant: () => Promise.resolve("1"),
    watch: (_prefix: string, o: { signal: AbortSignal }) =>
      new Promise<void>((resolve) => o.signal.addEventListener("abort", () => resolve())),
  } as unknown as Etcd;
  const clock = new VirtualClock(0);
  const a = rig("a", refusing, clock);
  try {
    const answer = await a.actions.submit(TRIGGER);
    assert.match(answer.message, /^Scheduled on this rig only \(etcd did not take it: No etcd/);
    clock.advance(120);
    assert.equal(a.sent.length, 1);
    // A refusal of this rig's player is in its status (the client was answered before it ran).
    await a.actions.submit({ ...TRIGGER, params: { clipId: "gone" } });
    clock.advance(120);
    await until("the refusal", () => a.actions.last?.outcome?.startsWith("Refused") ?? false);
    assert.equal(a.actions.last?.outcome, "Refused: No Clip gone");
  } finally {
    await a.actions.stop();
  }
});

Deno.test("GroupActions: cut off from the quorum, an action is not put but runs here at its show time", async () => {
  let puts = 0;
  const etcd = {
    put: () => Promise.resolve(++puts),
    grant: () => Promise.resolve("1"),
    watch: (_prefix: string, o: { signal: AbortSignal }) =>
      new Promise<void>((resolve) => o.signal.addEventListener("abort", () => resolve())),
  } as unknown as Etcd;
  const clock = new VirtualClock(0);
  const a = rig("a", etcd, clock, () => false);
  try {
    const answer = await a.actions.submit(TRIGGER);
    assert.match(answer.message, /this rig only \(etcd did not take it: this rig is cut off/);
    assert.equal(puts, 0);
    clock.advance(120);
    assert.equal(a.sent.length, 1);
  } finally {
    await a.actions.stop();
  }
});

Deno.test("seededChoice() chooses the same from the same seed, spread over the choices", () => {
  const counts = [0, 0, 0, 0];
  for (let seed = 0; seed < 4000; seed++) {
    const i = seededChoice(seed, 4);
    assert.equal(seededChoice(seed, 4), i);
    counts[i]!++;
  }
  assert.ok(counts.every((n) => n > 800), `spread: ${counts}`);
});

/** `clock` whose timers fire `delayMs` late: a rig on a loaded machine. */
function lateTimers(clock: LocalClock, delayMs: number): LocalClock {
  return {
    now: () => clock.now(),
    setTimer: (at, fn) => clock.setTimer(at + delayMs, fn),
    clearTimer: (id) => clock.clearTimer(id),
  };
}

/**
 * A rig whose actions run on a real player (in process) on `clock`, the machine's clock too (the
 * `due` of `action.run`), its show clock's timers `delayMs` late.
 */
async function rigWithPlayer(name: string, etcd: Etcd, clock: VirtualClock, delayMs: number) {
  const dataDir = await fixtureDataDir();
  const app = await PlayerApp.open({ dataDir, clock, positionIntervalMs: 0 });
  const session = { isInitialized: true, figures: () => ({}) } as unknown as Session;
  const run = playerMethods(app, session, { wallClock: () => clock.now() })[Method.ACTION_RUN]!;
  const context = { id: 1, progress: () => {}, signal: new AbortController().signal };
  const show = new ShowClock(lateTimers(clock, delayMs));
  const actions = new GroupActions({
    etcd,
    prefix: "/cueport/t/actions/",
    rig: name,
    group: "t",
    show,
    leadMs: 120,
    wallClock: () => clock.now(),
    send: async (action, key, due) => {
      const outcome = await run({ ...action, idempotencyKey: key, due }, context) as ActionOutcome;
      return { ...outcome } as ActionResult;
    },
    log: () => {},
  });
  actions.start();
  /** Where the player's Clip `id` is now, s (null: not playing). */
  const position = (id: string) =>
    app.snapshot().playstates[0]!.clips.find((c) => c.clipID === id)?.position ?? null;
  const close = async () => {
    await actions.stop();
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  };
  return { show, actions, position, close };
}

Deno.test({
  ...opts,
  name:
    "GroupActions: one rig's timer 50 ms late, both rigs' Clip is at one position at one show time",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const clock = new VirtualClock(1_764_000_000_000);
    const a = await rigWithPlayer("a", new GatewayEtcd([solo.url]), clock, 0);
    const b = await rigWithPlayer("b", new GatewayEtcd([solo.url]), clock, 50);
    a.show.lead();
    b.show.correct(0, 0);
    try {
      // Both watches are up once they deliver an entry put after they started.
      await untilActionsWatched(solo.url, [a, b]);
      const trigger = { ...TRIGGER, params: { clipID: "c1" } } as NormalizedAction;
      await a.actions.submit(trigger);
      await until("b scheduled it", () => b.actions.scheduled === 1);
      clock.advance(120);
      await until("a's player started c1", () => (a.actions.last?.outcome ?? null) !== null);
      assert.notEqual(a.position("c1"), null, `${a.actions.last?.outcome}`);
      assert.equal(b.position("c1"), null, "b's timer has not fired yet");
      clock.advance(50);
      await until("b's player started c1", () => (b.actions.last?.outcome ?? null) !== null);
      assert.equal(b.actions.last!.lateMs, 50, "b ran it 50 ms after its show time");
      const [pa, pb] = [a.position("c1")!, b.position("c1")!];
      console.log(`c1 at one show time: a ${pa} s, b ${pb} s`);
      assert.ok(
        Math.abs(pa - pb) < 1 / 30,
        `c1 ${Math.abs(pa - pb) * 1000} ms apart: more than a frame`,
      );
      assert.equal(pb, 0.05, "b started it where it would be");
      assert.match(
        b.actions.last!.outcome!,
        /\(50 ms late: what it started is where it would be\)$/,
      );
    } finally {
      await a.close();
      await b.close();
      await solo.stop();
    }
  },
});
