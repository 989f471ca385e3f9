/**
 * The output draws the show: real pixels read from the headless Chromium the
 * player launched (software GL), on a virtual clock. One player and one
 * browser for the whole file; each step starts from `STOP_IN`.
 */
import assert from "node:assert/strict";
import { needs } from "../../../tools/testing/peers.ts";
import { decodePng, pixel } from "../../../tools/testing/images.ts";
import {
  H,
  near,
  openOutputPlayer,
  RAMP_SECONDS,
  untilOutput,
  W,
} from "../../../tools/testing/output.ts";

/** The ramp video's brightness at `seconds`. */
const rampAt = (seconds: number) => Math.round((255 * seconds) / RAMP_SECONDS);

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name: "Output draws the show",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const p = await openOutputPlayer();
    const centre = async () => {
      const rgb = await p.centre();
      return { rgb, text: `centre is ${rgb.join(",")}` };
    };
    try {
      await t.step("with nothing playing the background Clip shows", async () => {
        const { rgb, text } = await centre();
        assert(near(rgb, [0, 255, 0]), text);
      });

      await t.step("a red still Clip triggered turns the centre red", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
        const { rgb, text } = await centre();
        assert(near(rgb, [255, 0, 0]), text);
      });

      await t.step("output.frame writes the picture as a PNG file", async () => {
        const result = await p.app.outputFrame();
        assert.deepEqual([result.width, result.height], [W, H]);
        const picture = decodePng(await Deno.readFile(result.path));
        assert(near(pixel(picture, W / 2, H / 2).slice(0, 3), [255, 0, 0]));
      });

      await t.step("STOP_IN returns to the background Clip", async () => {
        await p.run("STOP_IN");
        const { rgb, text } = await centre();
        assert(near(rgb, [0, 255, 0]), text);
      });

      await t.step("a 50% white layer over black reads mid-grey", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "black" });
        await p.run("TRIGGER_CLIP_IN", { clipID: "white" });
        const { rgb, text } = await centre();
        assert(near(rgb, [128, 128, 128], 10), text);
        await p.run("STOP_IN");
      });

      await t.step("a brightness filter lightens the picture", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "black" });
        const before = await centre();
        assert(near(before.rgb, [0, 0, 0]), before.text);
        await p.run("SET_PARAM", { targetID: "clip:black/brightness", value: 0.5 });
        const after = await centre();
        assert(near(after.rgb, [128, 128, 128], 10), after.text);
        await p.run("STOP_IN");
      });

      // The still is red on the left, blue on the right. The kaleidoscope (2 segments, not
      // mirrored) folds every angle into the upper half-turn: just below the left middle
      // the picture now comes from the right, blue.
      const belowLeft = [Math.round(0.2 * W), Math.round(0.55 * H)] as const;
      await t.step("the kaleidoscope changes the picture", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "quad-plain" });
        const plain = pixel(await p.frame(), ...belowLeft).slice(0, 3);
        assert(near(plain, [255, 0, 0]), `without: ${plain}`);
        await p.run("STOP_IN");
        await p.run("TRIGGER_CLIP_IN", { clipID: "quad" });
        const folded = pixel(await p.frame(), ...belowLeft).slice(0, 3);
        assert(near(folded, [0, 0, 255]), `with the kaleidoscope: ${folded}`);
      });

      // Control K maps 0-1 onto the kaleidoscope's segments, 2-12: at 2 the upper left
      // (135 degrees) keeps its red; at 12 it folds into the first 30 degrees, blue.
      const upperLeft = [Math.round(0.25 * W), Math.round(0.25 * H)] as const;
      await t.step("a Control bound to an Effect parameter changes pixels", async () => {
        await p.run("SET_CONTROL", { controlID: "K", value: 0 });
        const two = pixel(await p.frame(), ...upperLeft).slice(0, 3);
        assert(near(two, [255, 0, 0]), `segments 2: ${two}`);
        await p.run("SET_CONTROL", { controlID: "K", value: 1 });
        const twelve = pixel(await p.frame(), ...upperLeft).slice(0, 3);
        assert(near(twelve, [0, 0, 255]), `segments 12: ${twelve}`);
        await p.run("STOP_IN");
      });

      await t.step("a backward Clip's frames run backward", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "ramp-back" });
        const seen: number[] = [];
        for (const _ of [0, 1, 2]) {
          p.advance(1000);
          seen.push((await p.centre())[0]!);
        }
        const want = [3, 2, 1].map(rampAt);
        assert(seen.every((v, i) => Math.abs(v - want[i]!) <= 20), `saw ${seen}, want ${want}`);
        await p.run("STOP_IN");
      });

      await t.step("seeks, speed and pauses show on the clock", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "ramp" });
        await p.run("SEEK_CLIP_IN", { clipID: "ramp", percent: 0.5 });
        const sought = (await p.centre())[0]!;
        assert(Math.abs(sought - rampAt(2)) <= 20, `sought to 2 s: ${sought}`);
        await p.run("SET_PARAM", { targetID: "clip:ramp/speed", value: 0.5 });
        p.advance(1000);
        const slow = (await p.centre())[0]!;
        assert(Math.abs(slow - rampAt(2.5)) <= 20, `half speed, 1 s later: ${slow}`);
        await p.run("PAUSE_IN", { clipID: "ramp" });
        p.advance(1000);
        const held = (await p.centre())[0]!;
        assert(Math.abs(held - rampAt(2.5)) <= 20, `paused: ${held}`);
        await p.run("SET_PARAM", { targetID: "clip:ramp/speed", value: 1 });
        await p.run("STOP_IN");
      });

      await t.step(
        "a file the browser cannot decode shows the Clip's card, logged once",
        async () => {
          await p.run("TRIGGER_CLIP_IN", { clipID: "broken" });
          await untilOutput(p.output, "the fault", () => p.output.faults.length > 0);
          const { rgb, text } = await centre();
          assert(near(rgb, [48, 52, 60], 20), text);
          await p.run("RESTART_CLIP_IN", { clipID: "broken" });
          await p.centre();
          assert.equal(p.logs.filter((l) => l.includes('Clip "broken" shows its card')).length, 1);
          await p.run("STOP_IN");
        },
      );

      await t.step("PANIC reloads the page, which takes up the show", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
        await p.frame();
        const loads = p.output.stats.pageLoads;
        await p.run("PANIC");
        await untilOutput(
          p.output,
          "the page to load again",
          () => p.output.stats.pageLoads > loads,
        );
        const { rgb, text } = await centre();
        assert(near(rgb, [255, 0, 0]), text);
        await p.run("STOP_IN");
      });

      await t.step("a Clip naming a camera shows the live camera", async () => {
        await p.run("TRIGGER_CLIP_IN", { clipID: "cam" });
        const picture = await p.frame();
        // Chromium's fake camera: a moving pattern on a coloured ground, neither the
        // display's black, the background's green, nor the card.
        const colours = new Set<string>();
        for (let x = 0; x < W; x += 8) {
          for (let y = 0; y < H; y += 8) colours.add(pixel(picture, x, y).slice(0, 3).join());
        }
        assert(colours.size > 3, `${colours.size} colours: ${[...colours].slice(0, 5)}`);
        assert(!p.output.faults.some((f) => f.startsWith("cam:")), p.output.faults.join());
        await p.run("STOP_IN");
      });

      await t.step("the display's zoom and background colour frame the picture", async () => {
        const edit = (name: string, params: Record<string, unknown>) =>
          p.app.applyEdits({ projectId: null, edits: [{ name, params }] });
        await edit("project.set_zoom", { zoom: 0.5 });
        await edit("project.set_display", { backgroundColor: "#0000ff" });
        await p.run("TRIGGER_CLIP_IN", { clipID: "red" });
        const picture = await p.frame();
        const corner = pixel(picture, 2, 2).slice(0, 3);
        const middle = pixel(picture, W / 2, H / 2).slice(0, 3);
        assert(near(corner, [0, 0, 255]), `around the half-size picture: ${corner}`);
        assert(near(middle, [255, 0, 0]), `the picture: ${middle}`);
        await edit("project.set_zoom", { zoom: 1 });
        await edit("project.set_display", { backgroundColor: "#000000" });
        await p.run("STOP_IN");
      });

      await t.step("FULLSCREEN_TOGGLE shows in the headless page's state and back", async () => {
        await p.frame();
        assert.equal(p.output.pageFullScreen, false);
        await p.run("FULLSCREEN_TOGGLE");
        await p.frame();
        assert.equal(p.output.pageFullScreen, true);
        await p.run("FULLSCREEN_TOGGLE");
        await p.frame();
        assert.equal(p.output.pageFullScreen, false);
      });

      await t.step(
        "killing the browser brings the picture back at the right position",
        async () => {
          await p.run("TRIGGER_CLIP_IN", { clipID: "ramp" });
          p.advance(1000);
          const before = (await p.centre())[0]!;
          assert(Math.abs(before - rampAt(1)) <= 20, `before ${before}: ${p.logs.slice(-3)}`);
          const pid = p.output.browserPid!;
          Deno.kill(pid, "SIGKILL");
          await untilOutput(p.output, "the browser to exit", () => p.output.browserPid !== pid);
          p.advance(1000); // the show goes on without the browser
          const back = (await p.centre())[0]!;
          assert(Math.abs(back - rampAt(2)) <= 20, `after the relaunch ${back}, want ${rampAt(2)}`);
          const line = p.logs.find((l) => /Output back \d+ ms after the browser exited/.test(l));
          assert(line, p.logs.join("\n"));
          // How long the relaunch took is a measure (bench/output_bench.ts), not a pass mark here.
          assert.equal(typeof p.output.lastRecoveryMs, "number", line);
        },
      );
    } finally {
      await p.close();
    }
  },
});
