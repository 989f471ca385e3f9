import assert from "node:assert/strict";
import { parseChronyTracking, readChronyTracking } from "../../../../server/rigs/clock/mod.ts";

/** `chronyc -n tracking` of a machine following a LAN server (chrony 4.3's layout). */
const SYNCED = `Reference ID    : C0A80A01 (192.168.10.1)
Stratum         : 3
Ref time (UTC)  : Mon Nov 30 00:12:07 2026
System time     : 0.000012345 seconds slow of NTP time
Last offset     : -0.000006747 seconds
RMS offset      : 0.000035822 seconds
Frequency       : 3.225 ppm slow
Residual freq   : -0.000 ppm
Skew            : 0.129 ppm
Root delay      : 0.000400000 seconds
Root dispersion : 0.000100737 seconds
Update interval : 16.1 seconds
Leap status     : Normal
`;

Deno.test("parseChronyTracking() reads the offsets in ms and bounds the error", () => {
  const tracking = parseChronyTracking(SYNCED)!;
  assert.equal(tracking.referenceId, "C0A80A01 (192.168.10.1)");
  assert.equal(tracking.stratum, 3);
  assert.ok(Math.abs(tracking.systemOffsetMs - -0.012345) < 1e-12);
  assert.ok(Math.abs(tracking.lastOffsetMs - -0.006747) < 1e-12);
  assert.equal(tracking.isSynced, true);
  assert.ok(Math.abs(tracking.errorMs - (0.012345 + 0.2 + 0.100737)) < 1e-9);
});

Deno.test("parseChronyTracking() says when chrony follows nothing, and refuses other text", () => {
  const lost = SYNCED.replace("Stratum         : 3", "Stratum         : 0")
    .replace("Leap status     : Normal", "Leap status     : Not synchronised");
  assert.equal(parseChronyTracking(lost)!.isSynced, false);
  assert.equal(parseChronyTracking("506 Cannot talk to daemon"), null);
  assert.equal(parseChronyTracking(SYNCED.replace(/Root delay.*\n/, "")), null);
});

Deno.test("readChronyTracking() is null without chronyc, and runs `chronyc -n tracking`", async () => {
  assert.equal(await readChronyTracking(() => Promise.resolve(null)), null);
  const asked: string[][] = [];
  const tracking = await readChronyTracking((command, args) => {
    asked.push([command, ...args]);
    return Promise.resolve(SYNCED);
  });
  assert.deepEqual(asked, [["chronyc", "-n", "tracking"]]);
  assert.equal(tracking?.stratum, 3);
});
