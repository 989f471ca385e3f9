/**
 * The output on the display the show chooses, under Xvfb with two screens: one X screen of
 * 2560x720 split into two RandR monitors with `xrandr --setmonitor` (`LEFT` and `RIGHT`, 1280x720
 * each; Xvfb runs with `-noreset`, else it forgets them when xrandr, its only client, exits).
 * The window's rectangle is read through DevTools (`Browser.getWindowBounds`): the window opens
 * on the chosen display, full screen there with the display's very rectangle (no band beside
 * it), moves when `OUTPUT_DISPLAY` changes it, and a display added after the start gets the
 * output that was waiting for it.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { until } from "../../../tools/testing/until.ts";
import {
  near,
  openOutputPlayer,
  type OutputPlayer,
  untilOutput,
} from "../../../tools/testing/output.ts";
import {
  chooseDisplay,
  fillsDisplay,
  listDisplays,
  parseMonitors,
} from "../../../player/output/displays.ts";
import { browserArgs, hasGpuDevice } from "../../../player/output/browser.ts";
import { addMonitor, grabScreen, startWideXvfb } from "../../../tools/testing/displays.ts";
import { decodePng, pixel, type Pixels } from "../../../tools/testing/images.ts";

const TWO = `Monitors: 2
 0: +*HDMI-1 1920/527x1080/296+0+0  HDMI-1
 1: +DP-2 1280/338x720/190+1920+-40  DP-2
`;

Deno.test("parseMonitors() reads xrandr's monitors: name, rectangle, the primary marked *", () => {
  const displays = parseMonitors(TWO);
  assert.deepEqual(displays, [
    {
      index: 0,
      name: "HDMI-1",
      left: 0,
      top: 0,
      width: 1920,
      height: 1080,
      isPrimary: true,
      scaleFactor: null,
    },
    {
      index: 1,
      name: "DP-2",
      left: 1920,
      top: -40,
      width: 1280,
      height: 720,
      isPrimary: false,
      scaleFactor: null,
    },
  ]);
  // None marked: the one at the desktop's corner is the primary.
  const unmarked = parseMonitors(" 0: R 800/1x600/1+800+0\n 1: L 800/1x600/1+0+0  screen");
  assert.deepEqual(unmarked.map((d) => d.isPrimary), [false, true]);
  assert.deepEqual(parseMonitors("Monitors: 0\n"), []);
});

Deno.test("chooseDisplay() takes a name, an index, primary or null; null for none", () => {
  const displays = parseMonitors(TWO);
  assert.equal(chooseDisplay(displays, "DP-2")?.index, 1);
  assert.equal(chooseDisplay(displays, "1")?.name, "DP-2");
  assert.equal(chooseDisplay(displays, null)?.name, "HDMI-1");
  assert.equal(chooseDisplay(displays, "primary")?.name, "HDMI-1");
  assert.equal(chooseDisplay(displays, "VGA-1"), null);
  assert.equal(chooseDisplay(displays, "2"), null);
  assert.equal(chooseDisplay([], null), null);
});

Deno.test("fillsDisplay(): the display's rectangle, or a pixel short as Chromium keeps it", () => {
  const display = { left: 1920, top: 0, width: 1280, height: 720 };
  assert.ok(fillsDisplay(display, display));
  assert.ok(fillsDisplay({ ...display, width: 1279, height: 719 }, display), "X11's window");
  assert.ok(!fillsDisplay({ ...display, left: 0 }, display), "another display");
  assert.ok(!fillsDisplay({ ...display, width: 640, height: 360 }, display), "a small window");
});

Deno.test("browserArgs() opens the window on its display's rectangle, none headless", () => {
  const window = { left: 1920, top: -40, width: 1280, height: 720 };
  const options = { profileDir: "/p", pageUrl: "http://127.0.0.1:1/s/", width: 1920, height: 1080 };
  for (const mode of ["window", "fullscreen"] as const) {
    const args = browserArgs(mode, { ...options, window });
    assert.ok(args.includes("--window-position=1920,-40"), mode);
    assert.ok(args.includes("--window-size=1280,720"), mode);
  }
  const headless = browserArgs("headless", { ...options, window });
  assert.ok(!headless.some((a) => a.startsWith("--window-position")), "headless: none");
  assert.ok(headless.includes("--window-size=640,360"));
});

/** Whether the pixel at `x`,`y` is the red Clip's. */
function isRed(picture: Pixels, x: number, y: number): boolean {
  return near(pixel(picture, x, y).slice(0, 3), [255, 0, 0]);
}

/** The screen's `rect`, grabbed once. */
async function grab(display: string, rect: typeof LEFT): Promise<Pixels> {
  return decodePng(await grabScreen(display, rect));
}

/**
 * The page running now and its browser: a browser started again, or a page loaded again, is
 * another (the one the window was seen full screen for may be gone, with its frames).
 */
