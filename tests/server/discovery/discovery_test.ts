/**
 * Discovery with real peers on the loopback. Every test binds UDP 5353 (shared,
 * SO_REUSEADDR), so they all live in this one file and run one after another.
 * Each service advertises on 127.0.0.1 only (`host`), never another address.
 */
import assert from "node:assert/strict";
import dnssd from "dnssd";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { openEar, queryBytes, recordsOf } from "../../../tools/testing/mdns.ts";
import { hostLabel, startDiscovery } from "../../../server/discovery/mod.ts";
import type { AdvertInterface } from "../../../server/discovery/mod.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { mdnsTest } from "../../../tools/testing/mdns_port.ts";

const HOST = hostLabel();

/** The loopback as an interface to advertise on. */
const LOOPBACK: AdvertInterface = {
  name: "lo",
  address: "127.0.0.1",
  netmask: "255.0.0.0",
  addresses: ["127.0.0.1"],
};

/** A service that advertises (test services do not by default). */
async function advertising(serviceName: string): Promise<TestService> {
  const t = await startTestService({ mdns: true, serviceName });
  await until("the names announced", () => t.service.discovery!.announced);
  return t;
}

mdnsTest(
  "discovery: mdns-scan lists both services under the default names",
  needs("mdns-scan"),
  async () => {
    const scan = new Deno.Command("mdns-scan", { stdout: "piped", stderr: "piped" }).spawn();
    let text = "";
    const decoder = new TextDecoder();
    const reading = (async () => {
      for await (const chunk of scan.stderr) text += decoder.decode(chunk, { stream: true });
    })();
    const drainOut = scan.stdout.cancel();
    let t: TestService | undefined;
    try {
      // mdns-scan prints "Browsing" once its socket is bound; then the service starts.
      await until("mdns-scan browsing", () => text.includes("Browsing"));
      t = await startTestService({ mdns: true });
      await until(
        "mdns-scan lists both services",
        () =>
          text.includes(`+ Cueport - ${HOST}._app._tcp.local`) &&
          text.includes(`+ Cueport HTTP - ${HOST}._http._tcp.local`),
      );
    } finally {
      scan.kill("SIGTERM");
      await scan.status;
      await reading;
      await drainOut;
      await t?.stop();
    }
  },
);

interface Found {
  name: string;
  port: number;
  addresses: string[];
  txt: Record<string, string>;
}

/** A dnssd browser (a second, independent mDNS implementation) on the loopback. */
function browse(type: string) {
  const up = new Map<string, Found>();
  const down = new Set<string>();
  const browser = new dnssd.Browser(dnssd.tcp(type), { interface: "127.0.0.1", resolve: true });
  browser.on("serviceUp", (s: Found) => up.set(s.name, s));
  browser.on("serviceDown", (s: Found) => down.add(s.name));
  browser.on("error", () => {});
  browser.start();
  return { up, down, stop: () => browser.stop() };
}

mdnsTest(
  "discovery: a second library's browser resolves both, with TXT and ports, and sees the goodbyes",
  async () => {
    const t = await advertising("Browsed");
    // The browsers start after the announcements: they are answered their queries.
    const app = browse("app"), http = browse("http"), oscQuery = browse("oscjson");
    let stopped = false;
    try {
      const { ports } = t.service;
      await until(
        "both services resolved",
        () => app.up.has(`Browsed - ${HOST}`) && http.up.has(`Browsed HTTP - ${HOST}`),
      );
      const ws = app.up.get(`Browsed - ${HOST}`)!, web = http.up.get(`Browsed HTTP - ${HOST}`)!;
      await until("OSCQuery resolved", () => oscQuery.up.has(`Browsed OSCQuery - ${HOST}`));
      assert.equal(oscQuery.up.get(`Browsed OSCQuery - ${HOST}`)!.port, ports.oscQuery);
      assert.equal(ws.port, ports.ws);
      assert.equal(web.port, ports.http);
      assert.deepEqual(ws.addresses, ["127.0.0.1"]);
      for (const found of [ws, web]) {
        assert.deepEqual(found.txt, {
          txtvers: "1",
          api: "6.0",
          version: "0.1.0",
          hostname: HOST,
          platform: Deno.build.os,
          wsPort: String(ports.ws),
          httpPort: String(ports.http),
          oscPort: String(ports.osc),
          oscqPort: String(ports.oscQuery),
          wsPath: "/v1",
        });
      }
      // A clean stop: goodbyes (TTL 0) drop both at once, long before their TTLs run out.
      await t.stop();
      stopped = true;
      await until(
        "both services gone",
        () => app.down.has(`Browsed - ${HOST}`) && http.down.has(`Browsed HTTP - ${HOST}`),
      );
    } finally {
      app.stop();
      http.stop();
      oscQuery.stop();
      if (!stopped) await t.stop();
    }
  },
);

