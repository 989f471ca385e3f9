/**
 * No pointer over the output. The page hides it (`cursor: none` in `page/index.html`), but a
 * browser sets a window's pointer only when a mouse event reaches the page: a pointer resting
 * where the window opens (the centre of the screen, where X puts it) kept the browser's arrow
 * over the show until someone moved the mouse (seen under Xvfb with `ffmpeg -f x11grab
 * -draw_mouse 1`). One mouse move given to the page through DevTools, when it has loaded, has
 * the page say its pointer: none. The move is the page's alone; the pointer stays where it is.
 * @module
 */
import { type DevTools, pageAt } from "./devtools.ts";

/** Has the page at `url` set the pointer over its window: one mouse move, at its corner. */
export async function hidePointer(devtools: DevTools, url: string): Promise<void> {
  const { targetInfos } = await devtools.send<{ targetInfos: { targetId: string; url: string }[] }>(
    "Target.getTargets",
  );
  const page = pageAt(targetInfos, url);
  if (!page) return; // closed meanwhile: its next load hides it
  const { sessionId } = await devtools.send<{ sessionId: string }>("Target.attachToTarget", {
    targetId: page.targetId,
    flatten: true,
  });
  try {
    await devtools.send("Input.dispatchMouseEvent", { type: "mouseMoved", x: 0, y: 0 }, {
      sessionId,
    });
  } finally {
    await devtools.send("Target.detachFromTarget", { sessionId }).catch(() => {});
  }
}
