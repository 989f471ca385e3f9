/**
 * Without the setting `group`, Cueport runs alone exactly as before: no rig
 * group is made (so no etcd is touched), `/health` has no `group` part,
 * `GET /api/v1/group` says it runs alone, and an edit goes to the player as
 * before (no log, no `rig-log.json`).
 */
import assert from "node:assert/strict";
import { openRigGroup } from "../../../server/rigs/mod.ts";
import type { Etcd } from "../../../server/rigs/etcd.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { GroupStatus } from "../../../protocol/rigs.ts";
import { runGroupCommand } from "../../../server/rigs/group_command.ts";

/** An `Etcd` that fails the test if anything calls it. */
const untouchable = new Proxy({} as Etcd, {
  get: (_, name) => {
    throw new Error(`etcd touched: ${String(name)}`);
  },
});

const settings = {
  group: "",
  groupEndpoints: ["http://127.0.0.1:2379"],
  rigName: "",
  groupLeaseSeconds: 2,
};

Deno.test("openRigGroup() without a group makes nothing: no etcd is touched", () => {
  const log = () => assert.fail("nothing to log");
  assert.equal(openRigGroup(settings, { ports: () => ({}), log, etcd: untouchable }), null);
  const group = openRigGroup({ ...settings, group: "show", rigName: "main" }, {
    ports: () => ({}),
    log,
    etcd: untouchable, // made, not started: still untouched
  });
  assert.notEqual(group, null);
});

Deno.test("a service without a group: GET /api/v1/group says alone; /health has no group", async () => {
  const svc = await startTestService();
  try {
    const group = await svc.get("/api/v1/group");
    assert.equal(group.status, 200);
    const status = GroupStatus.parse(group.body);
    assert.equal(status.group, null);
    assert.equal(status.canEdit, true);
    assert.deepEqual(status.members, []);
    const health = await svc.get("/health");
    assert.equal("group" in health.body, false);
    const made = await svc.post("/api/v1/edit", {
      name: "project.create",
      params: { name: "Alone", projectID: "alone" },
    });
    assert.equal(made.status, 200, JSON.stringify(made.body));
    await assert.rejects(Deno.stat(`${svc.dataDir}/rig-log.json`), Deno.errors.NotFound);
    assert.equal(
      svc.service.rigs,
      null,
      "no rig group made (openRigGroup's null): no etcd touched",
    );
    const lines: string[] = [];
    const code = await runGroupCommand(["status", "--data-dir", svc.dataDir], (l) => lines.push(l));
    assert.equal(code, 4, lines.join("\n"));
    assert.match(lines[0]!, /runs alone \(no setting group\)/);
  } finally {
    await svc.stop();
  }
});
