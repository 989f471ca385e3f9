import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";

Deno.test("the default hosts serve IPv6 and IPv4 on one port: [::1] is a local client, 127.0.0.2 a remote one", async () => {
  const service = await startTestService({ host: ["::", "0.0.0.0"] });
  try {
    const { http, ws } = service.service.ports;
    const v6 = await fetch(`http://[::1]:${http}/api/v1/app-state`);
    assert.equal(v6.status, 200); // local: no token needed
    await v6.body?.cancel();
    const v4 = await fetch(`http://127.0.0.1:${http}/api/v1/app-state`);
    assert.equal(v4.status, 200);
    await v4.body?.cancel();
    const remote = await remoteRequest(http, "GET", "/api/v1/app-state");
    assert.equal(remote.status, 401);

    const socket = new WebSocket(`ws://[::1]:${ws}/v1`);
    const greeting = await new Promise<string>((resolve, reject) => {
      socket.onmessage = (event) => resolve(String(event.data));
      socket.onerror = () => reject(new Error("WebSocket over IPv6 failed"));
    });
    assert.match(greeting, /"event":"connected"/);
    socket.close();
    await new Promise((resolve) => (socket.onclose = resolve));
  } finally {
    await service.stop();
  }
});
