import assert from "node:assert/strict";
import { DeviceRegistry, newDeviceId } from "../../../server/auth/devices.ts";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("DeviceRegistry keeps every device added concurrently: the file on disk holds them all", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-devices-" });
  try {
    const registry = await DeviceRegistry.open(dataDir);
    await Promise.all(Array.from({ length: 60 }, (_, i) =>
      registry.add({
        deviceId: `device-${i}`,
        name: `Phone ${i}`,
        scopes: ["view"],
        tokenId: `token-${i}`,
        pairedAt: new Date(0).toISOString(),
        address: "127.0.0.2",
      })));
    const reopened = await DeviceRegistry.open(dataDir);
    assert.equal(reopened.list().length, 60);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("DeviceRegistry forgets approved local clients that stayed away, and keeps at most maxEntries", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-devices-" });
  try {
    const registry = await DeviceRegistry.open(dataDir);
    const revoked: string[] = [];
    registry.onrevoke = (id) => revoked.push(id);
    const day = 86_400_000;
    const device = (id: string, pairedAt: number) => ({
      deviceId: id,
      name: id,
      scopes: ["view" as const],
      tokenId: `t-${id}`,
      pairedAt: new Date(pairedAt).toISOString(),
      address: "127.0.0.1",
    });
    await registry.add(device("paired-phone", 0)); // paired with a code: never pruned
    const limits = { maxEntries: 3, idleMs: 30 * day, neverUsedMs: 100 * day };
    await registry.addApproved(device("old", 0), { ...limits, now: 0 });
    await registry.addApproved(device("used", day), { ...limits, now: day });
    registry.touch("old", new Date(2 * day).toISOString()); // still in use
    await registry.addApproved(device("a", 3 * day), { ...limits, now: 3 * day });
    await registry.addApproved(device("b", 4 * day), { ...limits, now: 4 * day });
    assert.deepEqual(revoked, ["used"], "the least recently used goes over the limit");
    await registry.addApproved(device("c", 33.5 * day), { ...limits, now: 33.5 * day });
    assert.deepEqual(revoked.sort(), ["a", "old", "used"], "idle for 30 days: forgotten");
    const reopened = await DeviceRegistry.open(dataDir);
    assert.deepEqual(reopened.list().map((d) => d.deviceId).sort(), ["b", "c", "paired-phone"]);
    // Never used again: forgotten after neverUsedMs, however recent the limit says.
    registry.touch("c", new Date(34 * day).toISOString());
    await registry.addApproved(device("d", 35 * day), {
      ...limits,
      neverUsedMs: day,
      now: 35 * day,
    });
    assert.deepEqual(registry.list().map((d) => d.deviceId).sort(), ["c", "d", "paired-phone"]);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("temp files of interrupted auth writes are removed at start", async () => {
  const svc = await startTestService();
  const dataDir = svc.dataDir;
  await svc.stop({ keepData: true });
  const leftover = `${dataDir}/auth/devices.json.0123abcd.tmp`;
  await Deno.writeTextFile(leftover, '[{"half');
  const again = await startTestService({}, { dataDir });
  try {
    await assert.rejects(Deno.stat(leftover), Deno.errors.NotFound);
    assert.equal((await again.get("/api/v1/devices")).status, 200);
  } finally {
    await again.stop();
  }
});

Deno.test("newDeviceId() gives dev- and 12 hex digits, as docs/security.md shows, each its own", () => {
  const ids = Array.from({ length: 1000 }, newDeviceId);
  for (const id of ids) assert.match(id, /^dev-[0-9a-f]{12}$/);
  assert.equal(new Set(ids).size, ids.length);
});
