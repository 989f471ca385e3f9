/**
 * The output page's health: software GL only when the page says WebGL2 fails; a browser and
 * page that are slow but make progress (CPU time, files asked for, messages) are never
 * started again, one that makes none for the bound is, said with the figures, each restart
 * in a row waiting twice as long. On a stand-in supervisor, with injected clock and timers.
 */
import assert from "node:assert/strict";
import {
  CHECK_MS,
  GL_OBJECTS_GROWTH_WARN,
  HIDDEN_BOUND_MS,
  NO_PROGRESS_MS,
  PageHealth,
  type PageHealthOptions,
} from "../../../player/output/page_health.ts";
import { JUDGED_AFTER_MS, RENDER_SCALES } from "../../../player/output/page/render_scale.js";

/** A supervisor that counts restarts (the health only flips software GL and restarts). */
function supervisor() {
  const fake = {
    isSoftwareGl: false,
    exitedAt: null as number | null,
    pid: 4242 as number | null,
    restarts: 0,
  };
  const restart = () => void fake.restarts++;
  const pageLoaded = () => {};
  return Object.assign(fake, { restart, pageLoaded });
}

/** A health on a clock that moves only by `tick` (one check each), the browser's CPU time set. */
function watched(s = supervisor()) {
  const lines: string[] = [];
  let now = 0;
  let check = () => {};
  const clock = { cpuMs: 0 as number | null };
  const options: PageHealthOptions = {
    log: (level, message) => lines.push(`${level}: ${message}`),
    now: () => now,
    setInterval: (fn) => {
      check = fn;
      return 1;
    },
    clearInterval: () => {},
    cpuMs: () => clock.cpuMs,
    loadAverage: () => 3.5,
  };
  const health = new PageHealth(s, options);
  /** Moves the clock by `seconds`, one check every `CHECK_MS`, `during` told before each. */
  const tick = (seconds: number, during: () => void = () => {}) => {
    for (let ms = 0; ms < seconds * 1000; ms += CHECK_MS) {
      now += CHECK_MS;
      during();
      check();
    }
  };
  /** Moves the clock by `ms`, less than `CHECK_MS`: no check falls due. */
  const wait = (ms: number) => {
    assert.ok(ms < CHECK_MS);
    now += ms;
  };
  return { s, lines, health, clock, tick, wait };
}

const report = (frames: number, driftMs: number, visibility = "visible", renderScale = 1) => ({
  type: "report" as const,
  seq: 1,
  frames,
  dropped: 30 - frames,
  offset: 0,
  driftMs,
  firstFrames: [],
  visibility,
  renderScale,
  scaleReason: null,
});
/** The smallest render scale: below it the page has no smaller picture to draw. */
const SMALLEST = RENDER_SCALES.at(-1)!;

