/**
 * The output draws the code of ISF presets: a user preset added over MCP (the
 * SDK client) and linked to a Clip inverts its colours in the real browser's
 * pixels; a parameter or the code changed over HTTP changes the picture; code
 * the output's GL compiler refuses is taken by the edit (the verdict is the
 * check's alone, page or no page), never replaces working code, and its log
 * comes back at the user's lines. One service in this process, its player in this
 * process too (on a virtual clock) with a headless output: one browser.
 */
import assert from "node:assert/strict";
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
import { ES_310_ONLY, INVERT } from "../../../tools/testing/isf_shaders.ts";

/** The service with a headless output on a virtual clock, and what the steps do with it. */
async function openService(dataDir: string) {
  const logs: string[] = [];
  const { output, base, advance, stop } = await openOutputService(dataDir, {
    clock: new VirtualClock(),
    log: (level, message) => logs.push(`${level}: ${message}`),
  });
  const post = async (path: string, body: unknown) => {
    const res = await fetch(base + path, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  };
  const centre = async () => {
    const picture = decodePng(await output.frame());
    return pixel(picture, picture.width / 2, picture.height / 2).slice(0, 3);
  };
  return { base, output, logs, post, centre, advance, stop };
}

// deno-lint-ignore no-explicit-any
async function ok(mcp: McpTestClient, tool: string, name: string, params: unknown): Promise<any> {
  const result = await mcp.call(tool, { edits: [{ name, params }] });
  assert.equal(result.isError, undefined, `${tool}: ${result.content[0]?.text}`);
  return result.structuredContent.edits[0];
}

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "The output draws ISF preset code, live, and never code GL refuses",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dataDir = await outputDataDir();
    const s = await openService(dataDir);
    const mcp = await connectMcp(s.base);
    let presetID = "", effectID = "";
    const edit = async (name: string, params: unknown) => {
      const answer = await s.post("/api/v1/edit", { name, params });
      assert.equal(answer.status, 200, JSON.stringify(answer.body));
      return answer.body;
    };
    try {
      await t.step("a user ISF effect added over MCP turns the red output cyan", async () => {
        await s.post("/api/v1/action", { name: "TRIGGER_CLIP_IN", params: ["red"] });
        assert(near(await s.centre(), [255, 0, 0]), "red before the effect");
        const preset = { kind: "effect", name: "Invert", type: "isf", code: INVERT };
        presetID = (await ok(mcp, "app_preset_edit", "preset.add", preset)).created.presetID;
        const effect = { presetID };
        effectID = (await ok(mcp, "app_effect_edit", "effect.add", effect)).created.effectID;
        await ok(mcp, "app_clip_edit", "clip.update", {
          clipID: "red",
          options: { effects: [effectID] },
        });
        const rgb = await s.centre();
        assert(near(rgb, [0, 255, 255]), `inverted: ${rgb}`);
      });

      await t.step("a parameter changed over HTTP changes the picture", async () => {
        await edit("effect.update", { effectID, params: { amount: 0.5 } });
        const rgb = await s.centre();
        assert(near(rgb, [128, 128, 128], 10), `half inverted: ${rgb}`);
        await edit("effect.update", { effectID, params: { amount: 1 } });
      });

      const swap = INVERT.replace("1.0 - c.rgb", "c.gbr");
      await t.step("the preset's code changed over HTTP redraws its Effect", async () => {
        await edit("preset.update", { kind: "effect", presetID, code: swap });
        const rgb = await s.centre();
        assert(near(rgb, [0, 0, 255]), `red turned to blue by the new code: ${rgb}`);
      });

      await t.step("TIME is the player's clock in seconds", async () => {
        const clocked = INVERT.replace(
          "gl_FragColor = vec4(mix(c.rgb, 1.0 - c.rgb, amount), c.a);",
          "gl_FragColor = vec4(vec3(fract(TIME)), 1.0) + c * 0.0 * amount;",
        );
        await edit("preset.update", { kind: "effect", presetID, code: clocked });
        const before = (await s.centre())[0]!;
        await s.advance(250);
        const after = (await s.centre())[0]!;
        const moved = (((after - before) / 255) % 1 + 1) % 1;
        assert(Math.abs(moved - 0.25) < 0.03, `grey ${before} then ${after}: ${moved} of a second`);
        await edit("preset.update", { kind: "effect", presetID, code: swap });
      });

      await t.step("a type error is refused at its line with the output running", async () => {
        const typed = INVERT.replace("void main() {", "void main() {\n  vec3 k = amount;");
        const answer = await s.post("/api/v1/edit", {
          name: "preset.update",
          params: { kind: "effect", presetID, code: typed },
        });
        assert.equal(answer.status, 422, JSON.stringify(answer.body));
        const line = typed.split("\n").findIndex((l) => l.includes("vec3 k")) + 1;
        const problems = answer.body.error.details.problems as Array<{ line: number }>;
        assert.equal(problems[0]?.line, line, JSON.stringify(problems));
      });

      await t.step("a desktop-GLSL habit (float x = 1;) is taken and drawn", async () => {
        // GL refuses it as ES 1.00; its lifted ES 3.00 sources say `float one = 1.0;`.
        const habit = INVERT.replace("void main() {", "void main() {\n  float one = 1;")
          .replace("1.0 - c.rgb", "one - c.rgb");
        await edit("preset.update", { kind: "effect", presetID, code: habit });
        const rgb = await s.centre();
        assert(near(rgb, [0, 255, 255]), `red inverted by the lifted code: ${rgb}`);
      });

      // What the check's compiler (ES 3.10) takes and the output's GL (ES 3.00) does not.
      const line = ES_310_ONLY.split("\n").findIndex((l) => l.includes("ldexp")) + 1;

      await t.step(
        "code GL refuses is taken by the edit; the output keeps the last that compiled, its log once at its line",
        async () => {
          const answer = await s.post("/api/v1/edit", {
            name: "preset.update",
            params: { kind: "effect", presetID, code: ES_310_ONLY },
          });
          assert.equal(answer.status, 200, JSON.stringify(answer.body));
          await untilOutput(
            s.output,
            "the compile log",
            () => s.logs.some((l) => l.includes("does not compile")),
          );
          const rgb = await s.centre();
          assert(near(rgb, [0, 255, 255]), `the previous code still draws: ${rgb}`);
          const logged = s.logs.filter((l) => l.includes("does not compile"));
          assert.equal(logged.length, 1, logged.join("\n"));
          assert.match(logged[0]!, new RegExp(`"Invert".*line ${line}, column \\d+`));
        },
      );
    } finally {
      await mcp.close();
      await s.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
