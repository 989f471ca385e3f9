/**
 * `GET /api/v1/output/frame.jpg`: the output's picture now, through the catalog's
 * `outputFrame`. One service in this process, its player in this process with a headless
 * output on a virtual clock (one browser), showing the solid red Clip; the JPEG is read by
 * ffmpeg (an independent decoder), not by the project's own codecs.
 */
import assert from "node:assert/strict";
import http from "node:http";
import { Buffer } from "node:buffer";
import { VirtualClock } from "../../../player/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { formatOf, jpegSize } from "../../../tools/testing/images.ts";
import { near, openOutputService, outputDataDir } from "../../../tools/testing/output.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { connectMcp } from "../../../tools/testing/mcp_client.ts";

/** The RGB of the picture's centre pixel, decoded by ffmpeg. */
async function centreByFfmpeg(bytes: Uint8Array): Promise<number[]> {
  const child = new Deno.Command("ffmpeg", {
    args: [
      ...["-hide_banner", "-loglevel", "error", "-i", "pipe:0"],
      ...[
        "-vf",
        "format=rgb24,crop=1:1:iw/2:ih/2",
        "-frames:v",
        "1",
        "-f",
        "rawvideo",
        "-pix_fmt",
        "rgb24",
      ],
      "pipe:1",
    ],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const writer = child.stdin.getWriter();
  await writer.write(bytes);
  await writer.close();
  const out = await child.output();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return [...out.stdout.slice(0, 3)];
}

/** A request from `localAddress` (a remote device, as far as the service can tell): raw bytes. */
function fromDevice(
  port: number,
  path: string,
  options: { token?: string; method?: string; body?: unknown; localAddress?: string } = {},
): Promise<{ status: number; type: string; bytes: Uint8Array }> {
  return new Promise((resolve, reject) => {
    const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
    const req = http.request({
      host: "127.0.0.1",
      port,
      path,
      method: options.method ?? "GET",
      localAddress: options.localAddress ?? "127.0.0.2",
      headers: {
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(payload ? { "content-type": "application/json" } : {}),
      },
    }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          type: String(res.headers["content-type"] ?? ""),
          bytes: new Uint8Array(Buffer.concat(chunks)),
        }));
    });
    req.on("error", reject);
    if (payload) req.write(payload);
    req.end();
  });
}

/** Pairs a device from 127.0.0.2 with `scopes`; its token. */
async function pair(base: string, port: number, scopes: string[]): Promise<string> {
  const code = await fetch(`${base}/api/v1/pair/code`, { method: "POST", body: "{}" });
  const { otp } = await code.json();
  const paired = await fromDevice(port, "/api/v1/pair", {
    method: "POST",
    body: { otp, deviceName: `Preview ${scopes.join("+")}`, scopes },
  });
  const body = JSON.parse(new TextDecoder().decode(paired.bytes));
  assert.equal(paired.status, 200, JSON.stringify(body));
  return body.token;
}

Deno.test("GET /api/v1/output/frame.jpg without an output answers 409 NO_OUTPUT naming the output setting, never a 5xx", async () => {
  const svc = await startTestService();
  try {
    for (const extension of ["jpg", "jpeg", "png"]) {
      const res = await fetch(`${svc.base}/api/v1/output/frame.${extension}?size=64`);
      const body = await res.json();
      assert.equal(res.status, 409, JSON.stringify(body));
      assert.equal(body.error.code, "NO_OUTPUT");
      assert.match(body.error.message, /output setting/);
      const head = await fetch(`${svc.base}/api/v1/output/frame.${extension}`, { method: "HEAD" });
      await head.body?.cancel();
      assert.equal(head.status, 409, `HEAD .${extension}`);
    }
    const mcp = await connectMcp(svc.base);
    try {
      const result = await mcp.call("app_get_output_frame", {});
      assert.equal(result.isError, true);
      assert.match(result.content[0]!.text!, /NO_OUTPUT[\s\S]*output setting/);
    } finally {
      await mcp.close();
    }
  } finally {
    await svc.stop();
  }
});

