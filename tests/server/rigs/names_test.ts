/**
 * A rig's name and addresses (server/rigs/mod.ts, protocol/rigs.ts): the
 * host name made a rig name by the one rule the settings check too, and the
 * addresses other rigs may reach it on (no loopback, no link-local).
 */
import assert from "node:assert/strict";
import { reachableAddresses, rigNameOf } from "../../../server/rigs/mod.ts";
import { RigName, rigNameFrom } from "../../../protocol/rigs.ts";
import { Settings } from "../../../server/config.ts";

Deno.test("rigNameFrom(): a host name made a rig name that the settings accept", () => {
  const cases: Array<[string, string]> = [
    ["stage-pc", "stage-pc"],
    ["Stage PC (main)", "Stage-PC--main-"],
    ["..hidden", "hidden"],
    ["\u00e9t\u00e9", "t-"],
    ["---", "cueport"],
    ["", "cueport"],
    ["a".repeat(80), "a".repeat(63)],
  ];
  for (const [host, name] of cases) {
    assert.equal(rigNameFrom(host), name, host);
    assert.ok(RigName.safeParse(name).success, name);
    const settings = Settings.parse({ dataDir: "/tmp/cueport", rigName: name, group: name });
    assert.equal(rigNameOf(settings), name);
  }
  assert.throws(() => Settings.parse({ dataDir: "/tmp/cueport", rigName: "a/b" }));
  assert.throws(() => Settings.parse({ dataDir: "/tmp/cueport", group: "-a" }));
});

Deno.test("reachableAddresses(): no loopback, no IPv4 or IPv6 link-local", () => {
  const addresses = ["127.0.0.1", "::1", "fe80::1", "FE80::2", "169.254.10.2", "192.168.1.11"];
  assert.deepEqual(reachableAddresses([...addresses, "10.0.0.2", "fd00::5"]), [
    "192.168.1.11",
    "10.0.0.2",
    "fd00::5",
  ]);
});
