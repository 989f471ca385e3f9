import assert from "node:assert/strict";
import { captureAction, startBaseline } from "../../bench/_baseline.ts";
import { startTestService } from "../../tools/testing/service.ts";

/**
 * The action's baselines answer Cueport's very bytes (docs/load.md, "Baselines and paired
 * ratios"): the relay (`/relay`, the design's limit, through the bare child) and the bare POST
 * (`/`, the same work) answer `POST /api/v1/action` `SET_CONTROL` as Cueport does, headers and
 * body, `date` aside. The raw HTTP/1.1 answer is read from a socket.
 */
async function rawPost(base: string, path: string, body: string): Promise<string> {
  const url = new URL(base);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const request = `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\n` +
      `content-type: application/json\r\ncontent-length: ${body.length}\r\n` +
      `connection: close\r\n\r\n${body}`;
    await conn.write(new TextEncoder().encode(request));
    const chunks: number[] = [];
    const buffer = new Uint8Array(4096);
    for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
      chunks.push(...buffer.subarray(0, n));
    }
    const text = new TextDecoder().decode(new Uint8Array(chunks));
    return text.split("\r\n").filter((line) => !line.startsWith("date: ")).join("\r\n");
  } finally {
    try {
      conn.close();
    } catch {
      // closed by the server already
    }
  }
}

Deno.test("the action's baselines answer Cueport's very bytes, date aside", async () => {
  const svc = await startTestService();
  const action = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });
  const bare = await startBaseline({}, await captureAction(`${svc.base}/api/v1/action`, action));
  try {
    const cueport = await rawPost(svc.base, "/api/v1/action", action);
    assert.match(cueport, /^HTTP\/1.1 200 OK\r\n/);
    assert.match(cueport, /"message":"Control A = 0.5: 1 Target\(s\) written"}$/);
    assert.equal(await rawPost(bare.url, "/relay", action), cueport);
    assert.equal(await rawPost(bare.url, "/", action), cueport);
    // Another value: the relay's answer is the child's result for this body, not a copy.
    const other = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.25] });
    assert.equal(
      await rawPost(bare.url, "/relay", other),
      await rawPost(svc.base, "/api/v1/action", other),
    );
  } finally {
    await bare.stop();
    await svc.stop();
  }
});
