import assert from "node:assert/strict";
import { hostOf, isMachineHost } from "../../../server/auth/hosts.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService } from "../../../tools/testing/service.ts";
import { RawSocket } from "../../../tools/testing/ws_client.ts";

Deno.test("hostOf() strips ports and IPv6 brackets", () => {
  assert.equal(hostOf("Show.local:17736"), "show.local");
  assert.equal(hostOf("[::1]:17736"), "::1");
  assert.equal(hostOf("127.0.0.1"), "127.0.0.1");
  assert.equal(hostOf("fe80::1"), "fe80::1");
});

Deno.test("isMachineHost() gives each set's own verdict, whatever the last verdict was", () => {
  const mine = new Set(["localhost", "show.local"]);
  const other = new Set(["studio.local"]);
  const asked: [string, ReadonlySet<string>, boolean][] = [
    ["localhost:17736", mine, true],
    ["localhost:17736", mine, true],
    ["localhost:17736", other, false],
    ["evil.example", mine, false],
    ["localhost:17736", mine, true],
    ["Studio.local", other, true],
    ["Studio.local", mine, false],
    ["show.local", mine, true],
  ];
  for (const [header, hosts, verdict] of asked) {
    assert.equal(isMachineHost(header, hosts), verdict, `${header} in ${[...hosts]}`);
  }
});

Deno.test("a foreign Host (DNS rebinding) and a foreign Origin are refused on HTTP and WebSocket", async () => {
  const svc = await startTestService({
    corsOrigins: ["http://console.local"],
    allowedHosts: ["stage-pc"],
  });
  const http = svc.service.ports.http;
  const ws = svc.service.ports.ws;
  const local = { localAddress: "127.0.0.1" };
  try {
    const rebinding = await remoteRequest(http, "GET", "/api/v1/projects", {
      ...local,
      headers: { host: "evil.example:17736" },
    });
    assert.equal(rebinding.status, 403);
    assert.equal(rebinding.body.error.code, "HOST_NOT_ALLOWED");
    for (const host of ["localhost:17736", "127.0.0.1", "stage-pc:80", "[::1]:17736"]) {
      const ok = await remoteRequest(http, "GET", "/api/v1/projects", {
        ...local,
        headers: { host },
      });
      assert.equal(ok.status, 200, host);
    }
    const csrf = await remoteRequest(http, "POST", "/api/v1/action", {
      ...local,
      body: { name: "MUTE_TOGGLE" },
      headers: { origin: "http://evil.example" },
    });
    assert.equal(csrf.status, 403);
    assert.equal(csrf.body.error.code, "ORIGIN_NOT_ALLOWED");
    assert.equal(
      (await svc.get("/api/v1/app-state")).body.muted,
      false,
      "the cross-site action did not run",
    );
    const allowed = await remoteRequest(http, "POST", "/api/v1/action", {
      ...local,
      body: { name: "MUTE_TOGGLE" },
      headers: { origin: "http://console.local" },
    });
    assert.equal(allowed.status, 200);

    const foreignWs = await RawSocket.open("127.0.0.1", ws, {
      headers: { origin: "http://evil.example" },
    });
    assert.equal(foreignWs.status, 403);
    foreignWs.destroy();
    const rebindWs = await RawSocket.open("127.0.0.1", ws, { headers: { host: "evil.example" } });
    assert.equal(rebindWs.status, 403);
    rebindWs.destroy();
    const goodWs = await RawSocket.open("127.0.0.1", ws, {
      headers: { origin: "http://console.local" },
    });
    assert.equal(goodWs.status, 101);
    goodWs.destroy();
  } finally {
    await svc.stop();
  }
});
