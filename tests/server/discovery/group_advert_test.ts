/**
 * DNS-SD adverts of a rig group (docs/discovery.md, "Rig groups"): a rig's TXT record names its
 * group and itself, `leader=1` on the leader only, announced again (RFC 6762 s.8.4) when its
 * leadership moves; alone, the TXT record is exactly as before. On the loopback, UDP 5353 held
 * (`mdnsTest`).
 */
import assert from "node:assert/strict";
import { until } from "../../../tools/testing/until.ts";
import { openEar, recordsOf } from "../../../tools/testing/mdns.ts";
import { mdnsTest } from "../../../tools/testing/mdns_port.ts";
import { startDiscovery } from "../../../server/discovery/mod.ts";
import { MAX_TXT_BYTES, txtBytes, txtOf } from "../../../server/discovery/records.ts";

const info = {
  apiVersion: "6.0",
  appVersion: "0.1.0",
  hostname: "show",
  platform: "linux",
  ports: { http: 17736, ws: 17734, osc: 17735 },
  wsPath: "/v1",
};

Deno.test("group advert: alone the TXT keys are today's; a rig adds group, rig and leader=1 when it leads", () => {
  const alone = {
    txtvers: "1",
    api: "6.0",
    version: "0.1.0",
    hostname: "show",
    platform: "linux",
    wsPort: "17734",
    httpPort: "17736",
    oscPort: "17735",
    wsPath: "/v1",
  };
  assert.deepEqual(txtOf(info), alone);
  assert.deepEqual(txtOf({ ...info, group: null }), alone);
  const backup = txtOf({ ...info, group: { group: "tour", rig: "backup", isLeader: false } });
  assert.deepEqual(backup, { ...alone, group: "tour", rig: "backup" });
  const main = txtOf({ ...info, group: { group: "tour", rig: "main", isLeader: true } });
  assert.deepEqual(main, { ...alone, group: "tour", rig: "main", leader: "1" });
  // Long names are cut (the hostname first) so the record stays under 200 bytes.
  const long = txtOf({
    ...info,
    hostname: "h".repeat(63),
    group: { group: "g".repeat(63), rig: "r".repeat(63), isLeader: true },
  });
  assert.ok(txtBytes(long) <= MAX_TXT_BYTES, `${txtBytes(long)} bytes`);
  assert.equal(long.leader, "1");
  assert.ok(long.group!.length > 0 && long.rig!.length > 0);
});

mdnsTest("group advert: leadership moving is announced with the new TXT record", async () => {
  const ear = await openEar({ port: 5353, join: true });
  let isLeader = false;
  const discovery = await startDiscovery({
    serviceName: "Rig",
    ports: { http: 2001, ws: 2002, osc: 2003 },
    hosts: ["127.0.0.1"],
    ...{ apiVersion: "6.0", appVersion: "0.1.0", wsPath: "/v1", log: () => {} },
    hostname: "rigb",
    interfaces: () => [{
      name: "lo",
      address: "127.0.0.1",
      netmask: "255.0.0.0",
      addresses: ["127.0.0.1"],
    }],
    timings: { interfacePollMs: 60_000 },
    group: () => ({ group: "tour", rig: "b", isLeader }),
    groupPollMs: 50,
  });
  /** The TXT records announced for the `_app._tcp` instance, in order. */
  const txts = () =>
    ear.heard.filter(({ message }) => message.type === "response").flatMap(({ message }) =>
      recordsOf(message).filter((r) => r.type === "TXT" && r.name === "Rig - rigb._app._tcp.local")
    ).map((r) => (r.data as Uint8Array[]).map((b) => new TextDecoder().decode(b)));
  try {
    await until("announced", () => discovery.announced && txts().length > 0);
    assert.ok(txts()[0]!.includes("group=tour") && txts()[0]!.includes("rig=b"));
    assert.ok(!txts()[0]!.includes("leader=1"));
    isLeader = true;
    await until("leader=1 announced", () => txts().some((t) => t.includes("leader=1")));
    isLeader = false;
    await until("leader=1 withdrawn", () => !txts().at(-1)!.includes("leader=1"));
  } finally {
    await discovery.stop();
    await ear.close();
  }
});
