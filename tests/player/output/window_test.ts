/**
 * The output in a real window (Chromium under Xvfb, a virtual X display):
 * FULLSCREEN_TOGGLE puts the browser's window in full screen and back
 * through DevTools, a browser started again after a crash comes back full
 * screen, and the page keeps drawing. The editor window open beside it
 * (its page shares the output page's path) stays a normal window. In kiosk
 * (fullscreen mode) the editor opens as an app window (no tab strip, no
 * address bar), not full screen over the output, and the output window
 * closed while the editor is open comes back.
 */
import { ask } from "../../../tools/testing/devtools.ts";
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import {
  near,
  openOutputPlayer,
  type OutputPlayer,
  untilOutput,
} from "../../../tools/testing/output.ts";
import { type DevTools, pageAt, type WindowBounds } from "../../../player/output/devtools.ts";
import { OutputWindow } from "../../../player/output/window_state.ts";
import type { BrowserSupervisor } from "../../../player/output/supervisor.ts";
import type { Display } from "../../../protocol/displays.ts";
import { startXvfb } from "../../../tools/testing/displays.ts";

/** A display of 1280x720 at `left`. */
function display(index: number, left: number): Display {
  const size = { width: 1280, height: 720, scaleFactor: null };
  return { index, name: `D${index}`, left, top: 0, ...size, isPrimary: index === 0 };
}

Deno.test("OutputWindow: opens on its display, left alone there, moved when the display changes", async () => {
  const list = {
    displays: [display(0, 0), display(1, 1280)],
    source: "xrandr" as const,
    reason: null,
  };
  // Full screen as kiosk opens it, a pixel short of its display as Chromium keeps it on X11.
  let bounds: WindowBounds = {
    left: 0,
    top: 0,
    width: 1279,
    height: 719,
    windowState: "fullscreen",
  };
  const calls: Partial<WindowBounds>[] = [];
  const devtools = {
    windowBounds: () => Promise.resolve({ windowId: 1, bounds }),
    setWindowBounds: (_id: number, asked: Partial<WindowBounds>) => {
      calls.push(asked);
      bounds = { ...bounds, ...asked };
      return Promise.resolve();
    },
  };
  const window = new OutputWindow({ devtools } as unknown as BrowserSupervisor, {
    url: "http://127.0.0.1:1/s/",
    mode: "fullscreen",
    log: (message) => assert.fail(message),
    lister: { list: () => Promise.resolve(list) },
    asked: () => null,
  });
  try {
    await window.listed();
    assert.deepEqual(window.startRect(), { left: 0, top: 0, width: 1280, height: 720 });
    window.pageLoaded(true);
    assert.equal((await window.displays()).current, 0);
    assert.deepEqual(calls, [], "on its display already: not made normal, not moved");
    window.choose("1");
    assert.equal((await window.displays()).current, 1);
    assert.deepEqual(calls, [
      { windowState: "normal" },
      { left: 1280, top: 0, width: 1280, height: 720 },
      { windowState: "fullscreen" },
    ]);
  } finally {
    window.close();
  }
});

/** Runs `body` on a player whose output is in `mode` on a fresh Xvfb display. */
async function onXvfb(
  mode: "window" | "fullscreen",
  body: (p: OutputPlayer) => Promise<void>,
): Promise<void> {
  const xvfb = await startXvfb();
  const previous = Deno.env.get("DISPLAY");
  Deno.env.set("DISPLAY", xvfb.display);
  const p = await openOutputPlayer({ mode });
  try {
    await body(p);
  } catch (error) {
    throw new Error(`${error}; the player said: ${p.logs.join("\n")}`);
  } finally {
    await p.close();
    if (previous === undefined) Deno.env.delete("DISPLAY");
    else Deno.env.set("DISPLAY", previous);
    await xvfb.stop();
  }
}

/** The height of the browser's own bars above the page of `targetId` (0: an app window). */
async function chromeHeight(devtools: DevTools, targetId: string): Promise<number> {
  const { sessionId } = await ask<{ sessionId: string }>(devtools, "Target.attachToTarget", {
    targetId,
    flatten: true,
  });
  try {
    const expression = "window.outerHeight - window.innerHeight";
    const { result } = await ask<{ result: { value: number } }>(devtools, "Runtime.evaluate", {
      expression,
    }, { sessionId });
    return result.value;
  } finally {
    await ask(devtools, "Target.detachFromTarget", { sessionId });
  }
}

