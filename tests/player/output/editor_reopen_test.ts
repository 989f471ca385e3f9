/**
 * The editor window closed and opened again at once, in a real browser (issue 42): the closed
 * window's last events come from the browser while the editor is being opened again, and must
 * neither close the new editor nor keep the old window as its own. Each round closes the window
 * one of the ways a show closes it (its preset removed, its page crashed) and opens the editor
 * again without waiting for the old window to go; before the fix the first round's editor closed
 * itself as the old window ended, and its new window stayed with "The editor is closed". The
 * scripted order of those events is `editor_window_events_test.ts`'s.
 */
import assert from "node:assert/strict";
import type { Browser } from "puppeteer-core";
import { VirtualClock } from "../../../player/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { openOutputService, outputDataDir, untilOutput } from "../../../tools/testing/output.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
import { parseIsfApart } from "../../../player/isf/apart.ts";
import { connectBrowser, editorPages, untilEditorShows } from "./_editor.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** Rounds of each way of closing: removed, crashed (about 2 s a round at load 25). */
const ROUNDS = 2;

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "The editor window closed and opened again at once shows each time",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn() {
    const dataDir = await outputDataDir();
    const s = await openOutputService(dataDir, { clock: new VirtualClock() });
    const send = async (path: string, body: unknown): Promise<Json> => {
      const res = await fetch(s.base + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      const answer = await res.json();
      assert.equal(res.status, 200, JSON.stringify(answer));
      return answer;
    };
    const editorState = async () =>
      (await (await fetch(`${s.base}/api/v1/app-state`)).json()).editor;
    const open = (presetId: string) =>
      send("/api/v1/action", { name: "OPEN_EDITOR", params: ["effect", presetId] });
    let browser: Browser | null = null;
    try {
      await parseIsfApart(INVERT, "effect"); // its modules loaded before the first preset.add
      browser = await connectBrowser(s.output);
      for (let round = 0; round < 2 * ROUNDS; round++) {
        const added = await send("/api/v1/edit", {
          name: "preset.add",
          params: { kind: "effect", name: `Invert ${round}`, type: "isf", code: INVERT },
        });
        const presetID = added.edits[0].created.presetID;
        await open(presetID);
        await untilEditorShows(s, presetID, browser);
        if (round % 2 === 0) {
          await send("/api/v1/edit", {
            name: "preset.remove",
            params: { kind: "effect", presetID },
          });
        } else {
          const target = browser.targets().filter((t) => t.url() === s.output.editorUrl).at(-1)!;
          const session = await target.createCDPSession();
          await session.send("Page.crash").catch(() => {}); // answered by the crash itself
          await untilOutput(s.output, "the crash to close the editor", async () => {
            return (await editorState()) === null;
          });
        }
        // At once: the old window is still going.
        await open("fx-blur");
        await untilEditorShows(s, "fx-blur", browser);
      }
      // One window for the one editor, once the closed ones are gone.
      const windows = () => browser!.targets().filter((t) => t.url() === s.output.editorUrl);
      await untilOutput(s.output, "one editor window", () => windows().length === 1)
        .catch(async (error) => {
          throw new Error(`${error.message} (${await editorPages(browser!, s.output)})`);
        });
    } finally {
      (browser as Browser | null)?.disconnect();
      await s.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
