/**
 * The editor window part of `deno task bench`: the service with its player
 * and a headless output in this process (the test Project: 160x90 at 30 fps,
 * software GL), the editor page driven with puppeteer-core.
 *
 * - Edit to editor: from the HTTP answer of a `preset.update` of the open
 *   preset's code to the code shown in the editor page (the page notes when
 *   its code box changes, on the same wall clock), p50 and p99 over 50 edits.
 * - What the editor costs the output: the output page's frames a second over
 *   8 s of a playing video, without the editor and with it open (its preview
 *   draws the same picture again, smaller, with the preset over it, at most
 *   10 frames a second), and the preview's own frames a second meanwhile.
 *
 * Without Chromium or ffmpeg, one skipped line.
 * @module
 */
import puppeteer from "puppeteer-core";
import { MonotonicClock } from "../player/mod.ts";
import { openOutputService, outputDataDir } from "../tools/testing/output.ts";
import { until } from "../tools/testing/until.ts";
import { INVERT } from "../tools/testing/isf_shaders.ts";
import { missingPeer } from "./_peers.ts";
import { summary } from "./_stats.ts";

const TITLE = "\nEditor window (headless Chromium, software GL, 160x90 at 30 fps, loopback)";
const missing = missingPeer("chromium") ?? missingPeer("ffmpeg");
if (missing) {
  console.log(TITLE);
  console.log(`  skipped: ${missing}`);
  Deno.exit(0);
}

const EDITS = 50;
const SECONDS = 8;

const dataDir = await outputDataDir();
const s = await openOutputService(dataDir, { clock: new MonotonicClock() });
const call = async (path: string, body?: unknown) => {
  const res = await fetch(
    s.base + path,
    body ? { method: "POST", body: JSON.stringify(body) } : {},
  );
  return await res.json();
};
/** The output page's frames a second over the last `SECONDS` of its reports. */
const framesPerSecond = async () => {
  const start = s.output.reports.length;
  await until("the reports", () => s.output.reports.length >= start + SECONDS + 1, 30_000);
  const reports = s.output.reports.slice(start + 1, start + 1 + SECONDS);
  return reports.reduce((sum, r) => sum + r.frames, 0) / reports.length;
};

try {
  const added = await call("/api/v1/edit", {
    name: "preset.add",
    params: { kind: "effect", name: "Invert", type: "isf", code: INVERT },
  });
  const presetID = added.edits[0].created.presetID;
  await call("/api/v1/action", { name: "TRIGGER_CLIP_IN", params: ["ramp"] });
  const looped = await call("/api/v1/edit", {
    name: "clip.update",
    params: { clipID: "ramp", loop: true },
  });
  if (!looped.ok) throw new Error(`The video does not loop: ${JSON.stringify(looped)}`);
  const without = await framesPerSecond();

  await call("/api/v1/action", { name: "OPEN_EDITOR", params: ["effect", presetID] });
  await until("the editor", async () => (await call("/api/v1/app-state")).editor?.shown === true);
  const browser = await puppeteer.connect({
    transport: s.output.browserDevTools!.channel(),
    defaultViewport: null,
  });
  const target = await browser.waitForTarget((t) => t.url() === s.output.editorUrl);
  const page = (await target.page())!;
  const drawn = async () => Number(await page.evaluate("document.body.dataset.previewFrames"));
  const drawnBefore = await drawn();
  const startedAt = performance.now();
  const withEditor = await framesPerSecond();
  const previewFps = (await drawn() - drawnBefore) / ((performance.now() - startedAt) / 1000);

  // The page notes the wall time of each change of its code box.
  await page.evaluate(`(() => {
    globalThis.changes = [];
    const box = document.getElementById("code");
    let last = box.value;
    setInterval(() => {
      if (box.value !== last) {
        last = box.value;
        changes.push(performance.timeOrigin + performance.now());
      }
    }, 1);
  })()`);
  const latencies: number[] = [];
  for (let i = 0; i < EDITS; i++) {
    const code = INVERT.replace("1.0 - c.rgb", `1.0 - c.rgb * ${(1 + i / 100).toFixed(2)}`);
    await call("/api/v1/edit", {
      name: "preset.update",
      params: { kind: "effect", presetID, code },
    });
    const answered = performance.timeOrigin + performance.now();
    await page.waitForFunction(`changes.length === ${i + 1}`, { polling: 5 });
    latencies.push(Number(await page.evaluate(`changes[${i}]`)) - answered);
  }
  browser.disconnect();

  const { p50, p99 } = summary(latencies);
  console.log(TITLE);
  console.log(
    `  edit answered to code shown in the editor, ${EDITS} edits: p50 ${p50} ms, p99 ${p99} ms`,
  );
  console.log(
    `  output frames a second over ${SECONDS} s: ${without.toFixed(1)} without the editor, ` +
      `${withEditor.toFixed(1)} with it open (load average ${Deno.loadavg()[0]!.toFixed(1)})`,
  );
  console.log(`  the editor's preview meanwhile: ${previewFps.toFixed(1)} frames a second`);
} finally {
  await s.stop();
  await Deno.remove(dataDir, { recursive: true });
}
