/**
 * An output that runs all night holds no more GL objects at dawn than at dusk: code the GL
 * compiler refuses, sent again and again through the layer path (an Effect on the Clip shown)
 * and the editor's check path (the editor page's preview), leaves the count of the pages' live
 * GL objects (`player/output/page/gl.js` counts them; the output page reports them, the editor
 * page shows them in its DOM) where it was; a resize cycle leaves it where it was; ISF's
 * TIMEDELTA is the time between frames drawn (a held virtual clock: 0), not a fixed 1/30.
 * An animation frame allocates nothing but boxed numbers (a heap profile sampling every byte).
 * One service in this process, its player too (on a virtual clock), a headless output: one
 * browser, its editor page read with puppeteer-core over the browser's own DevTools pipe.
 */
import assert from "node:assert/strict";
import puppeteer, { type Browser, type CDPSession, type Page, type Target } from "puppeteer-core";
import { VirtualClock } from "../../../player/mod.ts";
import type { GlObjects } from "../../../protocol/output.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { decodePng, pixel } from "../../../tools/testing/images.ts";
import {
  openOutputService,
  outputDataDir,
  type OutputService,
  untilOutput,
} from "../../../tools/testing/output.ts";
import { ES_310_ONLY, INVERT } from "../../../tools/testing/isf_shaders.ts";
import { HOLD } from "../isf/_passes_shaders.ts";

/** Frames the page draws with the Effect before its heap is sampled (about 2 s on a quiet machine). */
const WARM_FRAMES = 60;

/**
 * Frames each sampled window of the heap spans at least (about 1 s on a quiet machine, 10-20 s
 * beside stress-ng): more than twice the objects V8 makes once in a function (7 in `#buffer`).
 */
const WINDOW_FRAMES = 20;

