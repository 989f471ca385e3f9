import assert from "node:assert/strict";
import { PageHealth } from "../../../player/output/page_health.ts";
import type { BrowserSupervisor } from "../../../player/output/supervisor.ts";

/** A supervisor that counts restarts (the health only flips software GL and restarts). */
function supervisor() {
  const fake = { isSoftwareGl: false, exitedAt: null as number | null, restarts: 0 };
  const restart = () => void fake.restarts++;
  const pageLoaded = () => {};
  return Object.assign(fake, { restart, pageLoaded }) as unknown as
    & BrowserSupervisor
    & typeof fake;
}

const report = (frames: number, driftMs: number) => ({
  type: "report" as const,
  seq: 1,
  frames,
  dropped: 30 - frames,
  offset: 0,
  driftMs,
  firstFrames: [],
  visibility: "visible",
});

Deno.test("PageHealth: a page without WebGL2 starts the browser again with software GL, once", () => {
  const s = supervisor();
  const lines: string[] = [];
  const health = new PageHealth(s, (level, message) => lines.push(`${level}: ${message}`));
  assert.equal(health.hello("unavailable"), false);
  assert.deepEqual([s.isSoftwareGl, s.restarts], [true, 1]);
  health.glLost(); // the old page, still talking: no error
  assert.equal(lines.filter((l) => l.startsWith("error")).length, 0);
  assert.equal(health.hello("SwiftShader"), true);
  health.glLost(); // the software-GL page fails too: said, not restarted forever
  assert.deepEqual([s.restarts, lines.at(-1)], [
    1,
    "error: Output: WebGL2 fails even with software GL: nothing is drawn",
  ]);
  health.close();
});

Deno.test("PageHealth: a relaunch's recovery time is logged when the new page says hello", () => {
  const s = supervisor();
  const lines: string[] = [];
  const health = new PageHealth(s, (level, message) => lines.push(`${level}: ${message}`));
  s.exitedAt = performance.now() - 500;
  health.hello("webgl2");
  assert.ok(health.lastRecoveryMs! >= 500);
  assert.match(lines.at(-1)!, /^info: Output back \d+ ms after the browser exited$/);
  assert.equal(s.exitedAt, null);
  health.close();
});

Deno.test("PageHealth: a machine that cannot keep up is said at most once a minute", () => {
  const lines: string[] = [];
  const health = new PageHealth(
    supervisor(),
    (level, message) => lines.push(`${level}: ${message}`),
  );
  health.report(report(30, 5), 30);
  assert.equal(lines.length, 0, "all frames, on the clock");
  health.report(report(4, 5), 30);
  health.report(report(30, 400), 30);
  assert.deepEqual(lines, [
    "warn: Output: the page drew 4 frames in the last second (display 30 fps), 5 ms off the clock at most: the machine cannot keep up",
  ]);
  health.close();
});
