import assert from "node:assert/strict";
import { DeviceRegistry } from "../../../server/auth/devices.ts";

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
