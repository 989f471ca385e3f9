/**
 * Discovery as Companion offers it: the manifest's bonjour query (`_app._tcp`, TXT `api=6.0`) run
 * by an mDNS browser against a service advertising on the loopback, the found `address:port` put
 * in the module's `bonjour` config field as Companion does, and the module connects to it. It binds
 * UDP 5353 like tests/server/discovery/, one file at a time.
 */
import assert from "node:assert/strict";
import dnssd from "dnssd";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { mdnsTest } from "../../../tools/testing/mdns_port.ts";
import { COMPANION_DIR, ModuleHost } from "../../../integrations/companion/deno/host.ts";

interface Found {
  name: string;
  port: number;
  addresses: string[];
  txt: Record<string, string>;
}

mdnsTest(
  "the manifest's bonjour query finds the service, and the module connects to what it found",
  needs("node"),
  async () => {
    const manifest = JSON.parse(await Deno.readTextFile(`${COMPANION_DIR}companion/manifest.json`));
    const query = manifest.bonjourQueries.bonjour;
    assert.equal(query.type, "app");
    const svc = await startTestService({ mdns: true, serviceName: "Companion Discovery" });
    const found: Found[] = [];
    const browser = new dnssd.Browser(
      query.protocol === "tcp" ? dnssd.tcp(query.type) : dnssd.udp(query.type),
      { interface: "127.0.0.1", resolve: true },
    );
    browser.on("serviceUp", (s: Found) => found.push(s));
    browser.on("error", () => {});
    browser.start();
    const host = await ModuleHost.start();
    try {
      const matches = (s: Found) =>
        Object.entries(query.txt as Record<string, string>).every(([k, v]) => s.txt?.[k] === v);
      // Every Cueport on the network answers: the user picks this one by its name.
      const ours = (s: Found) => s.name.startsWith("Companion Discovery - ") && matches(s);
      await until("the service found by the manifest's query", () => found.some(ours));
      const service = found.find(ours)!;
      assert.equal(service.port, svc.service.ports.ws);
      // What Companion stores in a bonjour-device field: the address and port it resolved.
      const picked = `${service.addresses[0]}:${service.port}`;
      await host.init({
        bonjour: picked,
        host: "",
        httpPort: svc.service.ports.http,
        wsPort: 1,
        pairingCode: "",
        deviceName: "Companion discovery",
      });
      await host.until(
        () => host.status.status === "ok",
        "the connection to the discovered service",
      );
      assert.ok(host.variables.get("project_name"));
    } finally {
      browser.stop();
      await host.stop();
      await svc.stop();
    }
  },
);
