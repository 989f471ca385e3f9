/**
 * The editor window: `OPEN_EDITOR` opens the preset's editor page in the
 * output's browser (a second target of the browser the player supervises);
 * it shows an edit made over MCP (the SDK client) in its DOM and its preview;
 * an edit made in it (typed, or a control) is the ordinary edit: in
 * `GET /api/v1/presets`, undoable; a refused one shows its line and writes
 * nothing; closing the page clears the state. One service in this process
 * with its player and a headless output (one browser), driven here with
 * puppeteer-core over that browser's own DevTools pipe (`DevTools.channel`).
 */
import assert from "node:assert/strict";
import type { Browser, Page } from "puppeteer-core";
import { VirtualClock } from "../../../player/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { connectMcp, type McpTestClient } from "../../../tools/testing/mcp_client.ts";
import { decodePng, pixel } from "../../../tools/testing/images.ts";
import {
  near,
  openOutputService,
  outputDataDir,
  untilOutput,
} from "../../../tools/testing/output.ts";
import { TestSocket } from "../../../tools/testing/ws_client.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";
import { parseIsfApart } from "../../../player/isf/apart.ts";
import { connectBrowser, untilEditorShows } from "./_editor.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** The effect preset with a second input, a colour: the controls follow the header. */
const TINTED = INVERT
  .replace(
    `{ "NAME": "amount"`,
    `{ "NAME": "tint", "TYPE": "color", "DEFAULT": [1.0, 1.0, 1.0, 1.0] },\n    { "NAME": "amount"`,
  )
  .replace("c.a);", "c.a) * tint;");

/** Waits until the page's code box shows `code`. */
async function showsCode(page: Page, code: string): Promise<void> {
  await page.waitForFunction(`document.getElementById("code").value === ${JSON.stringify(code)}`);
}

/** An input's type and value. */
function control(page: Page, selector: string): Promise<string[]> {
  return page.$eval(selector, (e) => {
    const input = e as unknown as { type: string; value: string };
    return [input.type, input.value];
  });
}

