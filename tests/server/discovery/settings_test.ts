import assert from "node:assert/strict";
import { loadSettings } from "../../../server/config.ts";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("discovery settings: --mdns off/on, CUEPORT_MDNS, --service-name; on and Cueport by default", async () => {
  const load = async (args: string[], env: Record<string, string> = {}) => {
    const loaded = await loadSettings(["--data-dir", "/tmp/x", ...args], (n) => env[n]);
    assert.ok("settings" in loaded);
    return loaded.settings;
  };
  const defaults = await load([]);
  assert.equal(defaults.mdns, true);
  assert.equal(defaults.serviceName, "Cueport");
  assert.equal((await load(["--mdns", "off"])).mdns, false);
  assert.equal((await load(["--mdns", "on"])).mdns, true);
  assert.equal((await load([], { CUEPORT_MDNS: "off" })).mdns, false);
  assert.equal((await load(["--service-name", "Stage Left"])).serviceName, "Stage Left");
  await assert.rejects(load(["--mdns", "maybe"]), /mdns/);
});

Deno.test("discovery settings: a service with mdns off advertises nothing", async () => {
  const t = await startTestService({ mdns: false });
  try {
    assert.equal(t.service.discovery, null);
  } finally {
    await t.stop();
  }
});
