/**
 * The Companion module in a rig group (docs/companion.md, "Rig groups"): configured with two rigs,
 * it connects to the first and says which rig it is on; when that rig stops (its socket closed and
 * a reconnect refused) it moves to the other, and its status says so. The two services are rigs of
 * a group whose etcd does not answer (the group's status is all the module reads of it).
 *
 * It pairs once: paired with main, it goes live on backup with the same token (the group shares
 * pairings through one real etcd member), after a rig outside the group refused that token.
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { ModuleHost } from "../../../integrations/companion/deno/host.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { until } from "../../../tools/testing/until.ts";
import { proxiesFor, PROXY_HOST } from "./_proxy.ts";

/** A closed port: an etcd endpoint that refuses at once. */
function refusingEndpoint(): string {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  listener.close();
  return `http://127.0.0.1:${(listener.addr as Deno.NetAddr).port}`;
}

Deno.test(
  "the module knows every rig: its rig stopped, it carries on on the next",
  needs("node"),
  async () => {
    const group = { group: "show", groupEndpoints: [refusingEndpoint()], groupClockPort: 0 };
    const main = await startTestService({ ...group, rigName: "main" });
    const backup = await startTestService({ ...group, rigName: "backup" });
    const host = await ModuleHost.start();
    let mainStopped = false;
    try {
      const { ws, http } = backup.service.ports;
      await host.init({
        bonjour: null,
        host: "127.0.0.1",
        httpPort: main.service.ports.http,
        wsPort: main.service.ports.ws,
        pairingCode: "",
        deviceName: "Companion test",
        rigs: `127.0.0.1:${ws}:${http}`,
        // A call waits 5 link checks (7.5 s): at 200 ms a call to a rig starved on a busy machine timed
        // out as a dead link (the lone rig before its refusal came).
        linkCheckMs: 1500,
      });
      const on = (rig: string) => () =>
        host.status.status === "ok" && host.status.message?.includes(`to rig ${rig} of group show`);
      await host.until(on("main"), "connected to main");
      assert.match(
        host.status.message!,
        new RegExp(`\\(127\\.0\\.0\\.1:${main.service.ports.ws}\\)`),
      );
      await main.stop();
      mainStopped = true;
      await host.until(on("backup"), "moved to backup");
      assert.match(host.status.message!, new RegExp(`\\(127\\.0\\.0\\.1:${ws}\\)$`));
      assert.ok(host.logs.some((l) => /does not answer: moving to rig 127\.0\.0\.1:/.test(l)));
    } finally {
      await host.stop();
      if (!mainStopped) await main.stop();
      await backup.stop();
    }
  },
);

Deno.test({
  ...needs("node", "etcd"),
  sanitizeResources: false,
  sanitizeOps: false,
  name:
    "the module pairs once: the token paired with main serves on backup; a rig that refuses it says so",
  fn: async () => {
    const etcd = await startLoopbackEtcd();
    const allowedHosts = [PROXY_HOST];
    const group = { group: "show", groupEndpoints: [etcd.url], groupClockPort: 0, allowedHosts };
    const main = await startTestService({ ...group, rigName: "main" });
    const backup = await startTestService({ ...group, rigName: "backup" });
    const lone = await startTestService({ allowedHosts });
    // Each reached through a proxy: the module is a device on the network to every rig.
    const toMain = await proxiesFor(main.service.ports);
    const toBackup = await proxiesFor(backup.service.ports);
    const toLone = await proxiesFor(lone.service.ports);
    const host = await ModuleHost.start();
    let mainStopped = false;
    try {
      const otp = (await main.post("/api/v1/pair/code", {})).body.otp;
      const paired = await remoteRequest(main.service.ports.http, "POST", "/api/v1/pair", {
        body: { otp, deviceName: "Stage Deck" },
      });
      const { token } = paired.body;
      await until(
        "backup accepts the token main issued",
        async () =>
          (await remoteRequest(backup.service.ports.http, "GET", "/api/v1/group", {
            headers: { authorization: `Bearer ${token}` },
          })).status === 200,
      );
      const at = (p: { ws: { port: number }; http: { port: number } }) =>
        `${PROXY_HOST}:${p.ws.port}:${p.http.port}`;
      await host.init({
        bonjour: null,
        host: PROXY_HOST,
        httpPort: toMain.http.port,
        wsPort: toMain.ws.port,
        pairingCode: "",
        deviceName: "Stage Deck",
        rigs: `${at(toLone)},${at(toBackup)}`,
        // A call waits 5 link checks (7.5 s): at 200 ms a call to a rig starved on a busy machine timed
        // out as a dead link (the lone rig before its refusal came).
        linkCheckMs: 1500,
      }, { token });
      const on = (rig: string) => () =>
        host.status.status === "ok" && host.status.message?.includes(`to rig ${rig} of group show`);
      await host.until(on("main"), "connected to main");
      await main.stop();
      mainStopped = true;
      await host.until(on("backup"), "live on backup with the token paired with main");
      const refused =
        `Rig ${PROXY_HOST}:${toLone.ws.port} refused the token paired with another rig`;
      assert.ok(host.logs.some((l) => l.includes(refused)), "the lone rig refused it first");
      assert.ok(
        host.savedConfigs.every((c) =>
          !c.secrets?.rigTokens || !Object.keys(c.secrets.rigTokens).length
        ),
        "no pairing with backup",
      );
    } finally {
      await host.stop();
      await Promise.all([toMain, toBackup, toLone].map((p) => p.close()));
      if (!mainStopped) await main.stop();
      await backup.stop();
      await lone.stop();
      await etcd.stop();
    }
  },
});