Deno.test("PageHealth: a page without WebGL2 starts the browser again with software GL, once", () => {
  const { s, lines, health } = watched();
  assert.equal(health.hello("unavailable"), false);
  // What the page says restarts nothing: its reports must show it (`page_socket.ts`).
  assert.deepEqual([s.isSoftwareGl, s.restarts], [false, 0]);
  health.glLost();
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

Deno.test("PageHealth: a GL lost while a shader is suspected of the stall is not the GPU's: no software GL", () => {
  const { s, lines, health } = watched();
  assert.equal(health.hello("ANGLE (NVIDIA)"), true);
  health.glLost(true);
  assert.deepEqual([s.isSoftwareGl, s.restarts], [false, 0]);
  assert.match(lines.at(-1)!, /^info: .*while a shader is suspected of the stall/);
  // Lost again with no shader to blame: the GPU's, software GL.
  health.glLost(false);
  assert.deepEqual([s.isSoftwareGl, s.restarts], [true, 1]);
  health.close();
});

Deno.test("PageHealth: a relaunch's recovery time is logged when the new page says hello", () => {
  const { s, lines, health } = watched();
  s.exitedAt = performance.now() - 500;
  health.hello("webgl2");
  assert.ok(health.lastRecoveryMs! >= 500);
  assert.match(lines.at(-1)!, /^info: Output back \d+ ms after the browser exited$/);
  assert.equal(s.exitedAt, null);
  health.close();
});

Deno.test("PageHealth: a machine that cannot keep up is said at most once a minute", () => {
  const { lines, health, wait } = watched();
  health.report(report(30, 5), 30);
  wait(JUDGED_AFTER_MS);
  health.report(report(30, 5), 30);
  assert.equal(lines.length, 0, "all frames, on the clock");
  health.report(report(4, 5, "visible", SMALLEST), 30);
  health.report(report(30, 400), 30);
  assert.deepEqual(lines, [
    `warn: Output: the page drew 4 frames in the last second (display 30 fps) at scale ${SMALLEST}, 5 ms off the clock at most: the machine cannot keep up`,
  ]);
  health.close();
});

Deno.test("PageHealth: a page's first seconds of drawing are not judged, as the render scale does not judge them: its media load, its programs compile", () => {
  const { lines, health, tick, wait } = watched();
  assert.ok(health.hello("SwiftShader"));
  lines.length = 0;
  // Software GL's first frames, before the page's render scale may step down.
  health.report(report(2, 900), 30);
  wait(1000);
  health.report(report(3, 700), 30);
  wait(1000);
  wait(999);
  health.report(report(6, 300), 30);
  assert.deepEqual(lines, [], "the first report is under 3 s old");
  wait(1);
  health.report(report(4, 5, "visible", SMALLEST), 30);
  assert.deepEqual(lines, [
    `warn: Output: the page drew 4 frames in the last second (display 30 fps) at scale ${SMALLEST}, 5 ms off the clock at most: the machine cannot keep up`,
  ]);
  // A new page (a reload, a browser started again) has its own first seconds.
  tick(61, () => health.progress());
  assert.ok(health.hello("SwiftShader"));
  lines.length = 0;
  health.report(report(2, 900), 30);
  wait(JUDGED_AFTER_MS - 1);
  health.report(report(3, 700), 30);
  assert.deepEqual(lines, []);
  wait(1000);
  health.report(report(3, 700), 30);
  assert.equal(lines.length, 1);
  health.close();
});

Deno.test("PageHealth: a slow page is said to be beyond the machine only once its render scale has no smaller step; a page off the clock is said at any scale", () => {
  const { lines, health, wait, tick } = watched();
  health.report(report(30, 5), 30);
  wait(JUDGED_AFTER_MS);
  // Slow at a scale with a smaller step below: the page's own lines say each step it takes.
  for (const scale of RENDER_SCALES.slice(0, -1)) {
    health.report(report(8, 20, "visible", scale), 30);
    assert.deepEqual(lines, [], `scale ${scale}`);
  }
  health.report(report(8, 20, "visible", SMALLEST), 30);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^warn: Output: the page drew 8 frames .* at scale 0\.35, 20 ms off/);
  tick(61, () => health.progress());
  lines.length = 0;
  // Every frame drawn, but a layer 400 ms (12 frames) off the clock: no scale mends that.
  health.report(report(30, 400), 30);
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /drew 30 frames .* at scale 1, 400 ms off the clock/);
  health.close();
});

Deno.test("PageHealth: GL objects grown past the bound over the page's first report are said once per page", () => {
  const { lines, health } = watched();
  const objects = (textures: number) => ({
    programs: 4,
    shaders: 8,
    textures,
    framebuffers: 3,
    renderbuffers: 0,
    buffers: 1,
    vertexArrays: 1,
  });
  const withObjects = (textures: number) => ({ ...report(30, 5), glObjects: objects(textures) });
  health.hello("webgl2");
  health.report(withObjects(7), 30);
  health.report(withObjects(7 + GL_OBJECTS_GROWTH_WARN - 1), 30);
  assert.deepEqual(lines.filter((l) => l.includes("GL objects")), [], "under the bound");
  health.report(withObjects(7 + GL_OBJECTS_GROWTH_WARN), 30);
  health.report(withObjects(7 + 2 * GL_OBJECTS_GROWTH_WARN), 30);
  const told = lines.filter((l) => l.includes("GL objects"));
  assert.equal(told.length, 1, told.join("\n"));
  assert.match(
    told[0]!,
    /^warn: Output: the page holds 1048 GL objects, 1024 more than when it started \(4 programs, 8 shaders, 1031 textures, 3 framebuffers, 1 buffers, 1 vertexArrays\)/,
  );
  // A new page starts again from its own first report.
  health.hello("webgl2");
  health.report(withObjects(2000), 30);
  health.report(withObjects(2000 + GL_OBJECTS_GROWTH_WARN), 30);
  assert.equal(lines.filter((l) => l.includes("GL objects")).length, 2);
  health.close();
});

