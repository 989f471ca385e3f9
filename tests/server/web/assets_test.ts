import assert from "node:assert/strict";
import { gunzipSync } from "node:zlib";
import { REMOTE_PATHS } from "../../../server/web/mod.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService } from "../../../tools/testing/service.ts";

Deno.test("the remote's page and assets are served from the binary, gzip-compressed, with ETags", async () => {
  const svc = await startTestService();
  try {
    for (const path of REMOTE_PATHS) {
      const plain = await fetch(svc.base + path, { headers: { "accept-encoding": "identity" } });
      const text = await plain.text();
      assert.equal(plain.status, 200, path);
      assert.ok(text.length > 100, path);
      assert.equal(plain.headers.get("content-encoding"), null);
      assert.match(plain.headers.get("content-type")!, path === "/" ? /text\/html/ : /text\//);
      assert.equal(plain.headers.get("cache-control"), "no-cache");
      const etag = plain.headers.get("etag")!;
      assert.match(etag, /^"[0-9a-f]{8}-[0-9a-z]+"$/);
      // The raw bytes on the wire: compressed, and smaller.
      const zipped = await remoteRequestBytes(svc.service.ports.http, path);
      assert.equal(zipped.encoding, "gzip", path);
      assert.ok(zipped.bytes.length < new TextEncoder().encode(text).length, path);
      assert.equal(new TextDecoder().decode(gunzipSync(zipped.bytes)), text);
      const again = await fetch(svc.base + path, { headers: { "if-none-match": etag } });
      assert.equal(again.status, 304, path);
      assert.equal(await again.text(), "");
      const head = await fetch(svc.base + path, { method: "HEAD" });
      assert.equal(head.status, 200);
      await head.body?.cancel();
    }
    const page = await (await fetch(svc.base + "/")).text();
    for (const path of REMOTE_PATHS.slice(1)) {
      if (path !== "/remote/app.js" && path !== "/remote/style.css") {
        assert.ok(page.includes(`modulepreload" href="${path}"`), `${path} is preloaded`);
      }
    }
    const csp = (await fetch(svc.base + "/")).headers.get("content-security-policy")!;
    assert.match(csp, /default-src 'self'/);
    const missing = await svc.get("/remote/nothing.js");
    assert.equal(missing.status, 404);
    assert.equal(missing.body.error.code, "NOT_FOUND");
    // The page needs no token (a phone loads it before pairing); the API still does.
    const remotePage = await remoteRequestBytes(svc.service.ports.http, "/");
    assert.equal(remotePage.status, 200);
    assert.equal((await remoteRequest(svc.service.ports.http, "GET", "/api/v1/info")).status, 401);
    // POST on / is not the page: the API's 404.
    assert.equal((await svc.post("/", {})).status, 404);
  } finally {
    await svc.stop();
  }
});

/** GET from 127.0.0.2 with gzip accepted, the body as sent. */
async function remoteRequestBytes(
  port: number,
  path: string,
): Promise<{ status: number; encoding: string | undefined; bytes: Uint8Array }> {
  const http = await import("node:http");
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: "127.0.0.1",
      port,
      path,
      localAddress: "127.0.0.2",
      headers: { "accept-encoding": "gzip, deflate, br" },
    }, (res) => {
      const chunks: Uint8Array[] = [];
      res.on("data", (c: Uint8Array) => chunks.push(c));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          encoding: res.headers["content-encoding"],
          bytes: new Uint8Array(Buffer.concat(chunks)),
        }));
    });
    req.on("error", reject);
    req.end();
  });
}
