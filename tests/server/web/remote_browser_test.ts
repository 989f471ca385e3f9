/**
 * The web remote in headless Chromium, reaching the service as a remote
 * device (127.0.0.2) through `show-pc.test`: pairing, triggers, faders,
 * pushed updates, a dropped WebSocket, revocation, scopes, a local browser.
 */
import assert from "node:assert/strict";
import type { Page } from "puppeteer-core";
import {
  launchBrowser,
  newPhone,
  remoteProxies,
  SHOW_HOST,
} from "../../../tools/testing/browser.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";

async function pairingCode(svc: TestService): Promise<string> {
  return (await svc.post("/api/v1/pair/code", {})).body.otp;
}

/** The play state as the API tells it (not the page). */
async function playstate(svc: TestService) {
  return (await svc.get("/api/v1/projects/demo/playstate")).body;
}

async function clipState(svc: TestService, clipId: string): Promise<string> {
  return (await playstate(svc)).clips.find((c: { clipID: string }) => c.clipID === clipId)
    ?.state ?? "stopped";
}

/** The middle of an element, scrolled into view first (touches land where a finger would). */
async function center(page: Page, selector: string): Promise<{ x: number; y: number }> {
  const element = (await page.$(selector))!;
  await element.evaluate((e) => e.scrollIntoView({ block: "center" }));
  const box = await element.boundingBox();
  return { x: box!.x + box!.width / 2, y: box!.y + box!.height / 2 };
}

