/**
 * The Output tab's live preview in headless Chromium, against real services: one whose player
 * shows a red Clip on a headless output (the picture's centre, read from the page's <img>, is
 * red; the device's token goes with each request), and one with no output (the page says why).
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import { VirtualClock } from "../../../player/mod.ts";
import { launchBrowser, newPhone } from "../../../tools/testing/browser.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { near, openOutputService, outputDataDir } from "../../../tools/testing/output.ts";
import { startTestService } from "../../../tools/testing/service.ts";

/** POSTs JSON to the service at `base`; the answer's body. */
async function post(base: string, path: string, body: unknown) {
  const res = await fetch(base + path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const answer = await res.json();
  assert.ok(res.ok, JSON.stringify(answer));
  return answer;
}

/** A device token with only `view`, paired here (the page sends it as a paired phone does). */
async function viewToken(base: string): Promise<string> {
  const { otp } = await post(base, "/api/v1/pair/code", {});
  return (await post(base, "/api/v1/pair", { otp, deviceName: "Viewer", scopes: ["view"] })).token;
}

/** The RGB at the centre of the preview's picture, read from the page (drawn to a canvas). */
function previewCentre(page: Page): Promise<number[]> {
  return page.evaluate(`(() => {
    const img = document.querySelector(".preview-picture");
    const canvas = document.createElement("canvas");
    canvas.width = img.naturalWidth;
    canvas.height = img.naturalHeight;
    const context = canvas.getContext("2d");
    context.drawImage(img, 0, 0);
    const [r, g, b] = context.getImageData(canvas.width >> 1, canvas.height >> 1, 1, 1).data;
    return [r, g, b];
  })()`) as Promise<number[]>;
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name:
    "web remote in Chromium: the Output tab previews the output, and says why when there is none",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const { browser, close } = await launchBrowser();
    try {
      await t.step("a red Clip on the output: the preview's centre is red", async () => {
        const dataDir = await outputDataDir();
        const svc = await openOutputService(dataDir, { clock: new VirtualClock() });
        try {
          await post(svc.base, "/api/v1/action", { name: "TRIGGER_CLIP_IN", params: ["red"] });
          const token = await viewToken(svc.base);
          const page = await newPhone(browser);
          const sent: (string | undefined)[] = [];
          page.on("request", (request) => {
            if (request.url().includes("/api/v1/output/frame.")) {
              sent.push(request.headers().authorization);
            }
          });
          await page.goto(`${svc.base}/`);
          await page.evaluate(
            (value) => localStorage.setItem("cueport.remote.token", value),
            token,
          );
          await page.reload();
          await page.waitForSelector("[data-conn=live]");
          await page.click("#tab-system");
          // The first picture waits for the output's browser: a cap that only bounds a hang.
          await page.waitForSelector('.preview[data-preview="live"]', { timeout: 300_000 });
          const rgb = await previewCentre(page);
          assert.ok(near(rgb, [255, 0, 0], 24), `the preview's centre is red: ${rgb}`);
          assert.ok(sent.length > 0);
          assert.ok(sent.every((h) => h === `Bearer ${token}`), "the device's token goes along");
          await page.close();
        } finally {
          await svc.stop();
          await Deno.remove(dataDir, { recursive: true });
        }
      });

      await t.step("no output runs: the tab shows the API's reason", async () => {
        const svc = await startTestService({}, { demo: true });
        try {
          const page = await newPhone(browser);
          await page.goto(`${svc.base}/`);
          await page.waitForSelector("[data-conn=live]");
          await page.click("#tab-system");
          await page.waitForSelector('.preview[data-preview="refused"]', { timeout: 120_000 });
          const refusal = (await svc.get("/api/v1/output/frame.jpg")).body.error;
          assert.equal(
            await page.$eval(".preview figcaption", (e) => e.textContent),
            `No preview: ${refusal.message}`,
          );
          assert.equal(
            await page.$eval(".preview", (e) => e.getAttribute("data-code")),
            refusal.code,
          );
          await page.close();
        } finally {
          await svc.stop();
        }
      });
    } finally {
      await close();
    }
  },
});
