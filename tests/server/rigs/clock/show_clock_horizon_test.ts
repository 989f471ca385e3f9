/**
 * The show clock's horizon as the group's actions meet it (server/rigs/actions.ts): an entry
 * whose show time is beyond it is dropped on the rig with a reason in its log, never parked,
 * and the watch goes on with the next entry. A fake etcd delivers the entries; one virtual clock.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../../player/clock.ts";
import { GroupActions } from "../../../../server/rigs/actions.ts";
import { ShowClock } from "../../../../server/rigs/clock/mod.ts";
import type { Etcd, WatchOptions } from "../../../../server/rigs/etcd.ts";
import type { ActionResult } from "../../../../server/core/action_runner.ts";

Deno.test("GroupActions: an entry beyond the show clock's horizon is dropped with why; the next runs", async () => {
  const clock = new VirtualClock(1000);
  const show = new ShowClock(clock);
  show.lead();
  const entry = (id: string, showTime: number) => ({
    type: "put" as const,
    kv: {
      key: `/cueport/t/actions/${id}`,
      value: JSON.stringify({
        id,
        from: "b",
        showTime,
        seed: 1,
        action: { name: "TRIGGER_CLIP_IN", projectId: null, params: { clipId: id } },
      }),
      createRevision: 2,
      modRevision: 2,
      lease: "0",
    },
  });
  const etcd = {
    watch: (_prefix: string, o: WatchOptions) => {
      o.onEvents([entry("far", 1000 + 2 * 86_400_000), entry("near", 1120)], 2);
      return new Promise<void>((resolve) => o.signal.addEventListener("abort", () => resolve()));
    },
  } as unknown as Etcd;
  const sent: string[] = [];
  const logged: string[] = [];
  const actions = new GroupActions({
    etcd,
    prefix: "/cueport/t/actions/",
    rig: "a",
    group: "t",
    show,
    leadMs: 120,
    send: (action) => {
      sent.push(String(action.params.clipId));
      return Promise.resolve({ applied: true, message: "ok" } as ActionResult);
    },
    log: (_level, message) => logged.push(message),
  });
  actions.start();
  try {
    clock.advance(120);
    assert.deepEqual(sent, ["near"]);
    assert.equal(show.pendingCount, 0, "nothing parked");
    assert.ok(
      logged.some((m) => /TRIGGER_CLIP_IN from b dropped: .*at most 3600000 ms ahead/.test(m)),
      logged.join("\n"),
    );
    clock.advance(2 * 86_400_000);
    assert.deepEqual(sent, ["near"]);
  } finally {
    await actions.stop();
  }
});