/** The centre of the editor's preview, as the browser shows it (a screenshot). */
async function previewCentre(page: Page): Promise<number[]> {
  const canvas = (await page.$("#preview"))!;
  const png = decodePng(new Uint8Array(await canvas.screenshot({ type: "png" })));
  return pixel(png, Math.floor(png.width / 2), Math.floor(png.height / 2)).slice(0, 3);
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "The editor window shows edits made anywhere, and its own edits are the edit path's",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dataDir = await outputDataDir();
    const s = await openOutputService(dataDir, { clock: new VirtualClock() });
    const mcp: McpTestClient = await connectMcp(s.base);
    const ws = await TestSocket.open(`ws://127.0.0.1:${s.wsPort}/v1`);
    await ws.take();
    await ws.auth();
    /** Waits for the WebSocket's updates of each `type event` (or `type`) named. */
    const updates = async (...wanted: string[]) => {
      const seen: string[] = [];
      const has = (w: string) => seen.some((u) => u === w || u.startsWith(`${w} `));
      while (!wanted.every(has)) {
        const batch = await ws.take((m) => m.event === "state-update");
        seen.push(...batch.payload.map((u: Json) => `${u.updateType} ${u.data.event ?? ""}`));
      }
    };
    const get = async (path: string): Promise<Json> => (await fetch(s.base + path)).json();
    const post = async (path: string, body: unknown) => {
      const res = await fetch(s.base + path, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, body: await res.json() as Json };
    };
    const mcpEdit = async (params: unknown) => {
      const result = await mcp.call("app_preset_edit", {
        edits: [{ name: "preset.update", params }],
      });
      assert.equal(result.isError, undefined, `${result.content[0]?.text}`);
    };
    let browser: Browser | null = null;
    let page: Page | null = null;
    let presetID = "";
    const presetCode = async () => (await get(`/api/v1/presets/effect/${presetID}`)).code as string;
    const codeInPage = async () => (await control(page!, "#code"))[1];
    const editorState = async () => (await get("/api/v1/app-state")).editor;
    try {
      // The ISF check's modules loaded once (on a cold cache Deno type-checks it first, which
      // took longer than the service's 5 s for the player's answer to the first preset.add).
      await parseIsfApart(INVERT, "effect");
      const added = await mcp.call("app_preset_edit", {
        edits: [{
          name: "preset.add",
          params: { kind: "effect", name: "Invert", type: "isf", code: INVERT },
        }],
      });
      assert.equal(added.isError, undefined, `${added.content[0]?.text}`);
      presetID = added.structuredContent.edits[0].created.presetID;
      await post("/api/v1/action", { name: "TRIGGER_CLIP_IN", params: ["red"] });

      await t.step("OPEN_EDITOR opens the editor page in the output's browser", async () => {
        const opened = await mcp.call("app_open_editor", {
          action: "OPEN_EDITOR",
          kind: "effect",
          presetID,
        });
        assert.equal(opened.isError, undefined, `${opened.content[0]?.text}`);
        await untilEditorShows(s, presetID);
        browser = await connectBrowser(s.output);
        const target = await browser.waitForTarget((t) => t.url() === s.output.editorUrl);
        page = (await target.page())!;
        await showsCode(page!, INVERT);
        assert.deepEqual(await control(page, "[data-param=amount]"), ["range", "1"]);
        // The preview: the red picture under the inverting preset.
        await untilOutput(
          s.output,
          "the preview",
          async () => near(await previewCentre(page!), [0, 255, 255]),
        );
      });

      await t.step("an edit made over MCP shows in the page: code, controls, preview", async () => {
        const blue = TINTED.replace("1.0 - c.rgb", "c.gbr");
        await mcpEdit({ kind: "effect", presetID, code: blue });
        await showsCode(page!, blue);
        assert.deepEqual(await control(page!, "[data-param=tint]"), ["color", "#ffffff"]);
        await untilOutput(
          s.output,
          "the preview to draw the new code",
          async () => near(await previewCentre(page!), [0, 0, 255]),
        );
        await mcpEdit({ kind: "effect", presetID, code: INVERT });
        await showsCode(page!, INVERT);
      });

      await t.step(
        "code typed and not applied is kept when an edit comes from elsewhere",
        async () => {
          const typed = `${INVERT}// not applied yet\n`;
          await page!.$eval(
            "#code",
            (e, code) => (e as unknown as { value: string }).value = code,
            typed,
          );
          const other = INVERT.replace("1.0 - c.rgb", "c.brg");
          await mcpEdit({ kind: "effect", presetID, code: other });
          await page!.waitForSelector("#elsewhere:not([hidden])");
          assert.equal(await codeInPage(), typed);
          // Applied, it would undo the change it was not typed over: refused.
          await page!.click("#apply");
          await page!.waitForSelector('#status[data-state="refused"]');
          assert.equal(await presetCode(), other);
          await page!.click("#take");
          assert.equal(await codeInPage(), other);
          await mcpEdit({ kind: "effect", presetID, code: INVERT });
          await showsCode(page!, INVERT);
        },
      );

      await t.step("OPEN_EDITOR on another preset shows it in the same window", async () => {
        const opened = await post("/api/v1/action", {
          name: "OPEN_EDITOR",
          params: ["effect", "fx-blur"],
        });
        assert.equal(opened.status, 200, JSON.stringify(opened.body));
        const blur = (await get("/api/v1/presets/effect/fx-blur")).code as string;
        await showsCode(page!, blur);
        assert.equal(
          await page!.$eval("#code", (e) => (e as unknown as { readOnly: boolean }).readOnly),
          true,
        );
        assert.equal((await editorState()).shown, true);
        const back = await post("/api/v1/action", {
          name: "OPEN_EDITOR",
          params: ["effect", presetID],
        });
        assert.equal(back.status, 200, JSON.stringify(back.body));
        await showsCode(page!, INVERT);
      });

      await t.step(
        "code typed in the page is the preset's, and undone by project.undo",
        async () => {
          await page!.focus("#code");
          await page!.keyboard.down("Control");
          await page!.keyboard.press("End");
          await page!.keyboard.up("Control");
          await page!.keyboard.type("// typed in the editor window\n");
          ws.messages.length = 0;
          await page!.click("#apply");
          // Every client hears of it as of any edit.
          await updates("presets", "appState editor-preset-changed");
          await untilOutput(
            s.output,
            "the typed code in the preset store",
            async () => (await presetCode()) === `${INVERT}// typed in the editor window\n`,
          );
          await page!.waitForSelector('#status[data-state="done"]');
          const undone = await post("/api/v1/edit", { name: "project.undo", params: {} });
          assert.equal(undone.status, 200, JSON.stringify(undone.body));
          assert.equal(await presetCode(), INVERT);
          // The undo, made elsewhere, shows in the page.
          await showsCode(page!, INVERT);
        },
      );

      await t.step("a control is an edit of the header's DEFAULT, undoable", async () => {
        await page!.$eval("[data-param=amount]", (e) => {
          (e as unknown as { value: string }).value = "0.25";
          e.dispatchEvent(new Event("change"));
        });
        await untilOutput(s.output, "the new default", async () => {
          const presets = await get("/api/v1/presets");
          const preset = presets.presets.find((p: Json) => p.presetId === presetID);
          return preset?.parameters.find((p: Json) => p.name === "amount")?.default === 0.25;
        });
        assert.match(await presetCode(), /"DEFAULT": 0\.25/);
        await post("/api/v1/edit", { name: "project.undo", params: {} });
        assert.equal(await presetCode(), INVERT);
      });

      await t.step("a refused edit shows its line in the page and writes nothing", async () => {
        const revision = (await get("/api/v1/projects/out")).revision;
        const broken = INVERT.replace("c.a);", "c.a)");
        await page!.$eval(
          "#code",
          (e, code) => (e as unknown as { value: string }).value = code,
          broken,
        );
        await page!.click("#apply");
        await page!.waitForSelector('#status[data-state="refused"]');
        // The line that lacks its ";", at its end (as TypeScript reports it; issue 45).
        const line = INVERT.split("\n").findIndex((l) => l.includes("c.a);")) + 1;
        const shown = await page!.$$eval(
          "#problems li",
          (items) => items.map((li) => li.textContent),
        );
        assert.match(shown[0]!, new RegExp(`^line ${line}, column \\d+: `), shown.join("\n"));
        assert.equal(await presetCode(), INVERT);
        assert.equal((await get("/api/v1/projects/out")).revision, revision);
        assert.equal(await codeInPage(), broken, "the text typed is kept to be fixed");
      });

      await t.step(
        "the vertex shader typed is the preset's vertexCode; its problem at its line",
        async () => {
          await page!.click("#revert");
          const setVertex = (code: string) =>
            page!.$eval(
              "#vertex",
              (e, text) => (e as unknown as { value: string }).value = text,
              code,
            );
          const vs = "void main() {\n  isf_vertShaderInit();\n  gl_Position.x *= 0.5;\n}\n";
          await setVertex(vs.replace("isf_vertShaderInit();", "isf_vertShaderInit()"));
          await page!.click("#apply");
          await page!.waitForSelector('#status[data-state="refused"]');
          const shown = await page!.$$eval(
            "#problems li",
            (items) =>
              items.map((li) =>
                `${
                  (li as unknown as { dataset: Record<string, string> }).dataset.field
                } ${li.textContent}`
              ),
          );
          assert.match(
            shown[0]!,
            /^vertexCode vertex shader, line 2, column \d+: /,
            shown.join("\n"),
          );
          await setVertex(vs);
          await page!.click("#apply");
          await untilOutput(
            s.output,
            "the vertex shader in the preset store",
            async () => (await get(`/api/v1/presets/effect/${presetID}`)).vertexCode === vs,
          );
          assert.equal(await presetCode(), INVERT);
          await post("/api/v1/edit", { name: "project.undo", params: {} });
          assert.equal((await get(`/api/v1/presets/effect/${presetID}`)).vertexCode, undefined);
          await page!.waitForFunction(`document.getElementById("vertex").value === ""`);
        },
      );

      await t.step("Apply pressed again before the first is answered: both written", async () => {
        const first = `${INVERT}// first\n`, second = `${INVERT}// first\n// second\n`;
        // Both in one turn of the page: the second is sent before any answer.
        await page!.evaluate(`{
          const box = document.getElementById("code");
          const apply = document.getElementById("apply");
          box.value = ${JSON.stringify(first)};
          apply.click();
          box.value = ${JSON.stringify(second)};
          apply.click();
        }`);
        await untilOutput(
          s.output,
          "the second code in the preset store",
          async () => (await presetCode()) === second,
        );
        await page!.waitForSelector('#status[data-state="done"]');
        await showsCode(page!, second);
      });

      await t.step("closing the page clears the editor in the state", async () => {
        ws.messages.length = 0;
        await page!.close();
        await updates("appState editor-closed");
        assert.equal(await editorState(), null);
      });

      await t.step("the editor page opened with no editor open says so", async () => {
        const stray = await browser!.newPage();
        try {
          await stray.goto(s.output.editorUrl);
          await stray.waitForSelector('#status[data-state="refused"]');
          assert.equal(
            await stray.$eval("#status", (e) => e.textContent),
            "The editor is closed, or open in another window",
          );
        } finally {
          await stray.close();
        }
      });

      const reopen = async (kind: string, id: string) => {
        const opened = await post("/api/v1/action", { name: "OPEN_EDITOR", params: [kind, id] });
        assert.equal(opened.status, 200, JSON.stringify(opened.body));
        // Fails at once if the editor closes instead, saying what the editor pages show.
        await untilEditorShows(s, id, browser);
      };
      const isOpen = () => browser!.targets().some((t) => t.url() === s.output.editorUrl);

      await t.step("removing the preset closes its window", async () => {
        await reopen("effect", presetID);
        await untilOutput(s.output, "the editor's window", isOpen);
        await post("/api/v1/edit", { name: "preset.remove", params: { kind: "effect", presetID } });
        assert.equal(await editorState(), null);
        await untilOutput(s.output, "the removed preset's window to close", () => !isOpen());
      });

      await t.step("the editor's page crashing clears the editor, its window closed", async () => {
        await reopen("effect", "fx-blur");
        // The newest target of the editor's page: the window the step before closed may still be
        // listed on a busy machine, and crashing it would crash nothing of this editor.
        const target = browser!.targets().filter((t) => t.url() === s.output.editorUrl).at(-1)!;
        const session = await target.createCDPSession();
        await session.send("Page.crash").catch(() => {}); // answered by the crash itself
        await untilOutput(
          s.output,
          "the editor to close",
          async () => (await editorState()) === null,
        );
        await untilOutput(s.output, "the crashed window to close", () => !isOpen());
      });

      await t.step(
        "the output page closed with the editor open comes back (headless)",
        async () => {
          await reopen("effect", "fx-blur");
          const loads = s.output.stats.pageLoads;
          const output = browser!.targets().find((t) => t.url() === s.output.url)!;
          await (await output.page())!.close();
          await untilOutput(
            s.output,
            "the output page again",
            () => s.output.stats.pageLoads > loads,
          );
          assert.equal((await editorState())?.shown, true, "the editor stays open");
        },
      );

      await t.step("the browser exiting clears the editor", async () => {
        await reopen("visualizer", "viz-spectrum");
        Deno.kill(s.output.browserPid!, "SIGKILL");
        await untilOutput(
          s.output,
          "the editor to close",
          async () => (await editorState()) === null,
        );
      });
    } finally {
      (browser as Browser | null)?.disconnect();
      await ws.close();
      await mcp.close();
      await s.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
