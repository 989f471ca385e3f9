/**
 * `deno task docs:remote`: the screenshots of `docs/remote.md`, taken in
 * headless Chromium (Debian's `chromium`) from a real service on the demo
 * project, on a virtual clock so every run shows the same moment. The
 * service runs with `localhostAuthExempt` off, so this local browser pairs
 * like a phone (the pairing screen is the first picture), and with a headless
 * output (the Output screen's preview shows it). The phones are
 * emulated as phones (touch, the viewport meta obeyed) at the sizes of
 * `tests/server/web/remote_layout_test.ts`; one picture shows a tablet.
 * @module
 */
import type { Page } from "puppeteer-core";
import { launchBrowser } from "./testing/browser.ts";
import { Settings } from "../server/config.ts";
import { createLogger } from "../server/log.ts";
import { startService } from "../server/service.ts";
import { readOperatorToken } from "../server/auth/operator.ts";
import { standInGroup } from "./testing/group_status.ts";

const docs = (name: string) => new URL(`../docs/${name}`, import.meta.url).pathname;
const dataDir = await Deno.makeTempDir({ prefix: "cueport-screenshots-" });
const settings = Settings.parse({
  dataDir,
  host: "127.0.0.1",
  httpPort: 0,
  wsPort: 0,
  oscPort: 0,
  oscQueryPort: "off",
  virtualClock: true,
  localhostAuthExempt: false,
  logLevel: "error",
  // A headless output: the Output screen's preview shows the show's picture.
  output: "headless",
});
const service = await startService(settings, createLogger("error"));
await service.supervisor.waitReady(20_000);
const base = `http://127.0.0.1:${service.ports.http}`;
const operator = await readOperatorToken(dataDir);

async function call(path: string, body: unknown) {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { authorization: `Bearer ${operator}` },
    body: JSON.stringify(body),
  });
  return await res.json();
}

const { browser, close: closeBrowser } = await launchBrowser(["--hide-scrollbars"]);

/** A device as the page sees it: CSS pixels as held, touch, the viewport meta obeyed. */
function device(width: number, height: number) {
  const isLandscape = width > height;
  return { width, height, deviceScaleFactor: 1, isMobile: true, hasTouch: true, isLandscape };
}

/** The Clip grid is on screen, every Clip with its thumbnail loaded and decoded. */
async function thumbnailsDrawn(page: Page) {
  await page.waitForFunction(`(() => {
    const clips = [...document.querySelectorAll("[data-clip]")];
    return clips.length > 0 && clips.every((c) => {
      const img = c.querySelector("img");
      return img && img.complete && img.naturalWidth > 0;
    });
  })()`);
  await page.evaluate(
    `Promise.all([...document.querySelectorAll("[data-clip] img")].map((i) => i.decode()))`,
  );
}

async function shot(page: Page, name: string) {
  // Two frames: the last render and the position bars have landed.
  await page.evaluate(`new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`);
  await page.screenshot({ path: docs(name) as `${string}.png` });
  console.log(`docs/${name}`);
}

/**
 * The Group screen on a phone: this service runs alone, so the page is handed a two-rig group's
 * status (`tools/testing/group_status.ts`, as its test does) in place of its own.
 */
async function groupScreen(page: Page) {
  await page.setRequestInterception(true);
  page.on("request", (request) => {
    if (new URL(request.url()).pathname !== "/api/v1/group") return void request.continue();
    const body = JSON.stringify(standInGroup());
    void request.respond({ status: 200, contentType: "application/json", body });
  });
  await page.setViewport(device(390, 844));
  await page.reload();
  await page.waitForSelector("#tab-group");
  await page.click("#tab-group");
  await page.waitForSelector('[data-member="backup"]');
  await shot(page, "remote-group.png");
}

try {
  const page = await browser.newPage();
  await page.setViewport(device(390, 844));
  await page.goto(`${base}/`);
  await page.waitForSelector("#otp");
  await shot(page, "remote-pairing.png");
  const { otp } = await call("/api/v1/pair/code", {});
  await page.type("#otp", otp);
  await page.click("button[type=submit]");
  await page.waitForSelector("[data-conn=live]");
  await thumbnailsDrawn(page);

  // A moment of the show: the Song playing, a Clip triggered, Controls moved, recording.
  const act = (name: string, params: unknown[] = []) => call("/api/v1/action", { name, params });
  await act("PLAY_IN");
  await act("TRIGGER_CLIP_IN", ["clip-rings"]);
  await act("SET_CONTROL", ["A", 0.8]);
  await act("SET_CONTROL", ["B", 0.35]);
  await act("SET_CONTROL", ["C", 0.6]);
  await act("OUTPUT_LEVEL_IN", [0.85]);
  await act("RECORD_TOGGLE", ["now"]);
  await service.core.advanceClock(2500);
  await page.waitForSelector('[data-clip="clip-rings"][data-state="playing"]');
  await thumbnailsDrawn(page);
  await shot(page, "remote-show.png");
  await page.click("#tab-controls");
  await shot(page, "remote-controls.png");
  await page.click("#tab-system");
  await page.waitForSelector('[data-recording="recording"]');
  await page.waitForSelector('.preview[data-preview="live"]', { timeout: 120_000 });
  await shot(page, "remote-output.png");
  // A second show, closed, so the picker shows both lists.
  await call("/api/v1/edit", { name: "project.create", params: { name: "Summer Tour" } });
  await call("/api/v1/edit", { name: "project.close", params: {}, projectID: "summer-tour" });
  await page.click("#tab-setlist");
  await page.waitForSelector('[data-shows="closed"] [data-show="summer-tour"]');
  await shot(page, "remote-setlist.png");
  await page.click("#tab-show");
  await thumbnailsDrawn(page);
  await page.setViewport(device(844, 390));
  await shot(page, "remote-landscape.png");
  await page.setViewport(device(320, 640));
  await shot(page, "remote-show-320.png");
  await page.setViewport(device(1024, 700));
  await shot(page, "remote-tablet.png");
  await groupScreen(page);
  await act("RECORD_TOGGLE");
} finally {
  await closeBrowser();
  await service.shutdown();
  await Deno.remove(dataDir, { recursive: true }).catch(() => {});
}