Deno.test({
  ...needs("chromium"),
  name:
    "web remote in Chromium: a remote phone pairs, plays, fades, follows, recovers and is revoked",
  fn: async (t) => {
    const svc = await startTestService({ allowedHosts: [SHOW_HOST] }, { demo: true });
    const proxies = await remoteProxies(svc.service.ports);
    const { browser, close } = await launchBrowser();
    const page = await newPhone(browser);
    try {
      await t.step(
        "a remote device gets the pairing screen, pairs with the code, goes live",
        async () => {
          await page.goto(proxies.url);
          await page.waitForSelector("#otp");
          await page.type("#otp", await pairingCode(svc));
          await page.click("button[type=submit]");
          await page.waitForSelector("[data-conn=live]");
          await page.waitForSelector('[data-clip="clip-aurora"]');
          const devices = (await svc.get("/api/v1/devices")).body.devices;
          assert.equal(devices.length, 1);
          assert.equal(devices[0].address, "127.0.0.2");
          assert.match(devices[0].name, /^Web remote/);
          assert.ok(await page.evaluate(() => localStorage.getItem("cueport.remote.token")));
        },
      );

      await t.step("a wrong code is refused on the page, with the API's reason", async () => {
        // Another phone: a browser context of its own (its own storage, no token).
        const context = await browser.createBrowserContext();
        try {
          const other = await context.newPage();
          await other.goto(proxies.url);
          await other.waitForSelector("#otp");
          await other.type("#otp", "000000");
          await other.click("button[type=submit]");
          await other.waitForFunction(`document.getElementById("pair-error").textContent !== ""`);
          assert.match(
            await other.$eval("#pair-error", (e) => e.textContent!),
            /Invalid pairing code/,
          );
        } finally {
          await context.close();
          await page.bringToFront(); // a page in the background gets no animation frames
        }
      });

      await t.step(
        "tapping a Clip triggers it: the tile and the player's state show it playing",
        async () => {
          const { x, y } = await center(page, '[data-clip="clip-rings"]');
          await page.touchscreen.tap(x, y);
          await page.waitForSelector('[data-clip="clip-rings"][data-state="playing"]');
          assert.equal(await clipState(svc, "clip-rings"), "playing");
          assert.equal((await playstate(svc)).selectedClipID, "clip-rings");
        },
      );

      await t.step("a Gate Clip plays while held and is released on lift", async () => {
        const { x, y } = await center(page, '[data-clip="clip-strobe"]');
        const touch = await page.touchscreen.touchStart(x, y);
        await page.waitForSelector('[data-clip="clip-strobe"][data-state="playing"]');
        const held = (await playstate(svc)).clips.find((c: { clipID: string }) =>
          c.clipID === "clip-strobe"
        );
        assert.equal(held.held, true);
        await touch.end();
        await page.waitForSelector('[data-clip="clip-strobe"]:not([data-state="playing"])');
        assert.notEqual(await clipState(svc, "clip-strobe"), "playing");
      });

      await t.step("Stop acts on touch-down; Play starts the Song", async () => {
        const play = await center(page, ".transport .play");
        await page.touchscreen.tap(play.x, play.y);
        await page.waitForSelector('[data-song-state="playing"]');
        assert.equal((await playstate(svc)).song.state, "playing");
        const stop = await center(page, ".transport .stop");
        const touch = await page.touchscreen.touchStart(stop.x, stop.y);
        // Still touching: the stop has already run.
        await until(
          "the Song stopped",
          async () => (await playstate(svc)).song.state === "stopped",
        );
        await touch.end();
        await page.waitForSelector('[data-song-state="stopped"]');
      });

      await t.step("a fader moves its Control", async () => {
        await page.click("#tab-controls");
        const slider = (await page.waitForSelector("#control-A"))!;
        await slider.evaluate((e) => e.scrollIntoView({ block: "center" }));
        const box = (await slider.boundingBox())!;
        await page.mouse.click(box.x + box.width * 0.75, box.y + box.height / 2);
        await until("Control A moved", async () => {
          const value = (await playstate(svc)).controls.A ?? 0;
          return value > 0.6 && value < 0.9;
        });
        const before = (await playstate(svc)).controls.A;
        await slider.focus();
        await page.keyboard.press("PageDown"); // the keyboard moves it too (a tenth)
        await until("Control A moved by the keyboard", async () => {
          return (await playstate(svc)).controls.A < before;
        });
      });

      await t.step("updates pushed from another client appear on the page", async () => {
        await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["B", 0.3] });
        // The number is rendered, the slider moved after the paint: wait for both.
        await page.waitForFunction(
          `document.querySelector('output[for="control-B"]')?.textContent === "0.30" &&
            document.getElementById("control-B")?.value === "0.3"`,
        );
        await svc.post("/api/v1/action", { name: "SONG_SELECT_BY_ID", params: ["song-finale"] });
        await page.waitForSelector('[data-song-title="Finale"]');
      });

      await t.step(
        "a Clip triggered from another client leaves the faders at the Controls' values",
        async () => {
          const { controls } = await playstate(svc);
          assert.ok(controls.A > 0 && controls.B === 0.3, "two Controls were moved before");
          await svc.post("/api/v1/action", { name: "PLAY_CLIP_IN", params: ["clip-grid"] });
          await page.click("#tab-show");
          await page.waitForSelector('[data-clip="clip-grid"][data-state="playing"]');
          await page.click("#tab-controls");
          await page.waitForSelector("#control-B");
          // After the paint (the slider is moved in an effect), then what it shows.
          await page.evaluate(
            "new Promise((done) => requestAnimationFrame(() => setTimeout(done)))",
          );
          for (const letter of ["A", "B"]) {
            assert.equal(
              await page.$eval(`output[for="control-${letter}"]`, (e) => e.textContent),
              controls[letter].toFixed(2),
              `the fader of Control ${letter} shows its value`,
            );
            assert.equal(
              await page.$eval(
                `#control-${letter}`,
                (e) => (e as unknown as { value: string }).value,
              ),
              String(controls[letter]),
            );
          }
        },
      );

      await t.step("a burst of updates moves no layout (no layout shift)", async () => {
        await page.click("#tab-show");
        await page.waitForSelector('[data-clip="clip-sunset"]');
        await page.evaluate(`(() => {
        globalThis.shifts = [];
        new PerformanceObserver((list) => shifts.push(...list.getEntries().map((e) => e.value)))
          .observe({ type: "layout-shift" });
      })()`);
        // Triggers, stops, Control moves and output level changes from another client, one after
        // another: every one reaches the page as an update.
        for (let i = 0; i < 50; i++) {
          const clip = i % 2 === 0 ? "clip-sunset" : "clip-grid";
          await svc.post("/api/v1/action", { name: "TRIGGER_CLIP_IN", params: [clip] });
          await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", i / 50] });
          await svc.post("/api/v1/action", { name: "OUTPUT_LEVEL_IN", params: [i / 50] });
          if (i % 5 === 4) await svc.post("/api/v1/action", { name: "STOP_ALL_CLIPS_IN" });
        }
        await svc.post("/api/v1/action", { name: "TRIGGER_CLIP_IN", params: ["clip-grid"] });
        await page.waitForSelector('[data-clip="clip-grid"][data-state="playing"]');
        // Two frames: whatever shift the last render caused has been reported.
        await page.evaluate(
          `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`,
        );
        assert.deepEqual(await page.evaluate(`shifts`), []);
        // The observer does see a shift when one happens: content pushed in above the Clips.
        await page.evaluate(`(() => {
        const pushed = document.createElement("div");
        pushed.id = "pushed";
        pushed.style.height = "120px";
        document.querySelector(".songs").prepend(pushed);
      })()`);
        await page.evaluate(
          `new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))`,
        );
        assert.ok((await page.evaluate(`shifts.length`) as number) > 0, "a real shift is seen");
        await page.evaluate(`document.getElementById("pushed").remove()`);
      });

      await t.step("a dropped WebSocket shows offline, reconnects and resyncs", async () => {
        await page.click("#tab-system");
        await page.waitForSelector('[data-toggle="mute"][aria-pressed="false"]');
        proxies.ws.drop();
        await page.waitForSelector("[data-conn=offline], [data-conn=connecting]");
        // Changed while the page was cut off: it learns it from the resync.
        await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" });
        await page.waitForSelector("[data-conn=live]");
        await page.waitForSelector('[data-toggle="mute"][aria-pressed="true"]');
      });

      await t.step(
        "revoking the device brings the page back to pairing with a message",
        async () => {
          const [device] = (await svc.get("/api/v1/devices")).body.devices;
          const res = await fetch(`${svc.base}/api/v1/devices/${device.deviceId}`, {
            method: "DELETE",
          });
          assert.equal(res.status, 200);
          await res.body?.cancel();
          await page.waitForSelector("#pair-message");
          assert.match(
            await page.$eval("#pair-message", (e) => e.textContent!),
            /no longer paired/,
          );
          assert.equal(
            await page.evaluate(() => localStorage.getItem("cueport.remote.token")),
            null,
          );
        },
      );

      await t.step("a token with only `view` gets a read-only page", async () => {
        const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
          body: { otp: await pairingCode(svc), deviceName: "Viewer", scopes: ["view"] },
        });
        assert.equal(paired.status, 200);
        await page.evaluate(
          (token) => localStorage.setItem("cueport.remote.token", token),
          paired.body.token,
        );
        await page.goto(proxies.url);
        await page.waitForSelector("[data-conn=live]");
        await page.waitForSelector(".view-only");
        assert.equal(
          await page.$eval(
            ".transport .play",
            (e) => (e as unknown as { disabled: boolean }).disabled,
          ),
          true,
        );
        assert.equal(await page.$("#tab-setlist"), null, "no edit screen without edit");
      });

      await t.step("the page opened from the QR code pairs by itself (#otp=)", async () => {
        await page.evaluate(() => localStorage.clear());
        await page.goto("about:blank"); // else only the fragment changes: no new load
        await page.goto(`${proxies.url}#otp=${await pairingCode(svc)}`);
        await page.waitForSelector("[data-conn=live]");
        assert.equal(await page.evaluate(() => location.hash), "");
        await page.waitForSelector("#tab-setlist");
      });

      await t.step("the set list screen reorders Songs, with undo and redo", async () => {
        await page.click("#tab-setlist");
        await page.waitForSelector('[data-setlist="song-finale"]');
        await page.click('button[aria-label="Move Finale up"]');
        const order = async () =>
          (await svc.get("/api/v1/projects/demo/songs")).body.songs.map((s: { songID: string }) =>
            s.songID
          );
        await until("Finale moved up", async () => (await order())[1] === "song-finale");
        await page.waitForFunction(
          `document.querySelectorAll("[data-setlist]")[1]?.dataset.setlist === "song-finale"`,
        );
        await page.click('[data-edit="undo"]');
        await until("the move undone", async () => (await order())[2] === "song-finale");
        await page.click('[data-edit="redo"]');
        await until("the move redone", async () => (await order())[1] === "song-finale");
      });
    } finally {
      await close();
      await proxies.close();
      await svc.stop();
    }
  },
});

Deno.test({
  ...needs("chromium"),
  name: "web remote in Chromium: a browser on the show machine skips pairing",
  fn: async () => {
    const svc = await startTestService({}, { demo: true });
    const { browser, close } = await launchBrowser();
    try {
      const page = await newPhone(browser);
      await page.goto(`${svc.base}/`);
      await page.waitForSelector("[data-conn=live]");
      await page.waitForSelector('[data-clip="clip-aurora"]');
      assert.equal(await page.$("#otp"), null);
      // Its WebSocket was approved as a local client, with a token kept for the next time.
      assert.ok(await page.evaluate(() => localStorage.getItem("cueport.remote.localToken")));
      const { x, y } = await center(page, '[data-clip="clip-aurora"]');
      await page.mouse.click(x, y);
      await until(
        "Aurora playing",
        async () => (await clipState(svc, "clip-aurora")) === "playing",
      );
    } finally {
      await close();
      await svc.stop();
    }
  },
});
