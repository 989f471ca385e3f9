import assert from "node:assert/strict";
import net from "node:net";
import { startServiceProcess } from "../../../tools/testing/service_process.ts";

/** Opens `count` connections from `localAddress`, each sending half a request. */
async function idleConnections(port: number, count: number): Promise<net.Socket[]> {
  const sockets: net.Socket[] = [];
  for (let i = 0; i < count; i++) {
    const sock = net.connect({ host: "127.0.0.1", port, localAddress: "127.0.0.2" });
    sock.on("error", () => {});
    await new Promise<void>((resolve) => {
      sock.once("connect", () => resolve());
      sock.once("error", () => resolve());
      sock.once("close", () => resolve());
    });
    sock.write("GET /api/v1/app-state HTTP/1.1\r\nHost: x\r\n");
    sockets.push(sock);
  }
  return sockets;
}

Deno.test("the service under a 256 open-files limit survives 400 idle remote connections and serves local clients", async () => {
  const service = await startServiceProcess(
    ["--max-connections", "100000", "--max-connections-per-address", "100000"],
    { openFilesLimit: 256 },
  );
  let sockets: net.Socket[] = [];
  try {
    sockets = await idleConnections(service.ready.ports.http, 400);
    const more = await idleConnections(service.ready.ports.ws, 200);
    sockets.push(...more);
    for (let i = 0; i < 5; i++) {
      const health = await service.get("/health");
      assert.equal(health.status, 200);
      assert.equal(health.body.ready, true);
    }
    const app = await service.get("/api/v1/app-state");
    assert.equal(app.status, 200);
    assert.match(
      service.stderr(),
      /out of open files at \d+ connections; remote clients are limited to/,
    );
    assert.doesNotMatch(service.stderr(), /panicked|Uncaught/);
  } finally {
    sockets.forEach((s) => s.destroy());
    assert.equal(await service.stop(), 0);
  }
});
