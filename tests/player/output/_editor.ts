/**
 * The editor window's tests' waits: puppeteer over the output browser's own pipe, and the wait
 * for an editor to show, which says what it saw when it ends (an editor that closed instead
 * ends it at once; issue 42 waited 10 minutes for one that had closed).
 */
import puppeteer, { type Browser } from "puppeteer-core";
import type { Output } from "../../../player/output/mod.ts";
import { type OutputService, untilOutput } from "../../../tools/testing/output.ts";

/** Puppeteer on the output's browser, over its DevTools pipe (no port). */
export async function connectBrowser(output: Output): Promise<Browser> {
  let devtools = output.browserDevTools;
  await untilOutput(output, "the output browser's DevTools", () => {
    devtools = output.browserDevTools;
    return devtools !== null;
  });
  return await puppeteer.connect({ transport: devtools!.channel(), defaultViewport: null });
}

/** The editor pages of `browser` and what each one's status line says. */
export async function editorPages(browser: Browser, output: Output): Promise<string> {
  const targets = browser.targets().filter((t) => t.url() === output.editorUrl);
  const lines = await Promise.all(targets.map(async (target) => {
    const page = await target.page().catch(() => null);
    const status = await page?.$eval("#status", (e) => e.textContent).catch(() => null);
    return JSON.stringify(status ?? "(no status)");
  }));
  return `${targets.length} editor page(s)${lines.length > 0 ? `: ${lines.join(", ")}` : ""}`;
}

/**
 * Waits until the editor open on `presetId` shows (`appState.editor.shown`): while the output
 * makes progress (`untilOutput`), failing at once if the editor closes instead. Either way the
 * error says what it saw last: the editor's state and, given `browser`, the editor pages.
 */
export async function untilEditorShows(
  s: OutputService,
  presetId: string,
  browser: Browser | null = null,
): Promise<void> {
  let last = "nothing yet";
  const what = `the editor of "${presetId}" to show`;
  try {
    await untilOutput(s.output, what, async () => {
      const { editor } = await (await fetch(`${s.base}/api/v1/app-state`)).json();
      last = editor ? `the editor of "${editor.presetId}", shown ${editor.shown}` : "no editor";
      if (!editor) throw new Error(`Waited for ${what}: the editor closed`);
      return editor.presetId === presetId && editor.shown === true;
    });
  } catch (error) {
    const pages = browser ? `; ${await editorPages(browser, s.output)}` : "";
    throw new Error(`${(error as Error).message} (last seen: ${last}${pages})`);
  }
}