/** Refused code: an ES 3.10 call the edit's check lets through and GL does not (`n` makes it new). */
const broken = (n: number) => ES_310_ONLY + `\n// ${n}\n`;

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "The output's GL objects stay flat over refused code and resizes; TIMEDELTA follows frames",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dataDir = await outputDataDir();
    const logs: string[] = [];
    const s = await openOutputService(dataDir, {
      clock: new VirtualClock(),
      log: (level, message) => logs.push(`${level}: ${message}`),
    });
    const post = async (path: string, name: string, params: unknown) => {
      const res = await fetch(s.base + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name, params }),
      });
      const body = await res.json();
      assert.equal(res.status, 200, JSON.stringify(body));
      return body;
    };
    const edit = async (name: string, params: unknown) =>
      (await post("/api/v1/edit", name, params)).edits[0];
    /** The output page's objects, from a report sent after this call. */
    const outputObjects = async (): Promise<GlObjects> => {
      const after = s.output.reports.length;
      let objects: GlObjects | null = null;
      await untilOutput(s.output, "a report of the page's GL objects", () => {
        objects = s.output.reports.slice(after).findLast((r) => r.glObjects)?.glObjects ?? null;
        return objects !== null && s.output.reports.length > after + 1;
      });
      return objects!;
    };
    let browser: Browser | null = null;
    /** The page of the browser at `url`, once it has one (puppeteer's waits end at 30 s). */
    const pageAt = async (at: Browser, url: string) => {
      let found: Target | undefined;
      await untilOutput(s.output, `a page at ${url}`, () => {
        found = at.targets().find((t) => t.url() === url);
        return found !== undefined;
      });
      return await found!.page();
    };
    let editor: Page | null = null;
    const editorData = async (): Promise<{ objects: GlObjects; taken: number }> => {
      const text = await editor!.evaluate(
        "JSON.stringify([document.body?.dataset.glObjects, document.body?.dataset.programsTaken])",
      );
      const [objects, taken] = JSON.parse(String(text));
      return { objects: JSON.parse(objects ?? "null"), taken: Number(taken ?? 0) };
    };
    try {
      const preset = { kind: "effect", name: "Invert", type: "isf", code: INVERT };
      const { presetID } = (await edit("preset.add", preset)).created;
      const { effectID } = (await edit("effect.add", { presetID })).created;
      await edit("clip.update", { clipID: "red", options: { effects: [effectID] } });
      await post("/api/v1/action", "TRIGGER_CLIP_IN", ["red"]);
      await post("/api/v1/action", "OPEN_EDITOR", ["effect", presetID]);
      await untilOutput(s.output, "the editor's page", () => s.output.browserDevTools !== null);
      browser = await puppeteer.connect({
        transport: s.output.browserDevTools!.channel(),
        defaultViewport: null,
      });
      editor = (await pageAt(browser, s.output.editorUrl))!;
      await untilOutput(
        s.output,
        "the editor's GL objects",
        async () => (await editorData()).objects !== null,
      );

      await t.step("refused code, sent N times, leaves the pages' GL objects flat", async () => {
        const N = 4;
        /** Refused code `n`, then the good code again (the pages have it: nothing compiled). */
        const cycle = async (n: number) => {
          const taken = (await editorData()).taken;
          await edit("preset.update", { kind: "effect", presetID, code: broken(n) });
          // A picture asked for is drawn after the programs sent before it.
          await s.output.frame();
          await untilOutput(
            s.output,
            `refusal ${n} in the editor`,
            async () => (await editorData()).taken > taken,
          );
          await edit("preset.update", { kind: "effect", presetID, code: INVERT });
          await s.output.frame();
        };
        // A first refusal: what a first one makes once (the preview's targets) is made.
        await cycle(0);
        const before = { output: await outputObjects(), editor: (await editorData()).objects };
        for (let n = 1; n <= N; n++) await cycle(n);
        const after = { output: await outputObjects(), editor: (await editorData()).objects };
        const refused = logs.filter((l) => l.includes("does not compile"));
        assert(refused.length > 0, "the output's GL refused the code");
        assert.deepEqual(
          after,
          before,
          `${N} refused programs: ${JSON.stringify({ before, after })}`,
        );
        assert.equal(after.output.shaders, 2 * after.output.programs, "two shaders a program");
      });

      await t.step("a resize cycle leaves the output's GL objects flat", async () => {
        const before = await outputObjects();
        for (const [width, height] of [[192, 108], [320, 180], [160, 90]]) {
          await edit("project.set_display", { width, height });
          const picture = decodePng(await s.output.frame());
          assert.equal(picture.width, width);
        }
        const after = await outputObjects();
        assert.deepEqual(after, before);
      });

      await t.step("TIMEDELTA is the time between frames drawn: 0 on a held clock", async () => {
        const code = INVERT.replace(
          "gl_FragColor = vec4(mix(c.rgb, 1.0 - c.rgb, amount), c.a);",
          "gl_FragColor = vec4(TIMEDELTA * 10.0, 0.5, 0.0, 1.0) + c * 0.0 * amount;",
        );
        await edit("preset.update", { kind: "effect", presetID, code });
        const picture = decodePng(await s.output.frame());
        const [r, g] = pixel(picture, picture.width / 2, picture.height / 2);
        assert(Math.abs(g! - 128) <= 2, `the shader draws: green ${g}`);
        // A fixed 1/30 would be 85.
        assert(r! <= 2, `TIMEDELTA ${r! / 2550} s on a clock held still`);
        const isf = s.output.reports.findLast((r) => r.isf)?.isf;
        assert(isf && isf.index > 0 && isf.timeDelta === 0, JSON.stringify(isf));
      });

      await t.step("a frame allocates nothing on the draw path (sampled heap)", async () => {
        // An Effect with ISF PASSES (a persistent target): its keys and targets made, then kept.
        await edit("preset.update", { kind: "effect", presetID, code: HOLD });
        await s.output.frame();
        // Warmed up by frames, not time: V8 makes a function's feedback and optimizes it after
        // enough calls, and on a machine kept busy the page draws 1-2 frames a second.
        const settled = s.output.reports.length;
        const drawn = () => s.output.reports.slice(settled).reduce((n, r) => n + r.frames, 0);
        await untilOutput(s.output, `${WARM_FRAMES} frames`, () => drawn() >= WARM_FRAMES);
        const cdp = await (await pageAt(browser!, s.output.url))!.createCDPSession();
        await cdp.send("HeapProfiler.enable");
        // V8 makes some objects once, not a frame: a function's feedback when it has run a few
        // times, and then a 16-byte array for each private field (`this.#x`) it reads (the
        // keyed IC's map and handler; seen in a bare page: 2 fields read, 2 arrays, on the
        // first calls only), again when an object's shape changes. Beside stress-ng a window of
        // 3 reports was 2-12 frames, and `#buffer`'s 7 private fields made 7 (issue 42). So
        // each window spans WINDOW_FRAMES frames, and what the page makes a frame is made in
        // both of two windows, at least once in every two frames of each.
        const first = await sampledFrames(cdp, s.output, WINDOW_FRAMES);
        const second = await sampledFrames(cdp, s.output, WINDOW_FRAMES);
        const made = perFrame(first).filter((where) => perFrame(second).includes(where));
        assert.deepEqual(made, [], `made a frame: ${JSON.stringify([first, second])}`);
      });
    } finally {
      await browser?.disconnect();
      await s.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});