/** Closes the output page's window through DevTools, as a user closing it would. */
async function closeOutputWindow(devtools: DevTools, url: string): Promise<void> {
  const { targetInfos } = await ask<{ targetInfos: TargetInfo[] }>(devtools, "Target.getTargets");
  const output = pageAt(targetInfos, url);
  assert(output, "the output page's target");
  await ask(devtools, "Target.closeTarget", { targetId: output.targetId });
}

interface TargetInfo {
  targetId: string;
  type: string;
  url: string;
}

Deno.test({
  ...needs("chromium", "ffmpeg", "Xvfb"),
  name: "Kiosk: the editor is a window beside the full-screen output, which comes back closed",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    onXvfb("fullscreen", async (p) => {
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      assert(near(await p.centre(), [255, 0, 0]), "the output draws");
      assert.equal(await p.output.window.state(), "fullscreen");
      await p.run("OPEN_EDITOR", { kind: "effect", presetID: "fx-blur" });
      await untilOutput(p.output, "the editor window", () => p.app.appState.editor?.shown === true);
      const devtools = p.output.browserDevTools!;
      assert.equal(await devtools.windowState(p.output.editorUrl), "normal", "the editor's");
      assert.equal(await p.output.window.state(), "fullscreen", "the output's");
      // The output's window closed while the editor keeps the browser running: it comes back.
      const loads = p.output.stats.pageLoads;
      await closeOutputWindow(devtools, p.output.url);
      await untilOutput(p.output, "the output page again", () => p.output.stats.pageLoads > loads);
      await untilOutput(p.output, "the output in full screen", async () => {
        return await p.output.window.state().catch(() => "gone") === "fullscreen";
      });
      assert(near(await p.centre(), [255, 0, 0]), "the output draws again");
      assert.equal(p.app.appState.editor?.shown, true, "the editor stays open");
    }),
});

Deno.test({
  ...needs("chromium", "ffmpeg", "Xvfb"),
  name: "Output in a window: FULLSCREEN_TOGGLE sets the window's state",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: () =>
    onXvfb("window", async (p) => {
      await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
      const first = await p.centre();
      assert(near(first, [255, 0, 0]), `centre ${first}`);
      assert.equal(await p.output.window.state(), "normal");
      const devtools = p.output.browserDevTools!;
      await p.run("OPEN_EDITOR", { kind: "effect", presetID: "fx-blur" });
      await untilOutput(p.output, "the editor window", () => p.app.appState.editor?.shown === true);
      // Started on the server's root and navigated over the pipe, the output stays an app
      // window: no tab strip or address bar as the editor's window (a DevTools one) has.
      const { targetInfos } = await ask<{ targetInfos: TargetInfo[] }>(
        devtools,
        "Target.getTargets",
      );
      const output = await chromeHeight(devtools, pageAt(targetInfos, p.output.url)!.targetId);
      const editor = await chromeHeight(
        devtools,
        pageAt(targetInfos, p.output.editorUrl)!.targetId,
      );
      assert.ok(output < editor, `the output's bars ${output} px, the editor's ${editor} px`);
      await p.run("FULLSCREEN_TOGGLE");
      assert.equal(await p.output.window.state(), "fullscreen");
      assert.equal(await devtools.windowState(p.output.editorUrl), "normal", "the editor's");
      const full = await p.centre();
      assert(near(full, [255, 0, 0]), `centre in full screen ${full}`);
      // A crashed browser comes back full screen: the flag is the show's, not the window's.
      const pid = p.output.browserPid!;
      const loads = p.output.stats.pageLoads;
      Deno.kill(pid, "SIGKILL");
      await untilOutput(
        p.output,
        "the page of the new browser",
        () => p.output.stats.pageLoads > loads,
      );
      // The new browser may itself be replaced (software GL when its GPU gives no WebGL2), so
      // the window is asked until the browser that stays is full screen.
      await untilOutput(p.output, "the new browser's window in full screen", async () => {
        return await p.output.window.state().catch(() => "gone") === "fullscreen";
      });
      await p.run("FULLSCREEN_TOGGLE");
      assert.equal(await p.output.window.state(), "normal");
      await p.run("STOP_IN");
      const last = await p.centre();
      assert(near(last, [0, 255, 0]), `the page still draws: ${last}`);
    }),
});
