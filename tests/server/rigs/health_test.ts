/**
 * `/health` (no authentication) never names etcd's members: in a rig group
 * cut off from etcd its `group.reason` is the fixed text of its code, while
 * `GET /api/v1/group` (scope `view`) keeps the detail, endpoints included.
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { GROUP_PROBLEM_TEXT, type GroupHealth, GroupStatus } from "../../../protocol/rigs.ts";
import { until } from "../../../tools/testing/until.ts";

Deno.test("a rig cut off from etcd: /health's reason is fixed, without etcd's addresses", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 }); // refuses: closed below
  const endpoint = `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
  listener.close();
  const svc = await startTestService({
    group: "show",
    rigName: "main",
    groupEndpoints: [endpoint],
  });
  try {
    let status: GroupStatus | null = null;
    await until("the rig finds no etcd member", async () => {
      status = GroupStatus.parse((await svc.get("/api/v1/group")).body);
      return status.reasonCode === "GROUP_NO_QUORUM";
    });
    assert.match(status!.reason!, new RegExp(endpoint), "the detail, for an authorized client");
    const health = (await svc.get("/health")).body as { group: GroupHealth };
    assert.equal(health.group.canEdit, false);
    assert.equal(health.group.reasonCode, "GROUP_NO_QUORUM");
    assert.equal(health.group.reason, GROUP_PROBLEM_TEXT.GROUP_NO_QUORUM);
    assert.doesNotMatch(JSON.stringify(health), /127\.0\.0\.1|:2379|http:/);
  } finally {
    await svc.stop();
  }
});
