/**
 * The remote's Group screen (docs/remote.md, "Rig groups"), in headless Chromium on a 320 px
 * phone: alone, no Group tab; in a group (a stand-in `GET /api/v1/group` answer, checked against
 * its schema), the tab shows the rigs, which leads, each rig's clock offset and frame lag, which
 * rig the remote is on and whether edits are possible, and fits the phone's width.
 */
import assert from "node:assert/strict";
import type { HTTPRequest, Page } from "puppeteer-core";
import { launchBrowser } from "../../../tools/testing/browser.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { overflowProblems } from "./_layout.ts";
import { standInGroup } from "../../../tools/testing/group_status.ts";

const WIDTH = 320;

/** Answers the page's `GET /api/v1/group` with `body` (null: the service answers). */
async function groupAnswer(page: Page, body: () => unknown): Promise<void> {
  await page.setRequestInterception(true);
  page.on("request", (request: HTTPRequest) => {
    const answer = new URL(request.url()).pathname === "/api/v1/group" ? body() : null;
    if (answer === null) return void request.continue();
    void request.respond({
      status: 200,
      contentType: "application/json",
      body: JSON.stringify(answer),
    });
  });
}

/** The text of every element at `selector`. */
async function texts(page: Page, selector: string): Promise<string[]> {
  return await page.$$eval(selector, (all) => all.map((e) => e.textContent!.trim()));
}

Deno.test({
  ...needs("chromium"),
  name: "web remote: the Group screen shows the group's rigs, leader, clocks and edits; alone none",
  fn: async () => {
    const svc = await startTestService();
    const { browser, close } = await launchBrowser();
    try {
      const page = await browser.newPage();
      page.on("pageerror", (error) => console.error("page error:", error));
      await page.setViewport({ width: WIDTH, height: 640, isMobile: true, hasTouch: true });
      let status: unknown = null;
      await groupAnswer(page, () => status);
      const url = `http://127.0.0.1:${svc.service.ports.http}/`;

      await page.goto(url);
      await page.waitForSelector('[data-conn="live"]');
      await page.waitForSelector("#tab-show");
      assert.equal(await page.$("#tab-group"), null, "alone: no Group tab");

      status = standInGroup();
      await page.reload();
      await page.waitForSelector("#tab-group");
      await page.click("#tab-group");
      await page.waitForSelector('[data-member="backup"]');
      assert.deepEqual(await texts(page, "[data-member] strong"), ["main", "backup"]);
      assert.deepEqual(
        await texts(page, '[data-member="backup"] .rig-facts span'),
        ["follower, offset -0.8 ms, error 0.6 ms", "frame lag +4.2 ms", "seen 0.4 s ago"],
      );
      assert.deepEqual(await texts(page, '[data-member="main"] .rig-tag'), ["leads", "this rig"]);
      assert.equal((await texts(page, "[data-can-edit]"))[0], "Edits possible");
      assert.equal((await texts(page, ".group-line"))[0], "On rig main; it leads; 2 rigs");
      assert.deepEqual(await overflowProblems(page, WIDTH), [], "the Group screen fits 320 px");

      // Cut off from the quorum: the reason shows (read again within the 5 s poll).
      status = standInGroup(false);
      await page.waitForSelector('[data-can-edit="false"]', { timeout: 60_000 });
      assert.equal(
        (await texts(page, "[data-can-edit]"))[0],
        "Edits are not possible: this rig is cut off from the etcd quorum",
      );
      await page.click("#tab-show");
      assert.deepEqual(await overflowProblems(page, WIDTH), [], "six tabs fit 320 px");
    } finally {
      await close();
      await svc.stop();
    }
  },
});