mdnsTest(
  "discovery: a clean stop multicasts goodbyes (TTL 0) for every service record",
  async () => {
    const ear = await openEar({ port: 5353, join: true });
    try {
      const t = await advertising("Bye");
      await t.stop();
      const fqdn = `Bye - ${HOST}._app._tcp.local`;
      await until("a goodbye", () =>
        ear.heard.some(({ message }) =>
          message.type === "response" &&
          recordsOf(message).some((r) => r.type === "PTR" && r.data === fqdn && r.ttl === 0)
        ));
      const goodbye = ear.heard.find(({ message }) =>
        recordsOf(message).some((r) => r.type === "PTR" && r.data === fqdn && r.ttl === 0)
      )!;
      const records = recordsOf(goodbye.message);
      assert.ok(records.every((r) => r.ttl === 0), "every record of a goodbye has TTL 0");
      assert.ok(records.some((r) => r.type === "SRV" && r.name === fqdn));
      assert.ok(
        records.some((r) => r.type === "PTR" && r.data === `Bye HTTP - ${HOST}._http._tcp.local`),
      );
    } finally {
      await ear.close();
    }
  },
);

mdnsTest(
  "discovery: a legacy unicast query from another port is answered to that port",
  async () => {
    const t = await advertising("Unicast");
    // Bound after the service: the unicast datagram to 5353 reaches the service's socket.
    const asker = await openEar({ port: 0, join: false });
    try {
      // Sent again each second until answered, as a legacy resolver retries: a unicast datagram
      // to 5353 reaches the socket bound there last, and a service another test starts (they
      // advertise nothing, `--mdns off`, but a program may) would take it while it runs.
      const query = queryBytes(4242, [{ name: "_app._tcp.local", type: "PTR" }]);
      let sentAt = -Infinity;
      await until("a unicast answer", async () => {
        if (asker.heard.length > 0) return true;
        if (performance.now() - sentAt >= 1000) {
          sentAt = performance.now();
          await asker.send(query, 5353, "127.0.0.1");
        }
        return false;
      });
      const { message, from } = asker.heard[0]!;
      assert.equal(from.port, 5353);
      assert.equal(message.type, "response");
      assert.equal(message.id, 4242, "the query's id is kept");
      assert.deepEqual(message.questions.map((q: { name: string }) => q.name), ["_app._tcp.local"]);
      const fqdn = `Unicast - ${HOST}._app._tcp.local`;
      assert.ok(
        message.answers.some((r: { type: string; data: string }) =>
          r.type === "PTR" && r.data === fqdn
        ),
      );
      const srv = recordsOf(message).find((r) => r.type === "SRV" && r.name === fqdn);
      assert.equal(srv?.data.port, t.service.ports.ws);
      assert.ok(recordsOf(message).some((r) => r.type === "A" && r.data === "127.0.0.1"));
      assert.ok(recordsOf(message).every((r) => r.ttl <= 10 && !r.flush), "legacy TTLs are short");
    } finally {
      await asker.close();
      await t.stop();
    }
  },
);

mdnsTest("discovery: a QU query is answered by unicast, a QM query by multicast", async () => {
  const t = await advertising("Qu");
  const fqdn = `Qu - ${HOST}._app._tcp.local`;
  // Answers to the SRV question, not the announcements: those (at 0, 1 and 3 s after the name
  // was won: a busy machine may hold the test past the second) also carry the service's PTR.
  const srvOf = (heard: typeof bystander.heard) =>
    heard.filter(({ message }) =>
      message.type === "response" &&
      recordsOf(message).some((r) => r.type === "SRV" && r.name === fqdn && r.ttl > 0) &&
      !message.answers.some((r: { type: string; data: unknown }) =>
        r.type === "PTR" && r.data === fqdn
      )
    );
  // A bystander in the group hears multicast; the asker, bound last on 5353, gets unicast too.
  const bystander = await openEar({ port: 5353, join: true });
  const asker = await openEar({ port: 5353, join: false });
  try {
    await asker.send(queryBytes(0, [{ name: fqdn, type: "SRV" }], true), 5353, "224.0.0.251");
    await until("the unicast answer", () => srvOf(asker.heard).length > 0);
    // A marker multicast after the answer: the loopback keeps order, so once the bystander has
    // the marker, it would have had a multicast answer too.
    await asker.send(queryBytes(777, [{ name: "marker.local", type: "A" }]), 5353, "224.0.0.251");
    await until("the marker", () => bystander.heard.some(({ message }) => message.id === 777));
    assert.equal(srvOf(bystander.heard).length, 0, "a QU answer is not multicast");
    await asker.send(queryBytes(0, [{ name: fqdn, type: "SRV" }]), 5353, "224.0.0.251");
    await until("the multicast answer", () => srvOf(bystander.heard).length > 0);
  } finally {
    await asker.close();
    await bystander.close();
    await t.stop();
  }
});

mdnsTest("discovery: two instances with the same name end up with two names", async () => {
  const first = await advertising("Twin");
  let second: TestService | undefined;
  try {
    second = await advertising("Twin");
    assert.deepEqual(first.service.discovery!.names, {
      "_app._tcp": `Twin - ${HOST}`,
      "_http._tcp": `Twin HTTP - ${HOST}`,
      "_oscjson._tcp": `Twin OSCQuery - ${HOST}`,
    });
    assert.deepEqual(second.service.discovery!.names, {
      "_app._tcp": `Twin - ${HOST} (2)`,
      "_http._tcp": `Twin HTTP - ${HOST} (2)`,
      "_oscjson._tcp": `Twin OSCQuery - ${HOST} (2)`,
    });
  } finally {
    await second?.stop();
    await first.stop();
  }
});

