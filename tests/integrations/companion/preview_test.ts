/**
 * The Companion module's output preview: the built module, run as Companion runs it, puts the
 * picture of a real service's headless output on a key (a red Clip gives a red key), fetches it
 * only while a key shows it, and says "NO PREVIEW" where no output runs.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { VirtualClock } from "../../../player/mod.ts";
import { ModuleHost } from "../../../integrations/companion/deno/host.ts";
import { decodePng } from "../../../server/media/render/codecs.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { near, openOutputService, outputDataDir } from "../../../tools/testing/output.ts";
import { startTestService } from "../../../tools/testing/service.ts";

function config(httpPort: number, wsPort: number): Record<string, unknown> {
  return {
    bonjour: null,
    host: "127.0.0.1",
    httpPort,
    wsPort,
    pairingCode: "",
    deviceName: "Companion test",
  };
}

/** The RGB at the centre of an advanced feedback's key (a PNG). */
// deno-lint-ignore no-explicit-any
async function keyCentre(value: any): Promise<{ size: number[]; rgb: number[] }> {
  const key = await decodePng(new Uint8Array(Buffer.from(String(value.png64), "base64")));
  const i = ((key.height >> 1) * key.width + (key.width >> 1)) * 4;
  return { size: [key.width, key.height], rgb: [...key.data.subarray(i, i + 3)] };
}

Deno.test({
  ...needs("node", "chromium", "ffmpeg"),
  name: "the output_preview feedback puts the output's picture on a key while a key shows it",
  sanitizeOps: false,
  sanitizeResources: false,
  fn: async (t) => {
    const dataDir = await outputDataDir();
    const svc = await openOutputService(dataDir, { clock: new VirtualClock() });
    const port = Number(new URL(svc.base).port);
    const host = await ModuleHost.start();
    try {
      await host.init(config(port, svc.wsPort));
      await host.until(() => host.status.status === "ok", "the connection to be OK");
      const answer = await fetch(`${svc.base}/api/v1/action`, {
        method: "POST",
        body: JSON.stringify({ name: "TRIGGER_CLIP_IN", params: ["red"] }),
      });
      assert.equal(answer.status, 200, await answer.text());

      await t.step("a key with the feedback shows the red output, fitted whole", async () => {
        await host.placeFeedbacks({
          preview: {
            feedbackId: "output_preview",
            options: { interval: 250 },
            image: { width: 72, height: 72 },
          },
        });
        const shown = await host.until(
          () =>
            host.feedbackValues.get("preview")?.value?.png64 && host.feedbackValues.get("preview"),
          "the preview on the key",
          120_000,
        );
        const { size, rgb } = await keyCentre(shown.value);
        assert.deepEqual(size, [72, 72]);
        assert.ok(near(rgb, [255, 0, 0]), `the key's centre is red: ${rgb}`);
        // A 16:9 picture on a square key: black above and below it.
        const key = await decodePng(new Uint8Array(Buffer.from(shown.value.png64, "base64")));
        assert.deepEqual([...key.data.subarray(36 * 4, 36 * 4 + 3)], [0, 0, 0]);
      });

      await t.step("taken off its key, the preview stops; placed again, it starts", async () => {
        await host.call("updateFeedbacks", { feedbacks: { preview: null } });
        await host.until(
          () => host.logs.some((l) => l.includes("Output preview: no key shows it, stopped")),
          "the preview to stop",
        );
        host.feedbackValues.delete("preview");
        await host.placeFeedbacks({
          again: {
            feedbackId: "output_preview",
            options: { interval: 1000 },
            image: { width: 96, height: 54 },
          },
        });
        const shown = await host.until(
          () => host.feedbackValues.get("again")?.value?.png64 && host.feedbackValues.get("again"),
          "the preview again",
          120_000,
        );
        const { size, rgb } = await keyCentre(shown.value);
        assert.deepEqual(size, [96, 54]);
        assert.ok(near(rgb, [255, 0, 0]), `red again: ${rgb}`);
      });

      await t.step("a service with no output: the key says NO PREVIEW", async () => {
        const plain = await startTestService({}, { demo: true });
        try {
          await host.call("updateConfig", {
            label: "cueport",
            config: config(plain.service.ports.http, plain.service.ports.ws),
            secrets: { token: "" },
          });
          await host.until(
            () => host.feedbackValues.get("again")?.value?.text === "NO PREVIEW",
            "the refusal on the key",
            60_000,
          );
          assert.ok(
            host.logs.some((l) => l.startsWith("warn: Output preview:")),
            host.logs.join("\n"),
          );
        } finally {
          await plain.stop();
        }
      });
    } finally {
      await host.stop();
      await svc.stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
