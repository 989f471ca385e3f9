/**
 * One action sent to every rig runs once (server/rigs/dedupe.ts): with one real etcd member on the
 * loopback and two rigs' `GroupActions`, the same keyed action sent to both rigs (a desk's OSC
 * bundle sent to all) is scheduled once and runs once on each rig, its first copy's show time
 * and seed on both; two different GOs both run. An OSC message outside a bundle (its sender's key):
 * copies from two rigs for about one show time (within the lead) run once, while one rig's own
 * repeats and the same action after the window each run; without any key each copy runs
 * (docs/rigs.md). Through a real service's OSC port in a group, each message of a
 * timetagged bundle reaches the group with its sender's and timetag's key; the same bundle again
 * gets the first answer; a message outside a keyed bundle carries its sender's key.
 */
import assert from "node:assert/strict";
import * as osc from "osc-min";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST, untilActionsWatched } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { OscPeer } from "../osc/_peer.ts";
import { GroupActions } from "../../../server/rigs/actions.ts";
import { dedupeId } from "../../../server/rigs/dedupe.ts";
import { bundleKey } from "../../../server/osc/bundles.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import { ShowClock } from "../../../server/rigs/clock/mod.ts";
import { VirtualClock } from "../../../player/clock.ts";
import type { NormalizedAction } from "../../../protocol/actions.ts";
import type { ActionResult } from "../../../server/core/action_runner.ts";

const GO = { name: "GO", projectId: null, params: {} } as unknown as NormalizedAction;
const TRIGGER = {
  name: "TRIGGER_CLIP_IN",
  projectId: null,
  params: { clipId: "c1" },
} as unknown as NormalizedAction;

Deno.test("dedupe: one id per key and action, the same on every rig; an immediate bundle has no key", () => {
  assert.equal(dedupeId("k1", GO), dedupeId("k1", { ...GO }));
  assert.match(dedupeId("k1", GO), /^k\.[0-9a-f]{32}$/);
  assert.notEqual(dedupeId("k1", GO), dedupeId("k2", GO));
  assert.notEqual(dedupeId("k1", GO), dedupeId("k1", TRIGGER), "a key reused for another action");
  assert.equal(bundleKey("10.0.0.5", [3_976_000_000, 42], 1), "osc.10.0.0.5.3976000000.42.1");
  assert.equal(bundleKey("10.0.0.5", [0, 1], 0), null);
});

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name: "dedupe: the same keyed GO sent to both rigs runs once on each; two different GOs both run",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const clock = new VirtualClock(1_000_000);
    const rigs = ["a", "b"].map((name) => {
      const show = new ShowClock(clock);
      const sent: string[] = [];
      const actions = new GroupActions({
        etcd: new GatewayEtcd([solo.url]),
        ...{ prefix: "/cueport/t/actions/", rig: name, group: "t", show, leadMs: 120 },
        send: (action) => {
          sent.push(action.name);
          return Promise.resolve({ applied: true, message: "ok" } as ActionResult);
        },
        log: () => {},
      });
      actions.start();
      return { actions, sent };
    });
    const [a, b] = rigs as [typeof rigs[0], typeof rigs[0]];
    try {
      // Both watches are up once they deliver an entry put after they started.
      await untilActionsWatched(solo.url, [a, b]);
      // A desk's bundle, sent to both rigs: both copies carry its key.
      const key = "osc.10.0.0.5.3976000000.42.0";
      const [first, second] = await Promise.all([
        a.actions.submit(GO, undefined, key),
        b.actions.submit(GO, undefined, key),
      ]);
      const answers = [first.message, second.message];
      assert.equal(
        answers.filter((m) => / once \(rig [ab] took it\)/.test(m)).length,
        1,
        answers.join(),
      );
      // Two different GOs (two keys, as two bundles' timetags give), each sent to both rigs.
      await Promise.all([
        a.actions.submit(GO, undefined, `${key}.2`),
        b.actions.submit(GO, undefined, `${key}.2`),
        a.actions.submit(GO, undefined, `${key}.3`),
        b.actions.submit(GO, undefined, `${key}.3`),
      ]);
      await until(
        "each rig scheduled three",
        () => a.actions.scheduled === 3 && b.actions.scheduled === 3,
      );
      clock.advance(200);
      assert.deepEqual(
        [a.sent.length, b.sent.length],
        [3, 3],
        "once per GO on each rig, not twice",
      );
      assert.equal(a.actions.last?.entry.seed, b.actions.last?.entry.seed, "the first copy's seed");
      // An OSC message without a bundle (a sender's key): the copies from both rigs are one
      // action (about one show time)...
      const desk = "~osc.10.0.0.5";
      const copies = await Promise.all([
        a.actions.submit(TRIGGER, undefined, desk),
        b.actions.submit(TRIGGER, undefined, desk),
      ]);
      assert.equal(copies.filter((r) => / once \(rig [ab] took it\)/.test(r.message)).length, 1);
      await until(
        "the copy scheduled",
        () => a.actions.scheduled === 4 && b.actions.scheduled === 4,
      );
      // ...one rig's own repeat is another, and so is the same action after the window.
      await a.actions.submit(TRIGGER, undefined, desk);
      clock.advance(200);
      await b.actions.submit(TRIGGER, undefined, desk);
      await until("both runs", () => a.actions.scheduled === 6 && b.actions.scheduled === 6);
      clock.advance(200);
      assert.deepEqual([a.sent.length, b.sent.length], [6, 6]);
      // Without any key (HTTP, MIDI...), each copy runs, as before.
      await Promise.all([a.actions.submit(GO), b.actions.submit(GO)]);
      await until("both copies", () => a.actions.scheduled === 8 && b.actions.scheduled === 8);
    } finally {
      await a.actions.stop();
      await b.actions.stop();
      await solo.stop();
    }
  },
});

Deno.test("dedupe: in a group, each message of a timetagged OSC bundle goes to the group with its key, the same bundle again gets the first answer; a plain message its sender's key", async () => {
  const svc = await startTestService();
  const keys: Array<string | undefined> = [];
  svc.service.core.actions.scheduler = {
    submit: (action, _idempotencyKey, dedupeKey) => {
      keys.push(dedupeKey);
      const result = { action: action.name, projectId: null, params: action.params };
      return Promise.resolve({ ...result, applied: true, message: "scheduled" });
    },
  };
  const peer = OscPeer.open(svc.service.ports.osc);
  try {
    const timetag: [number, number] = [3_976_000_000, 42];
    const msg = (v: number) => ({ address: "/control/A", args: [v] });
    const bundle = osc.toBuffer({ timetag, elements: [msg(0.1), msg(0.2)] });
    const bytes = new Uint8Array(
      bundle.buffer as ArrayBuffer,
      bundle.byteOffset,
      bundle.byteLength,
    );
    await peer.raw(bytes);
    await until("both messages", () => keys.length === 2);
    const [seconds, fraction] = timetag;
    assert.deepEqual(keys, [0, 1].map((i) => `osc.127.0.0.1.${seconds}.${fraction}.${i}`));
    await peer.raw(bytes);
    // The first answers again: a third message of another bundle is the next to reach the group.
    const now = osc.toBuffer({ timetag: [0, 1], elements: [msg(0.3)] });
    await peer.raw(new Uint8Array(now.buffer as ArrayBuffer, now.byteOffset, now.byteLength));
    await until("the immediate bundle", () => keys.length >= 3);
    assert.deepEqual(keys.slice(2), ["~osc.127.0.0.1"], "an immediate bundle: its sender's key");
  } finally {
    await peer.close();
    await svc.stop();
  }
});
