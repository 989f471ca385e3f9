import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";

/**
 * The action's answer on the wire, byte for byte (issue 42): how the service builds the answer
 * (`jsonResponse` in server/routes/mod.ts) and how the Origin read by the Host and Origin checks
 * reaches CORS (`checkRequestOrigin`, `withCors`) may change for speed, its bytes may not. The
 * raw HTTP/1.1 answer is read from a socket; only the `date` line is left out.
 */
async function rawPost(base: string, path: string, body: string, extra = ""): Promise<string> {
  const url = new URL(base);
  const conn = await Deno.connect({ hostname: url.hostname, port: Number(url.port) });
  try {
    const request = `POST ${path} HTTP/1.1\r\nhost: ${url.host}\r\n${extra}` +
      `content-type: application/json\r\ncontent-length: ${body.length}\r\n` +
      `connection: close\r\n\r\n${body}`;
    await conn.write(new TextEncoder().encode(request));
    const chunks: Uint8Array[] = [];
    const buffer = new Uint8Array(4096);
    for (let n = await conn.read(buffer); n !== null; n = await conn.read(buffer)) {
      chunks.push(buffer.slice(0, n));
    }
    const text = new TextDecoder().decode(new Uint8Array(chunks.flatMap((c) => [...c])));
    return text.split("\r\n").filter((line) => !line.startsWith("date: ")).join("\r\n");
  } finally {
    try {
      conn.close();
    } catch {
      // closed by the server already
    }
  }
}

const ANSWER = '{"ok":true,"action":"SET_CONTROL","projectId":"p1","params":{"controlID":"A",' +
  '"value":0.5},"applied":true,"message":"Control A = 0.5: 1 Target(s) written"}';

Deno.test("the action's answer keeps its bytes, with and without an allowed Origin", async () => {
  const svc = await startTestService({ corsOrigins: ["http://console.local"] });
  const control = JSON.stringify({ name: "SET_CONTROL", params: ["A", 0.5] });
  try {
    const plain = await rawPost(svc.base, "/api/v1/action", control);
    const body = plain.slice(plain.indexOf("\r\n\r\n") + 4);
    const projectId = JSON.parse(body).projectId;
    const expected = ANSWER.replace('"p1"', JSON.stringify(projectId));
    assert.equal(
      plain,
      "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\n" +
        `content-length: ${expected.length}\r\nconnection: close\r\n\r\n${expected}`,
    );
    const cors = await rawPost(
      svc.base,
      "/api/v1/action",
      control,
      "origin: http://console.local\r\n",
    );
    assert.equal(
      cors,
      "HTTP/1.1 200 OK\r\naccess-control-allow-origin: http://console.local\r\n" +
        "content-type: application/json\r\nvary: Origin\r\n" +
        `content-length: ${expected.length}\r\nconnection: close\r\n\r\n${expected}`,
    );
    const foreign = await rawPost(
      svc.base,
      "/api/v1/action",
      control,
      "origin: http://evil.example\r\n",
    );
    assert.match(foreign, /^HTTP\/1.1 403 /);
    assert.match(foreign, /ORIGIN_NOT_ALLOWED/);
    assert.doesNotMatch(foreign, /access-control-allow-origin/);
  } finally {
    await svc.stop();
  }
});