function pageKey(p: OutputPlayer): string {
  return `${p.output.stats.browserStarts}/${p.output.stats.pageLoads}/${p.output.browserPid}`;
}

/**
 * Waits until the page of the browser running now has drawn the show in its window full screen
 * on `rect`: the window is seen so through DevTools, then two of the page's frame reports
 * arrive, the second with frames drawn (the first may count frames drawn before the window was
 * full screen: a report covers the second before it), all from the same browser and page. A
 * browser started again meanwhile (a crash, software GL) starts the wait over. Events only:
 * the reports; `untilOutput` fails only when the output makes no progress for 60 s.
 */
async function untilDrawnFullScreen(p: OutputPlayer, rect: typeof LEFT): Promise<void> {
  const wanted = JSON.stringify({ ...rect, windowState: "fullscreen" });
  let seen: { key: string; mark: (typeof p.output.reports)[number] | undefined } | null = null;
  let last = "";
  await untilOutput(
    p.output,
    `the show drawn full screen on ${wanted}`,
    async () => {
      const key = pageKey(p);
      if (seen && seen.key !== key) seen = null;
      if (!seen) {
        const mark = p.output.reports.at(-1);
        last = JSON.stringify(await p.output.window.bounds().catch((e) => ({ error: `${e}` })));
        if (last === wanted && pageKey(p) === key) seen = { key, mark };
        return false;
      }
      const reports = p.output.reports;
      const after = reports.slice(seen.mark ? reports.lastIndexOf(seen.mark) + 1 : 0);
      return after.length >= 2 && after.slice(1).some((r) => r.frames > 0);
    },
  ).catch((error) => {
    throw new Error(`${error.message}; the window was ${last}`);
  });
}

/** The pixels of `picture` that are not the red Clip's, of the centre and the bubble's place. */
function notRed(picture: Pixels): string {
  // Where Chromium's "To exit full screen, press and hold Esc" showed (centred, 44 to 95 px
  // from the top; it hides by itself seconds later), and the centre.
  const where = [[640, 400], [640, 80], [560, 70], [720, 90]] as const;
  return where.filter(([x, y]) => !isRed(picture, x, y))
    .map(([x, y]) => `${pixel(picture, x, y)} at [${x},${y}]`).join("; ");
}

const LEFT = { left: 0, top: 0, width: 1280, height: 720 };
const RIGHT = { left: 1280, top: 0, width: 1280, height: 720 };

/**
 * How long the window is asked before a wait fails, ms: a cap that only bounds a hang (the
 * browser moves the window within a few polls; `untilOutput` alone would wait on a page that
 * keeps drawing forever).
 */
const WINDOW_WAIT_MS = 300_000;

/** Waits until the output window has `rect` and `state` (polled: the browser moves it). */
async function untilWindow(
  p: OutputPlayer,
  what: string,
  rect: typeof LEFT,
  state: string,
): Promise<void> {
  const wanted = JSON.stringify({ ...rect, windowState: state });
  let last = "";
  await until(what, async () => {
    last = JSON.stringify(await p.output.window.bounds().catch((e) => ({ error: `${e}` })));
    return last === wanted;
  }, WINDOW_WAIT_MS).catch((error) => {
    throw new Error(`${error.message}: the window is ${last}, not ${wanted}`);
  });
}

