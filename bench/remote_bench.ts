/**
 * The web remote part of `deno task bench`, in headless Chromium (Debian's
 * `chromium`): the page's time to interactive (first paint, and the show on
 * screen with its WebSocket live), cold and with a warm cache, and the delay
 * from an HTTP action (`SET_CONTROL` from another client) to the page showing
 * the new value, p50 and p99 over 100 actions. Without Chromium, one skipped
 * line (`chromium not found (apt-get install chromium)`).
 * @module
 */
import { launchBrowser } from "../tools/testing/browser.ts";
import { startCueport } from "./_cueport.ts";
import { missingPeer } from "./_peers.ts";
import { summary } from "./_stats.ts";
import { createDemoProject } from "../player/demo.ts";
import { writeJsonAtomic } from "../lib/atomic_write.ts";

const here = (path: string) => new URL(path, import.meta.url).pathname;
const LOADS = 10;
const ACTIONS = 100;
const TITLE = "\nWeb remote (headless Chromium, phone viewport, loopback)";

const noChromium = missingPeer("chromium");
if (noChromium) {
  console.log(TITLE);
  console.log(`  skipped: ${noChromium}`);
  Deno.exit(0);
}

const dataDir = await Deno.makeTempDir({ prefix: "cueport-remote-bench-" });
await writeJsonAtomic(
  `${dataDir}/projects/demo/project.json`,
  await createDemoProject(`${dataDir}/projects/demo`),
);
const cueport = await startCueport(dataDir);
const base = `http://127.0.0.1:${cueport.ports.http}`;
const { browser, close: closeBrowser } = await launchBrowser();

const PHONE = { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** One load of the page: ms from navigation start to first contentful paint and to interactive. */
async function load(page: import("puppeteer-core").Page) {
  await page.goto(`${base}/`);
  await page.waitForFunction(
    `performance.getEntriesByName("cueport-interactive").length > 0`,
    { timeout: 30_000 },
  );
  return await page.evaluate(`({
    paint: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
    interactive: performance.getEntriesByName("cueport-interactive")[0].startTime,
  })`) as { paint: number; interactive: number };
}

try {
  const cold: { paint: number; interactive: number }[] = [];
  const warm: { paint: number; interactive: number }[] = [];
  for (let i = 0; i < LOADS; i++) {
    // Cold: a fresh context has an empty cache (and no token: a local browser is approved).
    const context = await browser.createBrowserContext();
    const page = await context.newPage();
    await page.bringToFront();
    await page.setViewport(PHONE);
    cold.push(await load(page));
    warm.push(await load(page)); // the same page again: assets revalidated with ETags (304)
    await context.close();
  }

  // Action to page: the page records when each value of Control C appears in its output.
  const page = await browser.newPage();
  await page.bringToFront(); // a tab in the background gets no animation frames
  await page.setViewport(PHONE);
  await load(page);
  await page.click("#tab-controls");
  await page.waitForSelector('output[for="control-C"]');
  await page.evaluate(`(() => {
    const output = document.querySelector('output[for="control-C"]');
    globalThis.seen = new Map();
    new MutationObserver(() => {
      const text = output.textContent;
      if (!seen.has(text)) seen.set(text, performance.timeOrigin + performance.now());
    }).observe(output, { childList: true, characterData: true, subtree: true });
  })()`);
  const delays: number[] = [];
  for (let i = 1; i <= ACTIONS; i++) {
    const value = (i % 100) / 100;
    const text = value.toFixed(2);
    const sentAt = performance.timeOrigin + performance.now();
    const res = await fetch(`${base}/api/v1/action`, {
      method: "POST",
      body: JSON.stringify({ name: "SET_CONTROL", params: ["C", value] }),
    });
    await res.body?.cancel();
    // Polled from here (the page's own observer took the time, so polling adds nothing to it);
    // a waitForFunction would run in puppeteer's isolated world, without the page's globals.
    let shownAt: number | undefined;
    const deadline = performance.now() + 10_000;
    while (
      (shownAt = await page.evaluate(`seen.get(${JSON.stringify(text)})`) as number) === undefined
    ) {
      if (performance.now() > deadline) throw new Error(`The page never showed C = ${text}`);
    }
    await page.evaluate(`seen.clear()`);
    delays.push(shownAt - sentAt);
  }

  const result = {
    loads: LOADS,
    coldFirstPaintMs: summary(cold.map((l) => l.paint)),
    coldInteractiveMs: summary(cold.map((l) => l.interactive)),
    warmInteractiveMs: summary(warm.map((l) => l.interactive)),
    actions: ACTIONS,
    actionToPageMs: summary(delays),
  };
  console.log(TITLE);
  console.log(
    `  time to interactive, cold: p50 ${result.coldInteractiveMs.p50} ms, worst of ${LOADS} ${
      Math.max(...cold.map((l) => l.interactive)).toFixed(0)
    } ms (first paint p50 ${result.coldFirstPaintMs.p50} ms)`,
  );
  console.log(`  time to interactive, warm cache: p50 ${result.warmInteractiveMs.p50} ms`);
  console.log(
    `  HTTP action to page: p50 ${result.actionToPageMs.p50} ms, p99 ${result.actionToPageMs.p99} ms (${ACTIONS} actions)`,
  );
  const file = here(`./results/remote-${new Date().toISOString().replace(/[:.]/g, "-")}.json`);
  await Deno.mkdir(here("./results"), { recursive: true });
  await Deno.writeTextFile(file, JSON.stringify(result, null, 2) + "\n");
  console.log(`  written to ${file}`);
} finally {
  await closeBrowser();
  await cueport.stop();
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
}
