/**
 * `RigGroup` (server/rigs/group.ts) on an `Etcd` of the test's own and a
 * clock it moves: a rig whose renewal hangs stops claiming edits (and the
 * leadership) after two thirds of its lease, before etcd can have let the
 * lease run out, without waiting for its request to time out.
 */
import assert from "node:assert/strict";
import { type Etcd, EtcdUnavailable, type Kv, type TxnAnswer } from "../../../server/rigs/etcd.ts";
import { RigGroup } from "../../../server/rigs/group.ts";
import { until } from "../../../tools/testing/until.ts";

/** A one-rig etcd whose renewals wait until `release()`; `failedPuts` writes (puts, txns) fail first. */
function stallingEtcd(failedPuts = 0) {
  let release = () => {};
  const held = new Promise<void>((resolve) => release = resolve);
  let revision = 1;
  const kvs = new Map<string, Kv>();
  const put = (key: string, value: string) => {
    revision++;
    const old = kvs.get(key);
    kvs.set(key, {
      key,
      value,
      createRevision: old?.createRevision ?? revision,
      modRevision: revision,
      lease: "7",
    });
    return revision;
  };
  const etcd: Etcd = {
    endpoint: "http://etcd.test:2379",
    range: (key) =>
      Promise.resolve({
        kvs: [...kvs.values()].filter((kv) => kv.key.startsWith(key)),
        revision,
      }),
    put: (key, value) =>
      failedPuts-- > 0
        ? Promise.reject(new EtcdUnavailable("No etcd member answered /v3/kv/put"))
        : Promise.resolve(put(key, value)),
    txn: (txn): Promise<TxnAnswer> => {
      if (failedPuts-- > 0) return Promise.reject(new EtcdUnavailable("No etcd member answered"));
      const op = txn.success[0]!;
      if ("put" in op) put(op.put.key, op.put.value);
      const key = "put" in op ? op.put.key : "";
      return Promise.resolve({ succeeded: true, revision, ranges: [[kvs.get(key)!]] });
    },
    grant: () => Promise.resolve("7"),
    keepAlive: () => held.then(() => 2),
    revoke: () => Promise.resolve(),
    watch: (_, { signal }) =>
      new Promise((resolve) => signal.addEventListener("abort", () => resolve())),
  };
  return { etcd, release: () => release() };
}

Deno.test("RigGroup.status(): a renewal hanging for two thirds of the lease ends edits and the lead", async () => {
  const { etcd, release } = stallingEtcd();
  let now = 1_000;
  const group = new RigGroup({
    etcd,
    group: "show",
    rig: "main",
    leaseSeconds: 2,
    describe: () => ({ addresses: [], ports: {}, version: "0" }),
    endpoints: [etcd.endpoint],
    log: () => {},
    now: () => now,
  });
  group.start();
  try {
    await until("joined", () => group.status().canEdit);
    const joined = group.status();
    assert.equal(joined.isLeader, true);
    assert.deepEqual(joined.members.map((m) => m.name), ["main"]);
    now += 1_300; // the renewal sent meanwhile hangs: within two thirds of 2 s, still fine
    assert.equal(group.status().canEdit, true);
    now += 100;
    const lapsing = group.status();
    assert.equal(lapsing.canEdit, false);
    assert.equal(lapsing.isLeader, false);
    assert.match(lapsing.reason!, /has not renewed this rig's lease for 1400 ms/);
  } finally {
    release();
    await group.stop();
  }
});

Deno.test("RigGroup: a join that failed after its lease was granted campaigns at the next beat", async () => {
  const { etcd, release } = stallingEtcd(1);
  release(); // renewals answer at once
  const problems: string[] = [];
  const group = new RigGroup({
    etcd,
    group: "show",
    rig: "main",
    leaseSeconds: 1,
    describe: () => ({ addresses: [], ports: {}, version: "0" }),
    endpoints: [etcd.endpoint],
    log: (_, message) => problems.push(message),
  });
  group.start();
  try {
    await until("leading", () => group.status().isLeader);
    assert.match(problems[0]!, /Edits are not possible: No etcd member answered/);
    assert.equal(group.campaign?.key, "/cueport/show/election/main");
  } finally {
    await group.stop();
  }
});
