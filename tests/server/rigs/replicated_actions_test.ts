/**
 * What a group's action changes or decides is the same on every rig (server/rigs/actions.ts, the
 * player's actions): two rigs, each a real player in process on one virtual clock, their actions
 * through one etcd member on the loopback. `CLIP_DIRECTION` taken on one rig writes the Clip's
 * direction in both rigs' Projects (deterministic from the replicated action); `RECORD_TOGGLE`
 * names the recording by the entry's show time (`at`, protocol 1.15), the same file on both.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST, untilActionsWatched } from "../../../tools/testing/loopback_rigs.ts";
import { until } from "../../../tools/testing/until.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { GroupActions } from "../../../server/rigs/actions.ts";
import { GatewayEtcd } from "../../../server/rigs/etcd_gateway.ts";
import type { Etcd } from "../../../server/rigs/etcd.ts";
import { ShowClock } from "../../../server/rigs/clock/mod.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { PlayerApp } from "../../../player/app.ts";
import { playerMethods, type Session } from "../../../player/rpc_methods.ts";
import { type ActionOutcome, Method } from "../../../protocol/methods.ts";
import type { NormalizedAction } from "../../../protocol/actions.ts";
import type { ActionResult } from "../../../server/core/action_runner.ts";

const opts = LOOPBACK_ETCD_TEST;

/** A rig whose group actions run on a real player (in process) on `clock`. */
async function rigWithPlayer(name: string, etcd: Etcd, clock: VirtualClock) {
  const dataDir = await fixtureDataDir();
  const app = await PlayerApp.open({ dataDir, clock, positionIntervalMs: 0 });
  const session = { isInitialized: true, figures: () => ({}) } as unknown as Session;
  const run = playerMethods(app, session, { wallClock: () => clock.now() })[Method.ACTION_RUN]!;
  const context = { id: 1, progress: () => {}, signal: new AbortController().signal };
  const show = new ShowClock(clock);
  const ran: string[] = [];
  const actions = new GroupActions({
    etcd,
    prefix: "/cueport/t/actions/",
    rig: name,
    group: "t",
    show,
    leadMs: 120,
    wallClock: () => clock.now(),
    send: async (action, key, due, at) => {
      const outcome = await run(
        { ...action, idempotencyKey: key, due, at },
        context,
      ) as ActionOutcome;
      ran.push(outcome.message);
      return { ...outcome } as ActionResult;
    },
    log: () => {},
  });
  actions.start();
  const close = async () => {
    await actions.stop();
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  };
  return { app, show, actions, ran, close };
}

Deno.test({
  ...opts,
  name:
    "GroupActions: CLIP_DIRECTION on one rig is in both rigs' Projects; RECORD_TOGGLE names one file",
  fn: async () => {
    const solo = await startLoopbackEtcd();
    const clock = new VirtualClock(1_764_000_000_000);
    const a = await rigWithPlayer("a", new GatewayEtcd([solo.url]), clock);
    const b = await rigWithPlayer("b", new GatewayEtcd([solo.url]), clock);
    a.show.lead();
    b.show.correct(0, 0);
    try {
      // Both watches are up once they deliver an entry put after they started.
      await untilActionsWatched(solo.url, [a, b]);
      const direction = (rig: typeof a) =>
        rig.app.snapshot().projects[0]!.clips.find((c) => c.id === "c1")!.direction;
      assert.equal(direction(a), "forward");
      const run = async (action: NormalizedAction, n: number) => {
        await a.actions.submit(action);
        await until("b scheduled it", () => b.actions.scheduled === n);
        clock.advance(120);
        await until("both ran it", () => a.ran.length === n && b.ran.length === n);
      };
      await run({
        name: "CLIP_DIRECTION",
        projectId: null,
        params: { clipID: "c1", direction: "backward" },
      } as unknown as NormalizedAction, 1);
      assert.deepEqual(
        [direction(a), direction(b)],
        ["backward", "backward"],
        `${a.ran} | ${b.ran}`,
      );

      const showTime = a.show.now() + 120;
      await run(
        {
          name: "RECORD_TOGGLE",
          projectId: null,
          params: { mode: "now" },
        } as unknown as NormalizedAction,
        2,
      );
      const file = (rig: typeof a) => rig.app.snapshot().appState.recording.file;
      const named = `recordings/recording-${
        new Date(showTime).toISOString().replace(/[:.]/g, "-")
      }.jsonl`;
      assert.deepEqual([file(a), file(b)], [named, named], `${a.ran} | ${b.ran}`);
    } finally {
      await a.close();
      await b.close();
      await solo.stop();
    }
  },
});
