/**
 * The web remote's layout on phones, in headless Chromium with mobile
 * emulation (touch, a device pixel ratio, the page's viewport meta obeyed):
 * every screen, pairing included, fits the device's width in portrait and
 * landscape, no loading text stays once a screen shows, the header's title
 * is shown whole when the header has room for it, and a phone in landscape
 * shows more than one row of Clips.
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "puppeteer-core";
import { launchBrowser, remoteProxies, SHOW_HOST } from "../../../tools/testing/browser.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { clipRows, loadingNotes, overflowProblems, type TitleFit, titleFit } from "./_layout.ts";

/** A phone: its CSS pixel size as it is held. */
interface Device {
  name: string;
  width: number;
  height: number;
}

const DEVICES: readonly Device[] = [
  { name: "320x640 portrait", width: 320, height: 640 },
  { name: "390x844 portrait", width: 390, height: 844 },
  { name: "844x390 landscape", width: 844, height: 390 },
  { name: "568x320 landscape", width: 568, height: 320 },
];

/** The demo's longest Song title: every phone has room for it in the header. */
const SONG = { id: "song-midnight", title: "Midnight Drive" };
const LONG_TITLE = "Midnight Drive Through the Neon Rain of the Sleeping City (Extended)";

/** A page of its own (its own storage: no token) as the phone `device`. */
async function phone(
  browser: Browser,
  device: Device,
): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  page.on("pageerror", (error) => console.error("page error:", error));
  await page.setViewport({
    width: device.width,
    height: device.height,
    deviceScaleFactor: 3,
    isMobile: true,
    hasTouch: true,
    isLandscape: device.width > device.height,
  });
  return { page, close: () => context.close() };
}

/** What is wrong with the layout of the screen on show now (nothing, when right). */
async function screenProblems(page: Page, device: Device, screen: string): Promise<string[]> {
  const found = [
    ...await overflowProblems(page, device.width),
    ...(await loadingNotes(page)).map((note) => `"${note}..." is still on screen`),
  ];
  return found.map((problem) => `${screen}: ${problem}`);
}

/** A title cut short although the header has room for it whole. */
function titleProblems(fit: TitleFit, screen: string): string[] {
  if (fit.whole <= fit.shown || fit.needed > fit.room) return [];
  return [
    `${screen}: the title "${fit.text}" shows ${fit.shown} of its ${fit.whole} px, ` +
    `while the header needs ${fit.needed} of its ${fit.room} px to show it whole`,
  ];
}

async function pairingCode(svc: TestService): Promise<string> {
  return (await svc.post("/api/v1/pair/code", {})).body.otp;
}

