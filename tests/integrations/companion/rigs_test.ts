/**
 * The Companion module in a rig group (docs/companion.md, "Rig groups"): configured with two rigs,
 * it connects to the first and says which rig it is on; when that rig stops (its socket closed and
 * a reconnect refused) it moves to the other, and its status says so. The two services are rigs of
 * a group whose etcd does not answer (the group's status is all the module reads of it).
 */
import assert from "node:assert/strict";
import { startTestService } from "../../_helpers/service.ts";
import { ModuleHost } from "../../../integrations/companion/deno/host.ts";
import { needs } from "../../_helpers/peers.ts";

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
        linkCheckMs: 200,
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
