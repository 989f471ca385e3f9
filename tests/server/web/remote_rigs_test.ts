/**
 * The web remote in a rig group (docs/remote.md, "Rig groups"), in headless Chromium: two rigs on
 * one real etcd member, each bound on the loopback and on this machine's LAN address (the address
 * its group record names). The remote, paired once on the main rig, says which rig it is on; the
 * main rig stopped, the page moves to the backup rig's remote with its token (the group shares
 * its pairings), goes live there and says it moved.
 */
import assert from "node:assert/strict";
import { launchBrowser, newPhone } from "../../../tools/testing/browser.ts";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { reachableAddresses } from "../../../server/rigs/mod.ts";

/** This machine's first LAN IPv4 address, or null (then the test is skipped with one line). */
function lanAddress(): string | null {
  const v4 = Deno.networkInterfaces().filter((i) => i.family === "IPv4").map((i) => i.address);
  return reachableAddresses(v4)[0] ?? null;
}

const LAN = lanAddress();

Deno.test({
  ...needs("chromium", "etcd"),
  ...(LAN === null ? { ignore: true } : {}),
  sanitizeResources: false,
  sanitizeOps: false,
  name: "web remote in a rig group: its rig stopped, it carries on on the other rig and says so",
  fn: async () => {
    const etcd = await startLoopbackEtcd();
    const rig = (rigName: string) =>
      startTestService({
        ...{ group: "show", groupEndpoints: [etcd.url], rigName, groupClockPort: 0 },
        host: ["127.0.0.1", LAN!],
      });
    const main = await rig("main");
    const backup = await rig("backup");
    const { browser, close } = await launchBrowser();
    let mainStopped = false;
    try {
      const both = async (svc: TestService) =>
        (await svc.get("/api/v1/group")).body.members?.length === 2;
      await until("each rig sees the other", async () => await both(main) && await both(backup));
      const phone = await newPhone(browser);
      // The phone pairs once, with the main rig (its page, its code): the group shares the pairing.
      const otp = (await main.post("/api/v1/pair/code", {})).body.otp;
      const backupPage = `http://${LAN}:${backup.service.ports.http}/`;
      await phone.goto(`http://${LAN}:${main.service.ports.http}/#otp=${otp}`);
      const badge = await phone.waitForSelector('[data-conn="live"] [data-rig="main"]');
      assert.equal(await badge!.evaluate((e) => e.textContent), ", on rig main");
      const token = await phone.evaluate(() => localStorage.getItem("cueport.remote.token"));
      await main.stop();
      mainStopped = true;
      const moved = await phone.waitForSelector('[data-conn="live"] [data-rig="backup"]');
      assert.equal(
        await moved!.evaluate((e) => e.textContent),
        ", on rig backup (moved from main)",
      );
      assert.equal(phone.url(), backupPage, "on the backup rig's page, the fragment read and gone");
      assert.equal(
        await phone.evaluate(() => localStorage.getItem("cueport.remote.token")),
        token,
        "the token paired on main, taken along and accepted by backup",
      );
    } finally {
      await close();
      if (!mainStopped) await main.stop();
      await backup.stop();
      await etcd.stop();
    }
  },
});
