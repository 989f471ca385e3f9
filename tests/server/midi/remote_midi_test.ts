/**
 * The web remote's MIDI panel in headless Chromium: learn a binding for a
 * Control by moving a fader (an in-memory endpoint sends the CC), see the
 * last message and the binding listed.
 */
import assert from "node:assert/strict";
import { launchBrowser, newPhone, PHONE } from "../../../tools/testing/browser.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { MemoryEndpoint } from "./_memory_endpoint.ts";

Deno.test({
  ...needs("chromium"),
  name:
    "web remote in Chromium: the MIDI panel learns a Control's fader and shows the last message",
  fn: async () => {
    const svc = await startTestService();
    const endpoint = new MemoryEndpoint();
    svc.service.midi.attach(endpoint);
    const { browser, close } = await launchBrowser();
    try {
      const page = await newPhone(browser);
      await page.goto(svc.base); // this machine: every scope, no token
      await page.waitForSelector("[data-conn=live]");
      await page.click("#tab-midi");
      const select = await page.waitForSelector('select[aria-label="Action to learn"]');
      const value = await page.evaluate(() => {
        // deno-lint-ignore no-explicit-any
        const select = (globalThis as any).document.querySelector("select");
        // deno-lint-ignore no-explicit-any
        return [...select.options].find((o: any) => o.text === "Control E").value as string;
      });
      await select!.select(value);
      await page.click("[data-midi=learn]");
      await until("learning", async () => (await svc.get("/api/v1/midi")).body.learning !== null);
      endpoint.deliver([{ type: "controlChange", channel: 2, controller: 70, value: 12 }]);
      const learned = await page.waitForSelector("[data-midi=learned]");
      const text = await learned!.evaluate((el) => el.textContent);
      assert.match(text!, /controlChange 70 \(ch2\) -> SET_CONTROL E/);
      await page.waitForFunction(
        `document.querySelector("[data-midi=last]")?.textContent.includes("controlChange ch2 70 = 12")`,
      );
      await page.setViewport({ ...PHONE, width: 320, height: 640 });
      const width = await page.evaluate(() => [
        // deno-lint-ignore no-explicit-any
        (globalThis as any).document.documentElement.scrollWidth,
        // deno-lint-ignore no-explicit-any
        (globalThis as any).innerWidth,
      ]);
      assert.ok(width[0] <= width[1], `the panel fits 320 px: ${width}`);
      endpoint.deliver([{ type: "controlChange", channel: 2, controller: 70, value: 127 }]);
      await until("E = 1", async () => {
        const state = await svc.get("/api/v1/projects/show/playstate");
        return state.body.controls.E === 1;
      });
    } finally {
      await close();
      await svc.stop();
    }
  },
});
