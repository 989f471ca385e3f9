/**
 * The clock exchange between two network namespaces joined by a veth pair, delayed 2 ms +- 1 ms
 * each way (netem, or the bench's relay where the kernel has no netem), the two rigs in two
 * processes. Made and removed by the test; as root only (skipped otherwise).
 */
import assert from "node:assert/strict";
import { measureNamespaces } from "../../../../bench/rig_clock_bench.ts";
import { has } from "../../../../tools/testing/peers.ts";

/** Why namespaces cannot be made here, or null (root, on Linux, with `ip`). */
function unavailable(): string | null {
  if (Deno.build.os !== "linux") return "Linux only";
  if (!has("ip")) return "needs ip (iproute2)";
  // `id -u`: the tests may run programs but not read the uid themselves.
  const id = new Deno.Command("id", { args: ["-u"], stdout: "piped", stderr: "null" }).outputSync();
  const uid = new TextDecoder().decode(id.stdout).trim();
  return uid === "0" ? null : `needs root (uid ${uid})`;
}

const why = unavailable();

Deno.test({
  name: `ClockExchange between two network namespaces, 2 ms +- 1 ms each way: within a millisecond${
    why === null ? "" : ` (skipped: ${why})`
  }`,
  ignore: why !== null,
  async fn() {
    const rounds = 40;
    const result = await measureNamespaces(rounds);
    // A round gives no sample when none of its 8 requests is answered within 250 ms (an answering
    // process starved on a machine kept busy: 39 of 40 beside stress-ng); the filter keeps its
    // last estimate then (docs/rigs_clock.md). Nearly all are answered.
    assert.ok(result.answered >= rounds - 2, JSON.stringify(result));
    // The truth is the skew plus what the two processes' clocks disagree by (`clockShift`): a
    // failure at a load of 11 had every round 1.8 to 2.5 ms off, each within its delay.
    assert.ok(Number.isFinite(result.clockShift), JSON.stringify(result));
    // The filter's bound holds (the two processes' clocks agree within tens of microseconds).
    assert.ok(result.withinEstimate >= 0.95 * rounds, JSON.stringify(result));
    // Half the rounds within a millisecond of the truth. Not the p95: the relay's timers and the
    // answering process, starved on a machine kept busy, add their lateness to one way of a round
    // (p95 1.0 ms at a load of 12-16, 8.3 ms at a load of 50, where every round's error was still
    // within the filter's own estimate, checked above).
    assert.ok(result.offsetError.p50 < 1, JSON.stringify(result));
    const left = new TextDecoder().decode(
      (await new Deno.Command("ip", { args: ["netns", "list"], stdout: "piped" }).output()).stdout,
    );
    assert.doesNotMatch(left, /cueport-clk-/, "the namespaces are removed");
  },
});
