import assert from "node:assert/strict";
import { loopbackArgs, startCueport } from "../../bench/_cueport.ts";

/**
 * A benched Cueport keeps to itself (docs/load.md, "Baselines and paired ratios"): loopback only,
 * no mDNS, and a free port for every listener, network MIDI's pair included, never the default
 * 5004 another Cueport on the machine may hold.
 */
Deno.test("a benched Cueport takes a free port for every listener, network MIDI's pair included", async () => {
  const args = loopbackArgs();
  const value = (flag: string) => args[args.indexOf(flag) + 1];
  assert.equal(value("--host"), "127.0.0.1");
  assert.equal(value("--mdns"), "off");
  for (const flag of ["--http-port", "--ws-port", "--osc-port", "--legacy-http-port"]) {
    assert.equal(value(flag), "0", flag);
  }
  const dataDir = await Deno.makeTempDir({ prefix: "cueport-bench-loopback-" });
  const cueport = await startCueport(dataDir);
  try {
    const { midi } = cueport.ports as { midi?: number | null };
    assert.ok(typeof midi === "number" && midi > 0 && midi !== 5004, `MIDI on ${midi}`);
    const health = await fetch(`http://127.0.0.1:${cueport.ports.http}/health`);
    assert.equal(health.status, 200);
    await health.body?.cancel();
  } finally {
    await cueport.stop();
    await Deno.remove(dataDir, { recursive: true });
  }
});