/** A sampled window: its frames, and its allocations but boxed numbers (`where size`: count). */
type Window = { frames: number; made: Record<string, number> };

/** The allocations of `window` made at least once in every two frames. */
const perFrame = ({ frames, made }: Window) =>
  Object.keys(made).filter((where) => made[where]! >= frames / 2);

/**
 * Samples the output page's heap (every byte) while it draws at least `minFrames` frames: the
 * allocations under its animation frame but boxed numbers (a HeapNumber, 12 bytes with pointer
 * compression: what code not yet optimized makes of a double; optimized, doubles stay unboxed).
 * @param cdp a session on the output page
 * @param output the service's output (its page's reports count the frames drawn)
 */
async function sampledFrames(
  cdp: CDPSession,
  output: OutputService["output"],
  minFrames: number,
): Promise<Window> {
  await cdp.send("HeapProfiler.startSampling", {
    samplingInterval: 1,
    includeObjectsCollectedByMinorGC: true,
    includeObjectsCollectedByMajorGC: true,
  });
  // Frames counted from the second report after the start (the first may have been on its way,
  // the second may count frames drawn before it), up to the stop: each of them was sampled.
  const from = output.reports.length + 2;
  const frames = () => output.reports.slice(from).reduce((n, r) => n + r.frames, 0);
  await untilOutput(output, `${minFrames} frames sampled`, () => frames() >= minFrames);
  const counted = frames();
  const { profile } = await cdp.send("HeapProfiler.stopSampling");
  const made = Object.entries(framePathAllocations(profile))
    .filter(([where]) => !where.endsWith(" 12"));
  return { frames: counted, made: Object.fromEntries(made) };
}

type ProfileNode = {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children: ProfileNode[];
};

/**
 * The sampled allocations under the output page's animation frame (`#frame` in page.js), by
 * function (`name file:line`) and size: `{"<where> <size>": count}`.
 */
function framePathAllocations(
  profile: { head: ProfileNode; samples: { size: number; nodeId: number }[] },
): Record<string, number> {
  const under = new Map<number, string>();
  const walk = (node: ProfileNode, isUnder: boolean) => {
    const f = node.callFrame;
    const inFrame = isUnder || (f.functionName === "#frame" && f.url.endsWith("page.js"));
    const file = f.url.slice(f.url.lastIndexOf("/") + 1);
    if (inFrame) under.set(node.id, `${f.functionName} ${file}:${f.lineNumber + 1}`);
    for (const child of node.children) walk(child, inFrame);
  };
  walk(profile.head, false);
  const made: Record<string, number> = {};
  for (const { size, nodeId } of profile.samples) {
    const where = under.get(nodeId);
    if (where) made[`${where} ${size}`] = (made[`${where} ${size}`] ?? 0) + 1;
  }
  return made;
}