Deno.test({
  ...needs("chromium", "ffmpeg", "Xvfb", "xrandr"),
  name: "The output opens on the chosen display, full screen there, and follows OUTPUT_DISPLAY",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const xvfb = await startWideXvfb();
    const previous = Deno.env.get("DISPLAY");
    Deno.env.set("DISPLAY", xvfb.display);
    // Only LEFT at the start: the chosen RIGHT is plugged in later.
    await addMonitor(xvfb.display, "LEFT", 0, "screen");
    const p = await openOutputPlayer({ mode: "window", display: "RIGHT" });
    try {
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      // RIGHT is not there: the output waits on the primary, LEFT.
      await untilWindow(p, "the window on LEFT, the primary", LEFT, "normal");
      await p.run("FULLSCREEN_TOGGLE");
      await untilWindow(p, "full screen on LEFT", LEFT, "fullscreen");
      const waiting = await p.app.displays();
      assert.deepEqual([waiting.choice, waiting.current], ["RIGHT", 0], "chosen RIGHT, on LEFT");
      // No bubble of the browser's over the show, once its page drew the show full screen
      // there (after a software-GL restart too: the first frames of a new browser take
      // seconds). (The band is the window's rectangle, above: the page itself pillarboxes a
      // 16:9 picture in a window that a browser's bar makes wider than that.)
      await untilDrawnFullScreen(p, LEFT);
      assert.equal(notRed(await grab(xvfb.display, LEFT)), "", "not the show's red on LEFT");
      // The projector is plugged in: the output goes to it, full screen there.
      await addMonitor(xvfb.display, "RIGHT", 1280);
      await untilWindow(p, "full screen on RIGHT, plugged in later", RIGHT, "fullscreen");
      const listed = await p.app.displays();
      assert.deepEqual(listed.displays.map((d) => [d.name, d.left, d.width, d.isPrimary]), [
        ["LEFT", 0, 1280, true],
        ["RIGHT", 1280, 1280, false],
      ]);
      assert.equal(listed.source, "xrandr");
      assert.equal(listed.choice, "RIGHT");
      assert.equal(listed.current, 1);
      // A browser started again (a crash; the software-GL restart kills it the same way)
      // opens on RIGHT and is full screen there again, drawing the show.
      const loads = p.output.stats.pageLoads;
      Deno.kill(p.output.browserPid!, "SIGKILL");
      await untilOutput(p.output, "the new browser's page", () => p.output.stats.pageLoads > loads);
      await untilDrawnFullScreen(p, RIGHT);
      assert.equal(notRed(await grab(xvfb.display, RIGHT)), "", "not the show's red on RIGHT");
      // The action moves it, by index; the choice is saved with the settings.
      await p.run("OUTPUT_DISPLAY", { display: "0" });
      await untilWindow(p, "full screen on display 0", LEFT, "fullscreen");
      assert.equal(p.app.appState.outputDisplay, "0");
      await p.run("FULLSCREEN_TOGGLE");
      await untilWindow(p, "a window on display 0", LEFT, "normal");
      await p.run("OUTPUT_DISPLAY", { display: "RIGHT" });
      await untilWindow(p, "a window on RIGHT", RIGHT, "normal");
      // No GPU device (a VM under Xvfb): software GL from the first start, no restart for it
      // (its GPU process's try lost the page's first WebGL2 context: docs/output.md).
      if (!hasGpuDevice()) {
        const restarts = p.logs.filter((l) => l.includes("starting the browser with software GL"));
        assert.deepEqual(restarts, [], "software GL from the start");
      }
    } catch (error) {
      throw new Error(`${error}; the player said: ${p.logs.join("\n")}`);
    } finally {
      await p.close();
      if (previous === undefined) Deno.env.delete("DISPLAY");
      else Deno.env.set("DISPLAY", previous);
      await xvfb.stop();
    }
  },
});

Deno.test({
  ...needs("chromium", "ffmpeg", "Xvfb", "xrandr"),
  name: "Kiosk with outputDisplay 1: the output starts full screen on the second display",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const xvfb = await startWideXvfb();
    const previous = Deno.env.get("DISPLAY");
    Deno.env.set("DISPLAY", xvfb.display);
    await addMonitor(xvfb.display, "LEFT", 0, "screen");
    await addMonitor(xvfb.display, "RIGHT", 1280);
    const p = await openOutputPlayer({ mode: "fullscreen", display: "1" });
    try {
      assert.equal(p.app.appState.outputDisplay, "1", "the setting, at the start");
      await untilWindow(p, "kiosk full screen on display 1", RIGHT, "fullscreen");
    } catch (error) {
      throw new Error(`${error}; the player said: ${p.logs.join("\n")}`);
    } finally {
      await p.close();
      if (previous === undefined) Deno.env.delete("DISPLAY");
      else Deno.env.set("DISPLAY", previous);
      await xvfb.stop();
    }
  },
});

Deno.test("listDisplays(): one xrandr at a time whoever asks, and a hung one stopped with the reason", async () => {
  const dir = await Deno.makeTempDir({ prefix: "cueport-xrandr-" });
  const saved = { PATH: Deno.env.get("PATH"), DISPLAY: Deno.env.get("DISPLAY") };
  // An X server that never answers: the fake xrandr notes each start and hangs.
  await Deno.writeTextFile(
    `${dir}/xrandr`,
    `#!/bin/sh\necho started >> "${dir}/runs"\nexec sleep 600\n`,
  );
  await Deno.chmod(`${dir}/xrandr`, 0o755);
  Deno.env.set("PATH", `${dir}:${saved.PATH ?? ""}`);
  Deno.env.set("DISPLAY", ":98");
  try {
    const lists = await Promise.all(Array.from({ length: 8 }, () => listDisplays(300)));
    const runs = (await Deno.readTextFile(`${dir}/runs`)).trim().split("\n");
    assert.equal(runs.length, 1, "eight callers, one xrandr");
    for (const list of lists) {
      assert.deepEqual(list.displays, []);
      assert.equal(list.source, "none");
      assert.match(list.reason!, /did not answer within 300 ms/);
    }
    await listDisplays(300);
    assert.equal((await Deno.readTextFile(`${dir}/runs`)).trim().split("\n").length, 2);
  } finally {
    for (const [key, value] of Object.entries(saved)) {
      if (value === undefined) Deno.env.delete(key);
      else Deno.env.set(key, value);
    }
    await Deno.remove(dir, { recursive: true });
  }
});