Deno.test({
  ...needs("chromium", "ffmpeg"),
  name:
    "GET /api/v1/output/frame.jpg answers the output's picture to local and view-scoped devices",
  sanitizeOps: false,
  sanitizeResources: false,
  async fn(t) {
    const dataDir = await outputDataDir();
    const { base, stop } = await openOutputService(dataDir, { clock: new VirtualClock() });
    const port = Number(new URL(base).port);
    try {
      await fetch(`${base}/api/v1/action`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ name: "TRIGGER_CLIP_IN", params: ["red"] }),
      }).then((r) => r.body?.cancel());

      await t.step("local: a JPEG of the size asked whose centre is red", async () => {
        const res = await fetch(`${base}/api/v1/output/frame.jpg?size=64&quality=90`);
        const bytes = new Uint8Array(await res.arrayBuffer());
        assert.equal(res.status, 200, new TextDecoder().decode(bytes));
        assert.equal(res.headers.get("content-type"), "image/jpeg");
        assert.equal(formatOf(bytes), "jpeg");
        // The test display is 160x90: the longer side is 64, the shape kept.
        assert.deepEqual(jpegSize(bytes), { width: 64, height: 36 });
        const rgb = await centreByFfmpeg(bytes);
        assert.ok(near(rgb, [255, 0, 0], 24), `centre ${rgb}`);
        // The page made it at that size (player protocol 1.8): no full-size PNG to re-encode.
        const files = [...Deno.readDirSync(`${dataDir}/cache/output`)].map((e) => e.name);
        assert.ok(files.some((name) => name.endsWith("-64.jpg")), files.join(" "));
      });

      await t.step(".png answers a PNG of the output's size", async () => {
        const res = await fetch(`${base}/api/v1/output/frame.png`);
        const bytes = new Uint8Array(await res.arrayBuffer());
        assert.equal(res.status, 200);
        assert.equal(res.headers.get("content-type"), "image/png");
        assert.equal(formatOf(bytes), "png");
        assert.ok(near(await centreByFfmpeg(bytes), [255, 0, 0], 2));
      });

      await t.step("a paired device with view gets it; one without view is refused", async () => {
        const viewer = await pair(base, port, ["view"]);
        const seen = await fromDevice(port, "/api/v1/output/frame.jpg?size=32", { token: viewer });
        assert.equal(seen.status, 200, new TextDecoder().decode(seen.bytes));
        assert.equal(seen.type, "image/jpeg");
        assert.ok(near(await centreByFfmpeg(seen.bytes), [255, 0, 0], 24));
        const pedal = await pair(base, port, ["control"]);
        const refused = await fromDevice(port, "/api/v1/output/frame.jpg", { token: pedal });
        const body = JSON.parse(new TextDecoder().decode(refused.bytes));
        assert.equal(refused.status, 403);
        assert.equal(body.error.code, "INSUFFICIENT_SCOPE");
        assert.match(body.error.message, /"view" scope/);
      });

      await t.step("MCP app_get_output_frame answers the picture as image content", async () => {
        const mcp = await connectMcp(base);
        try {
          const result = await mcp.call("app_get_output_frame", { size: 48 });
          assert.equal(result.isError, undefined, String(result.content[0]?.text));
          const image = result.content.find((c) => c.type === "image")!;
          assert.equal(image.mimeType, "image/jpeg");
          const bytes = Buffer.from(image.data!, "base64");
          assert.deepEqual(jpegSize(bytes), { width: 48, height: 27 });
          assert.ok(near(await centreByFfmpeg(bytes), [255, 0, 0], 24));
          assert.equal(result.structuredContent.mimeType, "image/jpeg");
        } finally {
          await mcp.close();
        }
      });
    } finally {
      await stop();
      await Deno.remove(dataDir, { recursive: true });
    }
  },
});
