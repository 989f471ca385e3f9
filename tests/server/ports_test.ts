import assert from "node:assert/strict";
import { runMain, startServiceProcess } from "../../tools/testing/service_process.ts";

/** A temp data dir, removed after `fn`. */
async function withDataDir<T>(fn: (dir: string) => Promise<T>): Promise<T> {
  const dir = await Deno.makeTempDir({ prefix: "cueport-ports-" });
  try {
    return await fn(dir);
  } finally {
    await Deno.remove(dir, { recursive: true }).catch(() => {});
  }
}

Deno.test("a second instance with the default ports is one line naming the setting", async () => {
  // The first instance with every default port (on loopback, mDNS off). A machine where another
  // program holds one of them already is the same case for the second instance.
  const first = await startServiceProcess([
    ...["--http-port", "17736", "--ws-port", "17734", "--osc-port", "17735"],
    ...["--osc-query-port", "17737", "--legacy-http-port", "51736", "--legacy-ws-port", "51734"],
  ]).catch(() => null);
  try {
    await withDataDir(async (dir) => {
      const second = await runMain(["--data-dir", dir, "--host", "127.0.0.1", "--mdns", "off"]);
      assert.equal(second.code, 1);
      const line = first
        ? "The HTTP port 17736 is in use by another program: choose another with --http-port, " +
          'CUEPORT_HTTP_PORT or "httpPort" in the config file'
        : /^The (HTTP|WebSocket|OSC) port \d+ is in use by another program: choose another with /;
      if (typeof line === "string") assert.equal(second.stderr.trim(), `cueport: ${line}`);
      else {
        assert.equal(second.stderr.trim().split("\n").length, 1, second.stderr);
        assert.match(second.stderr.trim().slice("cueport: ".length), line);
      }
    });
    if (first) assert.equal((await first.get("/health")).status, 200, "the first keeps serving");
  } finally {
    if (first) assert.equal(await first.stop(), 0);
  }
});

Deno.test("a taken OSC port is one line naming the setting, not a stack trace", async () => {
  const holder = Deno.listenDatagram({ transport: "udp", hostname: "127.0.0.1", port: 0 });
  try {
    const port = String((holder.addr as Deno.NetAddr).port);
    await withDataDir(async (dir) => {
      const run = await runMain([
        ...["--data-dir", dir, "--host", "127.0.0.1", "--mdns", "off"],
        ...["--http-port", "0", "--ws-port", "0", "--osc-query-port", "0", "--osc-port", port],
        ...["--legacy-http-port", "off", "--legacy-ws-port", "off"],
      ]);
      assert.equal(run.code, 1);
      assert.equal(
        run.stderr.trim(),
        `cueport: The OSC port ${port} is in use by another program: choose another with --osc-port, CUEPORT_OSC_PORT or "oscPort" in the config file`,
      );
    });
  } finally {
    holder.close();
  }
});

Deno.test("taken OSCQuery and 5.0.0 ports are one warning each; the service starts without them", async () => {
  const tcp = [0, 1, 2].map(() => Deno.listen({ hostname: "127.0.0.1", port: 0 }));
  const [query, legacyHttp, legacyWs] = tcp.map((l) => String((l.addr as Deno.NetAddr).port));
  try {
    const service = await startServiceProcess([
      ...["--osc-query-port", query!, "--legacy-http-port", legacyHttp!],
      ...["--legacy-ws-port", legacyWs!],
    ]);
    try {
      const ports = service.ready.ports as Record<string, unknown>;
      assert.equal(ports.oscQuery, undefined);
      assert.equal(ports.legacyHttp, null);
      assert.equal(ports.legacyWs, null);
      assert.equal((await service.get("/health")).status, 200);
      const warnings = service.stderr().split("\n").filter((l) => l.includes(" is off; "));
      assert.deepEqual(warnings.map((l) => l.replace(/^\S+ WARN\s+/, "")), [
        `The OSCQuery port ${query} is in use by another program: OSCQuery is off; choose another with --osc-query-port, CUEPORT_OSC_QUERY_PORT or "oscQueryPort" in the config file`,
        `The 5.0.0 HTTP port ${legacyHttp} is in use by another program: 5.0.0 HTTP is off; choose another with --legacy-http-port, CUEPORT_LEGACY_HTTP_PORT or "legacyHttpPort" in the config file`,
        `The 5.0.0 WebSocket port ${legacyWs} is in use by another program: 5.0.0 WebSocket is off; choose another with --legacy-ws-port, CUEPORT_LEGACY_WS_PORT or "legacyWsPort" in the config file`,
      ]);
    } finally {
      assert.equal(await service.stop(), 0);
    }
  } finally {
    for (const l of tcp) l.close();
  }
});