async function renameSong(svc: TestService, title: string): Promise<void> {
  const res = await svc.post("/api/v1/edit", {
    name: "song.update",
    params: { songID: SONG.id, title },
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
}

/** The Clip grid is there, each tile with its picture (which sets no size, but be sure). */
async function thumbnailsShown(page: Page): Promise<void> {
  await page.waitForFunction(`(() => {
    const clips = [...document.querySelectorAll("[data-clip]")];
    return clips.length > 0 && clips.every((c) => c.querySelector("img.thumb")?.complete);
  })()`);
}

/** Pairing (empty, then with a refused code), then every screen of the remote, on `device`. */
async function everyScreen(
  svc: TestService,
  browser: Browser,
  url: string,
  device: Device,
): Promise<string[]> {
  const problems: string[] = [];
  const { page, close } = await phone(browser, device);
  try {
    await page.goto(url);
    await page.waitForSelector("#otp");
    problems.push(...await screenProblems(page, device, "pairing"));
    await page.type("#otp", "000000");
    await page.click("button[type=submit]");
    await page.waitForFunction(`document.getElementById("pair-error").textContent !== ""`);
    problems.push(...await screenProblems(page, device, "pairing, a code refused"));

    await page.$eval("#otp", (e) => ((e as unknown as { value: string }).value = ""));
    await page.type("#otp", await pairingCode(svc));
    await page.click("button[type=submit]");
    await page.waitForSelector("[data-conn=live]");
    await page.waitForSelector(`[data-song-title="${SONG.title}"] [data-song-state="playing"]`);
    await thumbnailsShown(page);
    problems.push(...await screenProblems(page, device, "show"));
    problems.push(...titleProblems(await titleFit(page, ".now-title"), "show"));
    const fit = await titleFit(page, ".now-title");
    if (fit.needed > fit.room) {
      problems.push(`show: the header (${fit.room} px) has no room for "${SONG.title}"`);
    }
    if (device.width > device.height) {
      const { rows, shownRows } = await clipRows(page, device.height);
      assert.ok(rows > 2, `the Song has ${rows} rows of Clips at ${device.name}`);
      if (shownRows < 2) problems.push(`show: ${shownRows} whole row(s) of Clips on screen`);
    }

    for (
      const [tab, content] of [
        ["controls", "#control-Z"],
        ["system", "[data-recording]"],
        ["setlist", "[data-setlist]"],
      ]
    ) {
      await page.click(`#tab-${tab}`);
      await page.waitForSelector(content!);
      problems.push(...await screenProblems(page, device, tab!));
    }

    await page.click("#tab-show");
    await page.click(".transport .panic");
    await page.waitForSelector(".confirm");
    problems.push(...await screenProblems(page, device, "panic confirmation"));
    await page.click(".confirm button:not(.panic)");
    await page.waitForFunction(`!document.querySelector(".confirm")`);

    // A title longer than any header: it ends in an ellipsis, and still nothing spills.
    await renameSong(svc, LONG_TITLE);
    try {
      await page.waitForSelector(`[data-song-title="${LONG_TITLE}"]`);
      problems.push(...await screenProblems(page, device, "show, a long title"));
      const long = await titleFit(page, ".now-title");
      assert.ok(long.whole > long.shown, `a long title is cut at ${device.name}`);
    } finally {
      await renameSong(svc, SONG.title);
    }
  } finally {
    await close();
  }
  return problems;
}

/** A `view` token's page: "View only" joins the header. */
async function viewOnly(
  svc: TestService,
  browser: Browser,
  url: string,
  device: Device,
): Promise<string[]> {
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp: await pairingCode(svc), deviceName: "Viewer", scopes: ["view"] },
  });
  assert.equal(paired.status, 200);
  const { page, close } = await phone(browser, device);
  try {
    await page.goto(url);
    await page.waitForSelector("#otp"); // else the first load's refusal may forget the token
    await page.evaluate(
      (token) => localStorage.setItem("cueport.remote.token", token),
      paired.body.token,
    );
    await page.reload();
    await page.waitForSelector(".view-only");
    await page.waitForSelector(`[data-song-title="${SONG.title}"]`);
    await thumbnailsShown(page);
    return [
      ...await screenProblems(page, device, "view only"),
      ...titleProblems(await titleFit(page, ".now-title"), "view only"),
    ];
  } finally {
    await close();
  }
}

Deno.test({
  ...needs("chromium"),
  name: "web remote on phones: every screen fits 320-430 px phones in portrait and landscape",
  fn: async (t) => {
    const svc = await startTestService({ allowedHosts: [SHOW_HOST] }, { demo: true });
    const proxies = await remoteProxies(svc.service.ports);
    const { browser, close } = await launchBrowser();
    try {
      // A Song with a dozen Clips, playing: rows of Clips to show, a state in the header.
      const copies = ["clip-stripes", "clip-waves", "clip-flare"].flatMap((clipID) =>
        [1, 2, 3].map(() => ({ name: "clip.duplicate", params: { clipID } }))
      );
      assert.equal((await svc.post("/api/v1/edit", { edits: copies })).status, 200);
      await svc.post("/api/v1/action", { name: "SONG_SELECT_BY_ID", params: [SONG.id] });
      await svc.post("/api/v1/action", { name: "PLAY_IN" });

      for (const device of DEVICES) {
        await t.step(
          `${device.name}: pairing, show, controls, output, set list and panic fit, ` +
            "with no loading text and the title whole",
          async () => {
            const problems = await everyScreen(svc, browser, proxies.url, device);
            assert.deepEqual(problems, [], problems.join("\n"));
          },
        );
      }
      await t.step(
        "320x640 portrait: a view-only page fits, its title as whole as room allows",
        async () => {
          const problems = await viewOnly(svc, browser, proxies.url, DEVICES[0]!);
          assert.deepEqual(problems, [], problems.join("\n"));
        },
      );
    } finally {
      await close();
      await proxies.close();
      await svc.stop();
    }
  },
});
