import assert from "node:assert/strict";
import net from "node:net";
import { startTestService } from "../../../tools/testing/service.ts";

/**
 * Sends `head` then `chunks` from 127.0.0.2 without ending the body; resolves with the answer,
 * rejects when none comes within 5 s (a service that waits for the whole body).
 */
function sendUnfinished(port: number, head: string, chunks: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const sock = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.2" });
    const timer = setTimeout(() => {
      sock.destroy();
      reject(new Error("No answer within 5 s"));
    }, 5000);
    sock.on("close", () => clearTimeout(timer));
    let text = "";
    sock.on("data", (d) => {
      text += d.toString();
      if (text.includes("\r\n\r\n") && text.includes("}}")) {
        sock.destroy();
        resolve(text);
      }
    });
    sock.on("error", reject);
    sock.on("close", () => resolve(text));
    sock.on("connect", () => {
      sock.write(head);
      for (const chunk of chunks) sock.write(chunk);
    });
  });
}

const chunk = (text: string) => `${text.length.toString(16)}\r\n${text}\r\n`;

Deno.test("POST /api/v1/pair from a remote client: a chunked body is refused 413 as soon as it passes the unauthenticated limit", async () => {
  const service = await startTestService({ maxUnauthenticatedBodyBytes: 1024 });
  try {
    const port = service.service.ports.http;
    const head = "POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
    // 2 KiB sent, the body never ends: the answer comes anyway.
    const answer = await sendUnfinished(port, head, [chunk("x".repeat(2048))]);
    assert.match(answer, /^HTTP\/1.1 413/);
    assert.match(answer, /connection: close/i);
    assert.match(answer, /"code":"PAYLOAD_TOO_LARGE"/);
  } finally {
    await service.stop();
  }
});

Deno.test("POST /api/v1/pair from a remote client: a declared 512 MiB body is refused 413 before any of it is read", async () => {
  const service = await startTestService();
  try {
    const head = "POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      `content-type: application/json\r\ncontent-length: ${512 * 1024 * 1024}\r\n\r\n`;
    const answer = await sendUnfinished(service.service.ports.http, head, []);
    assert.match(answer, /^HTTP\/1.1 413/);
    assert.match(answer, /"limit":16384/);
  } finally {
    await service.stop();
  }
});

Deno.test("a valid pairing body from a remote client still fits the unauthenticated limit", async () => {
  const service = await startTestService();
  try {
    const head = "POST /api/v1/pair HTTP/1.1\r\nHost: 127.0.0.1\r\n" +
      "content-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n";
    const body = JSON.stringify({ code: "000000", deviceName: "Phone" });
    const answer = await sendUnfinished(service.service.ports.http, head, [
      chunk(body),
      "0\r\n\r\n",
    ]);
    // A wrong code, judged on its merits: the body was read.
    assert.match(answer, /^HTTP\/1.1 (400|401)/);
    assert.doesNotMatch(answer, /PAYLOAD_TOO_LARGE/);
  } finally {
    await service.stop();
  }
});

Deno.test("every JSON route has a body limit (maxBodyBytes), for local clients too", async () => {
  const service = await startTestService({ maxBodyBytes: 1000 });
  try {
    const big = {
      name: "SET_CONTROL",
      params: { control: "A", value: 0.5, pad: "x".repeat(2000) },
    };
    const answer = await service.post("/api/v1/action", big);
    assert.equal(answer.status, 413);
    assert.equal(answer.body.error.code, "PAYLOAD_TOO_LARGE");
    const chunked = await fetch(`${service.base}/api/v1/action`, {
      method: "POST",
      body: new Blob([JSON.stringify(big)]).stream(),
    });
    assert.equal(chunked.status, 413);
    await chunked.body?.cancel();
    assert.equal((await service.post("/api/v1/action", { name: "PLAY_IN" })).status, 200);
  } finally {
    await service.stop();
  }
});
