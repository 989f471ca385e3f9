/**
 * The set list's Project picker in headless Chromium: a remote phone that may control
 * selects a show and follows another client's choice; a browser that may edit sees closed shows
 * apart, opens one and creates one (the lifecycle edits); a damaged show is marked.
 */
import assert from "node:assert/strict";
import type { HTTPRequest } from "puppeteer-core";
import {
  launchBrowser,
  newPhone,
  remoteProxies,
  SHOW_HOST,
} from "../../../tools/testing/browser.ts";
import { fixtureProject } from "../../../tools/testing/fixture.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";

const SECOND = { ...fixtureProject(), id: "second", name: "Second Show" };

/** A service with the fixture's "show" (active) and "second". */
async function twoShows(overrides: Parameters<typeof startTestService>[0] = {}) {
  const svc = await startTestService(overrides, { projects: [SECOND] });
  await svc.post("/api/v1/action", { name: "PROJECT_SELECT", params: ["show"] });
  return svc;
}

async function activeId(svc: TestService): Promise<string> {
  return (await svc.get("/api/v1/active")).body.project.projectId;
}

const activeRow = (id: string) => `[data-show="${id}"][aria-current="true"]`;

Deno.test({
  ...needs("chromium"),
  name:
    "web remote in Chromium: a phone that may control picks the active show and follows another client's pick",
  fn: async () => {
    const svc = await twoShows({ allowedHosts: [SHOW_HOST] });
    const proxies = await remoteProxies(svc.service.ports);
    const { browser, close } = await launchBrowser();
    try {
      const page = await newPhone(browser);
      const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
      const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
        body: { otp, deviceName: "Stage phone", scopes: ["view", "control"] },
      });
      assert.equal(paired.status, 200);
      await page.goto(proxies.url);
      await page.waitForSelector("#otp"); // its start has cleared storage: the token set now stays
      await page.evaluate(
        (t) => localStorage.setItem("cueport.remote.token", t),
        paired.body.token,
      );
      await page.goto(proxies.url);
      await page.waitForSelector("[data-conn=live]");
      await page.click("#tab-setlist");
      await page.waitForSelector(activeRow("show"));
      await page.waitForSelector('[data-show="second"][aria-current="false"]');
      assert.equal(await page.$("#new-show-name"), null, "no New show without edit");
      assert.equal(await page.$("[data-setlist]"), null, "no Song moves without edit");

      await page.click('[data-show="second"]');
      await until("second active", async () => (await activeId(svc)) === "second");
      await page.waitForSelector(activeRow("second"));
      await page.waitForFunction(
        `document.querySelector(".project-name")?.textContent === "Second Show"`,
      );
      await svc.post("/api/v1/action", { name: "PLAY_IN" });
      const playing = (await svc.get("/api/v1/projects/second/playstate")).body.song.state;
      assert.equal(playing, "playing", "PLAY_IN without projectID went to the show picked");

      // Another client picks: the page follows the update.
      await svc.post("/api/v1/action", { name: "PROJECT_SELECT", params: ["show"] });
      await page.waitForSelector(activeRow("show"));
      await page.waitForFunction(
        `document.querySelector(".project-name")?.textContent === "Fixture Show"`,
      );
    } finally {
      await close();
      await proxies.close();
      await svc.stop();
    }
  },
});

Deno.test({
  ...needs("chromium"),
  name:
    "web remote in Chromium: a closed show is listed apart and opened then picked with a tap; New show creates one",
  fn: async () => {
    const svc = await twoShows();
    const { browser, close } = await launchBrowser();
    try {
      const page = await newPhone(browser);
      await page.goto(`${svc.base}/`);
      await page.waitForSelector("[data-conn=live]");
      await page.click("#tab-setlist");
      await page.waitForSelector('[data-shows="open"] [data-show="second"]');
      // Closed by another client: the list follows.
      const closed = await svc.post("/api/v1/edit", {
        name: "project.close",
        params: {},
        projectID: "second",
      });
      assert.equal(closed.status, 200, JSON.stringify(closed.body));
      await page.waitForSelector('[data-shows="closed"] [data-show="second"]');
      assert.equal(await page.$('[data-shows="open"] [data-show="second"]'), null);

      await page.click('[data-show="second"]');
      await until("second open and active", async () => (await activeId(svc)) === "second");
      await page.waitForSelector(`[data-shows="open"] ${activeRow("second")}`);

      await page.type("#new-show-name", "Tour 2027");
      await page.click('[data-edit="project.create"]');
      await page.waitForSelector(
        '[data-shows="open"] [data-show="tour-2027"][aria-current="false"]',
      );
      await page.waitForFunction(`document.querySelector("#new-show-name").value === ""`);
      const { projects } = (await svc.get("/api/v1/projects")).body;
      assert.deepEqual(
        projects.map((p: { projectId: string; active: boolean }) => [p.projectId, p.active]),
        [["show", false], ["second", true], ["tour-2027", false]],
      );
    } finally {
      await close();
      await svc.stop();
    }
  },
});

/** A library with a damaged show (the damage engineer's loading makes them; not merged here). */
function damagedLibrary() {
  const entry = (projectId: string, name: string, state: string, problem: unknown = null) => ({
    projectId,
    name,
    state,
    songCount: 3,
    clipCount: 8,
    active: projectId === "show",
    problem,
  });
  return {
    projects: [
      entry("show", "Fixture Show", "open"),
      entry("broken", "Broken Show", "damaged", {
        file: "projects/broken/project.json",
        problem: "not JSON: Unexpected end of JSON input",
        recoveredFrom: null,
        keptAs: "projects/broken/project.json.damaged",
        projectId: "broken",
        at: "2026-11-29T12:00:00.000Z",
      }),
    ],
  };
}

Deno.test({
  ...needs("chromium"),
  name: "web remote in Chromium: a damaged show is marked with its problem and cannot be picked",
  fn: async () => {
    const svc = await twoShows();
    const { browser, close } = await launchBrowser();
    try {
      const page = await newPhone(browser);
      await page.setRequestInterception(true);
      page.on("request", (request: HTTPRequest) => {
        const url = new URL(request.url());
        if (url.pathname + url.search === "/api/v1/projects?all=true") {
          request.respond({
            contentType: "application/json",
            body: JSON.stringify(damagedLibrary()),
          });
        } else request.continue();
      });
      await page.goto(`${svc.base}/`);
      await page.waitForSelector("[data-conn=live]");
      await page.click("#tab-setlist");
      await page.waitForSelector(activeRow("show"));
      const broken = await page.$eval('[data-shows="open"] [data-show="broken"]', (e) => ({
        text: e.textContent,
        disabled: (e as unknown as { disabled: boolean }).disabled,
        state: e.getAttribute("data-state"),
      }));
      assert.equal(broken.disabled, true);
      assert.equal(broken.state, "damaged");
      assert.match(broken.text!, /Damaged/);
      assert.match(broken.text!, /projects\/broken\/project\.json: not JSON: Unexpected end/);
    } finally {
      await close();
      await svc.stop();
    }
  },
});