mdnsTest("discovery: interfaces that come and go are followed", async () => {
  const ear = await openEar({ port: 5353, join: true });
  let interfaces: AdvertInterface[] = [];
  const discovery = await responderOn("Roaming", () => interfaces);
  try {
    // Only what concerns this advertiser counts: other mDNS traffic on the machine is no fault.
    const ours = (heard: typeof ear.heard) =>
      heard.filter(({ message }) => recordsOf(message).some((r) => r.name.includes("Roaming")));
    assert.equal(ours(ear.heard).length, 0, "nothing is sent without an interface");
    interfaces = [LOOPBACK]; // the Wi-Fi comes back
    await discovery.refreshInterfaces();
    const oscQuery = `Roaming OSCQuery - ${HOST}._oscjson._tcp.local`;
    await until(
      "the announcement on the new interface",
      () =>
        ear.heard.some(({ message }) =>
          recordsOf(message).some((r) =>
            r.type === "SRV" && r.name === oscQuery && r.data.port === 2004
          )
        ),
    );
    interfaces = [];
    await discovery.refreshInterfaces();
    const count = ear.heard.length;
    // Its socket is closed: a query on the loopback gets no answer any more.
    await ear.send(queryBytes(0, [{ name: oscQuery, type: "SRV" }]), 5353, "224.0.0.251");
    await ear.send(queryBytes(778, [{ name: "marker.local", type: "A" }]), 5353, "224.0.0.251");
    await until("the marker", () => ear.heard.some(({ message }) => message.id === 778));
    assert.equal(
      ours(ear.heard.slice(count)).filter(({ message }) => message.type === "response").length,
      0,
    );
  } finally {
    await discovery.stop();
    await ear.close();
  }
});

/** A responder of its own (no service) on the interfaces `list` gives, its names won. */
async function responderOn(serviceName: string, list: () => AdvertInterface[]) {
  const discovery = await startDiscovery({
    serviceName,
    ports: { http: 2001, ws: 2002, osc: 2003, oscQuery: 2004 },
    hosts: ["127.0.0.1"],
    apiVersion: "6.0",
    appVersion: "0.1.0",
    wsPath: "/v1",
    log: () => {},
    interfaces: list,
    timings: { interfacePollMs: 60_000 },
  });
  await until("the names won", () => discovery.announced);
  return discovery;
}

mdnsTest(
  "discovery: a unicast query is answered whichever interface's socket receives it (RFC 6762 s.5.5)",
  async () => {
    // Two interfaces on the loopback: the wide one holds the asker's subnet, the narrow one (a
    // single address) does not; a unicast datagram to 5353 reaches one socket only, which one
    // depends on the order they were bound: both orders are tried.
    const wide = { ...LOOPBACK, name: "wide" };
    const narrow = { ...wide, name: "narrow", netmask: "255.255.255.255" };
    for (const order of [[wide, narrow], [narrow, wide]]) {
      const discovery = await responderOn("Routed", () => order);
      const askers = await Promise.all(
        Array.from({ length: 4 }, () => openEar({ port: 0, join: false, address: "127.0.0.2" })),
      );
      try {
        for (const [i, asker] of askers.entries()) {
          const query = queryBytes(100 + i, [{ name: "_app._tcp.local", type: "PTR" }]);
          await asker.send(query, 5353, "127.0.0.1");
        }
        await until(
          `every asker answered (${order[0]!.name} first)`,
          () => askers.every((a) => a.heard.length > 0),
          5000,
        );
        for (const asker of askers) {
          assert.equal(asker.heard.length, 1, "answered once, not once per socket");
          assert.ok(
            asker.heard[0]!.message.answers.some((r: { data: string }) =>
              r.data === `Routed - ${HOST}._app._tcp.local`
            ),
          );
        }
      } finally {
        await Promise.all(askers.map((a) => a.close()));
        await discovery.stop();
      }
    }
  },
);

mdnsTest(
  "discovery: unicast answers are limited per source; another source is still answered",
  async () => {
    const discovery = await responderOn("Limited", () => [LOOPBACK]);
    const flooder = await openEar({ port: 0, join: false, address: "127.0.0.3" });
    const other = await openEar({ port: 0, join: false, address: "127.0.0.4" });
    try {
      const query = (id: number) => queryBytes(id, [{ name: "_app._tcp.local", type: "PTR" }]);
      for (let i = 0; i < 200; i++) await flooder.send(query(i), 5353, "127.0.0.1");
      await other.send(query(9999), 5353, "127.0.0.1");
      await until("the other source answered", () => other.heard.length > 0);
      // The flood's answers stay within the burst (10) and what the rate refills meanwhile.
      assert.ok(flooder.heard.length >= 1 && flooder.heard.length <= 20, `${flooder.heard.length}`);
    } finally {
      await flooder.close();
      await other.close();
      await discovery.stop();
    }
  },
);
