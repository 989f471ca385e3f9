/**
 * `cueport group` (server/rigs/group_command.ts): join and leave write the
 * config file's settings, checked as the service reads them; status lines.
 */
import assert from "node:assert/strict";
import { describe, runGroupCommand } from "../../../server/rigs/group_command.ts";
import { loadSettings } from "../../../server/config.ts";
import type { GroupStatus, RigClock } from "../../../protocol/rigs.ts";
import { aloneStatus } from "../../../server/rigs/mod.ts";

Deno.test("cueport group join and leave write the settings the service then reads", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-group-" });
  const config = `${dir}/cueport/config.json`;
  try {
    const lines: string[] = [];
    const print = (line: string) => lines.push(line);
    const endpoints = "http://10.0.0.1:2379,http://10.0.0.2:2379";
    const args = ["join", "show", "--endpoints", endpoints, "--rig", "main", "--config", config];
    assert.equal(await runGroupCommand(args, print), 0, lines.join("\n"));
    assert.match(lines.at(-1)!, /joins the group show at its next start/);
    const loaded = await loadSettings(["--config", config]);
    assert.equal(loaded.help, false);
    if (loaded.help) return;
    assert.equal(loaded.settings.group, "show");
    assert.deepEqual(loaded.settings.groupEndpoints, endpoints.split(","));
    assert.equal(loaded.settings.rigName, "main");
    // A bad name is refused, naming the setting; the file stays as it was.
    const before = await Deno.readTextFile(config);
    assert.equal(await runGroupCommand(["join", "a/b", "--config", config], print), 2);
    assert.match(lines.at(-1)!, /group/);
    assert.equal(await Deno.readTextFile(config), before);
    // Leaving removes the group only.
    assert.equal(await runGroupCommand(["leave", "--config", config], print), 0);
    const left = JSON.parse(await Deno.readTextFile(config));
    assert.deepEqual(left, { groupEndpoints: endpoints.split(","), rigName: "main" });
    assert.equal(await runGroupCommand(["dance"], print), 2);
    // A missing NAME or a word too many says so, not "unknown subcommand"; nothing is written.
    const wrong: [string[], RegExp][] = [
      [["join"], /^cueport group: join needs the group's NAME: cueport group join NAME\n/],
      [["join", "show", "extra"], /^cueport group: unexpected "extra": cueport group join NAME/],
      [["leave", "now"], /^cueport group: unexpected "now": cueport group leave takes nothing/],
    ];
    for (const [words, said] of wrong) {
      assert.equal(await runGroupCommand([...words, "--config", config], print), 2);
      assert.match(lines.at(-1)!, said);
    }
    assert.deepEqual(JSON.parse(await Deno.readTextFile(config)), left);
    // Endpoints that are no etcd client URLs are refused as the service would refuse them.
    for (const endpoint of ["notaurl", "192.168.1.11:2379", "http://10.0.0.1:2379/v3"]) {
      const join = ["join", "show", "--endpoints", endpoint, "--config", config];
      assert.equal(await runGroupCommand(join, print), 2, endpoint);
      assert.match(lines.at(-1)!, new RegExp(`"${endpoint}" is not an etcd client URL: expected`));
    }
    assert.deepEqual(JSON.parse(await Deno.readTextFile(config)), left);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("cueport group join with a bare --config file name writes it in the working directory", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-group-" });
  const cwd = Deno.cwd();
  Deno.chdir(dir);
  try {
    const lines: string[] = [];
    const args = ["join", "show", "--config", "cueport.json"];
    assert.equal(await runGroupCommand(args, (l) => lines.push(l)), 0, lines.join("\n"));
    assert.equal(JSON.parse(await Deno.readTextFile(`${dir}/cueport.json`)).group, "show");
    // Written again (it exists now): leaving works the same.
    assert.equal(await runGroupCommand(["leave", "--config", "cueport.json"], () => {}), 0);
    assert.deepEqual(JSON.parse(await Deno.readTextFile(`${dir}/cueport.json`)), {});
  } finally {
    Deno.chdir(cwd);
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("describe() says the group, the leader, whether edits are possible, each member", () => {
  const member = {
    addresses: ["10.0.0.1"],
    ports: { http: 17736 },
    version: "0.1.0",
    startedAt: "2026-11-30T00:00:00.000Z",
    seenAt: "2026-11-30T00:01:00.000Z",
  };
  const clock: RigClock = {
    ...{ role: "follower", offsetMs: -250.43, errorMs: 0.75, frameLagMs: null },
    ...{ scheduled: 0, late: 0, lastAction: null },
  };
  const status: GroupStatus = {
    group: "show",
    rig: "backup",
    members: [
      { ...member, name: "backup", isLeader: false, isThisRig: true, lastSeenMs: null, clock },
      { ...member, name: "main", isLeader: true, isThisRig: false, lastSeenMs: 180 },
    ],
    leader: "main",
    isLeader: false,
    canEdit: false,
    reason: "Edits are not possible: No etcd member answered",
    reasonCode: "GROUP_NO_QUORUM",
    endpoint: "http://10.0.0.2:2379",
    endpoints: ["http://10.0.0.2:2379", "http://10.0.0.1:2379"],
    clock,
  };
  assert.deepEqual(describe(status), [
    "Group show: this rig backup; edits NOT possible (Edits are not possible: No etcd member answered)",
    "Leader: main; etcd: http://10.0.0.2:2379 (of http://10.0.0.2:2379, http://10.0.0.1:2379)",
    "  backup: 10.0.0.1, HTTP 17736, 0.1.0, this rig, clock follower offset -250.4 ms error 0.8 ms",
    "  main, leader: 10.0.0.1, HTTP 17736, 0.1.0, seen 180 ms ago",
  ]);
});

Deno.test("describe() says how far the rig applied the log and the file an entry waits for", () => {
  const status: GroupStatus = {
    ...aloneStatus({ rigName: "backup" }),
    group: "show",
    endpoint: "http://10.0.0.2:2379",
    log: {
      applied: 41,
      head: 44,
      waitingFor: { of: "entry", revision: 42, sha256: "ab".repeat(32), sinceMs: 900 },
    },
  };
  assert.equal(
    describe(status).at(-1),
    `Log: applied 41 of 44; entry 42 WAITS 900 ms for file ${
      "ab".repeat(32)
    } (edits refused: GROUP_BEHIND)`,
  );
  const caughtUp = { ...status, log: { applied: 44, head: 44, waitingFor: null } };
  assert.equal(describe(caughtUp).at(-1), "Log: applied 44 of 44");
  const waiting = { of: "snapshot" as const, revision: 42, sha256: "ab".repeat(32), sinceMs: 900 };
  const snapshot = { ...status, log: { applied: 41, head: 44, waitingFor: waiting } };
  assert.match(describe(snapshot).at(-1)!, /; the snapshot of revision 42 WAITS 900 ms for file/);
});
