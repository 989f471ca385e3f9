import assert from "node:assert/strict";
import http from "node:http";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  // deno-lint-ignore no-explicit-any
  error: any;
}

/** A GET from 127.0.0.2 (a remote device); the body is read, and parsed when it is JSON. */
function remoteGet(
  port: number,
  path: string,
  headers: Record<string, string>,
  localAddress = "127.0.0.2",
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, path, localAddress, headers },
      (res) => {
        const chunks: Uint8Array[] = [];
        res.on("data", (c) => chunks.push(c));
        res.on("end", () => {
          const isJson = (res.headers["content-type"] ?? "").includes("json");
          const text = new TextDecoder().decode(Buffer.concat(chunks));
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            error: isJson ? JSON.parse(text).error : null,
          });
        });
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** Pairs a view-only device from 127.0.0.2: its Authorization header. */
async function pairViewer(svc: TestService): Promise<Record<string, string>> {
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const token = await new Promise<string>((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port: svc.service.ports.http,
      method: "POST",
      path: "/api/v1/pair",
      localAddress: "127.0.0.2",
      headers: { "content-type": "application/json" },
    }, (res) => {
      let text = "";
      res.on("data", (c) => (text += c));
      res.on("end", () => resolve(JSON.parse(text).token));
    });
    req.on("error", reject);
    req.end(JSON.stringify({ otp, scopes: ["view"] }));
  });
  return { authorization: `Bearer ${token}` };
}

Deno.test("thumbnails: a remote client gets few uncached variants of one file made at once (429), a local one is not limited", async () => {
  const svc = await startTestService({}, { demo: true });
  const port = svc.service.ports.http;
  try {
    const viewer = await pairViewer(svc);
    const answers = await Promise.all(
      Array.from(
        { length: 12 },
        (_, i) => remoteGet(port, `/thumbnails/demo/file-aurora.jpg?quality=${i + 1}`, viewer),
      ),
    );
    const made = answers.filter((a) => a.status === 200).length;
    const limited = answers.filter((a) => a.status === 429);
    assert.ok(made >= 1, `statuses: ${answers.map((a) => a.status).join(" ")}`);
    assert.ok(limited.length >= 8, `statuses: ${answers.map((a) => a.status).join(" ")}`);
    for (const a of limited) {
      assert.equal(a.error.code, "RATE_LIMITED");
      assert.match(a.error.message, /^Too many variants of file "demo\/file-aurora"/);
      assert.ok(a.error.details.retryAfterSeconds >= 1);
      assert.equal(a.headers["retry-after"], String(a.error.details.retryAfterSeconds));
    }
    // Asked again one at a time, each is made; a variant made already is answered from memory.
    const again = await remoteGet(port, "/thumbnails/demo/file-aurora.jpg?quality=1", viewer);
    assert.equal(again.status, 200);
    const local = await Promise.all(
      Array.from(
        { length: 12 },
        (_, i) =>
          fetch(`${svc.base}/thumbnails/demo/file-strobe.jpg?size=32&quality=${i + 1}`).then(
            async (r) => (await r.arrayBuffer(), r.status),
          ),
      ),
    );
    assert.deepEqual(local, new Array(12).fill(200));
  } finally {
    await svc.stop();
  }
});

Deno.test("thumbnails: a paired device's variants count together from whichever addresses it asks", async () => {
  const svc = await startTestService({}, { demo: true });
  const port = svc.service.ports.http;
  try {
    const viewer = await pairViewer(svc);
    // Two from each of six addresses: within each address's share, not within the device's.
    const answers = await Promise.all(
      Array.from({ length: 12 }, (_, i) =>
        remoteGet(
          port,
          `/thumbnails/demo/file-aurora.jpg?quality=${i + 1}`,
          viewer,
          `127.0.0.${2 + (i % 6)}`,
        )),
    );
    const statuses = answers.map((a) => a.status).join(" ");
    assert.ok(answers.filter((a) => a.status === 429).length >= 8, `statuses: ${statuses}`);
  } finally {
    await svc.stop();
  }
});
