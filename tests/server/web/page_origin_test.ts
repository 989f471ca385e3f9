import assert from "node:assert/strict";
import { isOwnPageOrigin } from "../../../server/auth/hosts.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { RawSocket } from "../../../tools/testing/ws_client.ts";

const HOSTS = new Set(["localhost", "127.0.0.1", "::1", "show-pc", "show-pc.local"]);

Deno.test("isOwnPageOrigin() admits the HTTP port by any name of this machine, nothing else", () => {
  for (
    const origin of ["http://localhost:17736", "http://SHOW-PC.local:17736", "http://[::1]:17736"]
  ) {
    assert.equal(isOwnPageOrigin(origin, HOSTS, 17736), true, origin);
  }
  for (
    const origin of [
      "http://localhost:17734", // another port of this machine
      "http://evil.example:17736", // a rebinding site keeps its own name
      "https://localhost:17736",
      "http://localhost", // port 80
      "null",
      "not a url",
    ]
  ) {
    assert.equal(isOwnPageOrigin(origin, HOSTS, 17736), false, origin);
  }
  assert.equal(isOwnPageOrigin("http://localhost", HOSTS, 80), true);
});

Deno.test("the page's own origin may call the API and open the WebSocket; others may not (default corsOrigins)", async () => {
  const svc = await startTestService({ allowedHosts: ["show-pc.test"] });
  const http = svc.service.ports.http;
  const ws = svc.service.ports.ws;
  const local = { localAddress: "127.0.0.1" };
  try {
    for (const name of ["127.0.0.1", "localhost", "show-pc.test"]) {
      const own = `http://${name}:${http}`;
      const action = await remoteRequest(http, "POST", "/api/v1/action", {
        ...local,
        body: { name: "MUTE_TOGGLE" },
        headers: { origin: own, host: `${name}:${http}` },
      });
      assert.equal(action.status, 200, own);
      const socket = await RawSocket.open("127.0.0.1", ws, {
        headers: { origin: own, host: `${name}:${ws}` },
      });
      assert.equal(socket.status, 101, own);
      socket.destroy();
    }
    for (const origin of [`http://127.0.0.1:${ws}`, `http://evil.example:${http}`]) {
      const action = await remoteRequest(http, "POST", "/api/v1/action", {
        ...local,
        body: { name: "MUTE_TOGGLE" },
        headers: { origin },
      });
      assert.equal(action.status, 403, origin);
      assert.equal(action.body.error.code, "ORIGIN_NOT_ALLOWED");
      const socket = await RawSocket.open("127.0.0.1", ws, { headers: { origin } });
      assert.equal(socket.status, 403, origin);
      socket.destroy();
    }
    // Three toggles ran (the own origin's), no more: back to muted.
    assert.equal((await svc.get("/api/v1/app-state")).body.muted, true);
  } finally {
    await svc.stop();
  }
});