Deno.test("PageHealth: a browser that starts slowly but surely is never started again", () => {
  const { s, lines, health, clock, tick } = watched();
  health.browserStarted();
  // Ten minutes of starting: its CPU time grows, no page file asked for, no hello.
  tick(600, () => clock.cpuMs! += 40);
  assert.deepEqual([s.restarts, lines], [0, []]);
  // Then the page's files are asked for, slowly (one every 50 s), and it says hello.
  clock.cpuMs = null; // and /proc cannot say any more
  for (let i = 0; i < 5; i++) tick(50, () => {}), health.progress();
  health.hello("SwiftShader");
  // A page that draws one frame every 10 s reports every second: progress.
  tick(600, () => health.report(report(0, 5), 30));
  assert.deepEqual([s.restarts, s.isSoftwareGl], [0, false]);
  assert.ok(!lines.some((l) => l.includes("WebGL2") || l.includes("again")), lines.join("\n"));
  health.close();
});

Deno.test("PageHealth: a browser that makes no progress is started again after the bound, said with figures, backing off", () => {
  const { s, lines, health, clock, tick } = watched();
  health.browserStarted();
  clock.cpuMs = 1200; // it used 1.2 s, and then nothing
  tick(NO_PROGRESS_MS / 1000 - 5);
  assert.equal(s.restarts, 0, "not before the bound");
  tick(5);
  assert.equal(s.restarts, 1);
  assert.equal(
    lines.at(-1),
    "warn: Output: the browser made no progress for 60.0 s (60.0 s after its start, no hello yet: no page file asked for, its CPU time still 1.2 s); starting the browser again, next bound 120.0 s (load average 3.5)",
  );
  assert.equal(s.isSoftwareGl, false, "no GPU verdict from slowness");
  // The next one waits twice as long; a second stuck start tries software GL, saying so.
  health.browserStarted();
  tick(NO_PROGRESS_MS / 1000);
  assert.equal(s.restarts, 1, "the bound doubled");
  tick(NO_PROGRESS_MS / 1000);
  assert.deepEqual([s.restarts, s.isSoftwareGl], [2, true]);
  assert.match(
    lines.at(-1)!,
    /starting the browser again with software GL, next bound 240.0 s \(load average 3\.5\)$/,
  );
  // A page that loads resets the bound.
  health.browserStarted();
  health.hello("SwiftShader");
  assert.equal(health.noProgressBoundMs, NO_PROGRESS_MS);
  health.close();
});

Deno.test("PageHealth: a page that stops sending is started again; its CPU time alone is no progress", () => {
  const { s, lines, health, clock, tick } = watched();
  health.browserStarted();
  health.hello("SwiftShader");
  tick(30, () => health.report(report(2, 5), 30));
  tick(NO_PROGRESS_MS / 1000, () => clock.cpuMs! += 1000); // spinning, silent
  assert.equal(s.restarts, 1);
  assert.equal(
    lines.at(-1),
    "warn: Output: the page sent nothing for 60.0 s; starting the browser again, next bound 120.0 s (load average 3.5)",
  );
  health.close();
});

Deno.test("PageHealth: a hidden page (its timers maybe once a minute) is given HIDDEN_BOUND_MS", () => {
  const { s, health, tick } = watched();
  health.browserStarted();
  health.hello("SwiftShader");
  health.report(report(0, 0, "hidden"), 30);
  tick(HIDDEN_BOUND_MS / 1000 - 5);
  assert.equal(s.restarts, 0, "not after a minute, nor before the hidden bound");
  tick(5);
  assert.equal(s.restarts, 1);
  health.close();
});
