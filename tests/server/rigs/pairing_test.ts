/**
 * Pair once for the whole group (server/rigs/pairing.ts): two rigs on one real etcd member on the
 * loopback. A device paired with a code on rig main is accepted by rig backup (which never signed
 * its token) and listed there with the rig that paired it; etcd holds its record with the token's
 * hash, never the token; revoked on backup, it is refused by main. A device paired on backup,
 * revoked on main while backup is stopped, is refused by backup once it starts again.
 */
import assert from "node:assert/strict";
import { startLoopbackEtcd } from "../../../tools/testing/etcd_cluster.ts";
import { LOOPBACK_ETCD_TEST } from "../../../tools/testing/loopback_rigs.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { devicesPrefix, GatewayEtcd } from "../../../server/rigs/mod.ts";

/** Pairs a remote device with `svc`: its token and id. */
async function pairWith(
  svc: TestService,
  name: string,
): Promise<{ token: string; deviceId: string }> {
  const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
  const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
    body: { otp, deviceName: name },
  });
  assert.equal(paired.status, 200, JSON.stringify(paired.body));
  return paired.body;
}

/** The status of `GET /api/v1/group` on `svc` from a remote device with `token`. */
async function statusWith(svc: TestService, token: string): Promise<number> {
  const answer = await remoteRequest(svc.service.ports.http, "GET", "/api/v1/group", {
    headers: { authorization: `Bearer ${token}` },
  });
  return answer.status;
}

Deno.test({
  ...LOOPBACK_ETCD_TEST,
  name:
    "rigs: a device paired on one rig is accepted by the other; revoked on either, refused by both",
  fn: async () => {
    const etcd = await startLoopbackEtcd();
    const rig = (rigName: string) =>
      startTestService({ group: "show", groupEndpoints: [etcd.url], rigName, groupClockPort: 0 });
    const main = await rig("main");
    let backup = await rig("backup");
    try {
      const { token, deviceId } = await pairWith(main, "Band phone");
      assert.equal(await statusWith(main, token), 200);
      assert.equal(await statusWith(backup, `${token.slice(0, -4)}AAAA`), 401, "a forged token");

      await until(
        "backup accepts the token main issued",
        async () => await statusWith(backup, token) === 200,
      );
      const listed = (await backup.get("/api/v1/devices")).body.devices;
      const copy = listed.find((d: { deviceId: string }) => d.deviceId === deviceId);
      assert.equal(copy?.pairedOn, "main");
      assert.equal(copy?.tokenHash, undefined, "the hash is not shown");
      const { kvs } = await new GatewayEtcd([etcd.url]).range(devicesPrefix("show"), {
        prefix: true,
      });
      assert.equal(kvs.length, 1);
      assert.ok(!kvs[0]!.value.includes(token), "etcd holds no token");
      assert.equal(JSON.parse(kvs[0]!.value).name, "Band phone");

      const revoked = await backup.get(`/api/v1/devices/${deviceId}`, { method: "DELETE" });
      assert.equal(revoked.status, 200, JSON.stringify(revoked.body));
      assert.equal(await statusWith(backup, token), 401);
      await until(
        "main refuses the token revoked on backup",
        async () => await statusWith(main, token) === 401,
      );
      assert.ok(
        !(await main.get("/api/v1/devices")).body.devices.some(
          (d: { deviceId: string }) => d.deviceId === deviceId,
        ),
      );

      // Revoked while the rig that paired it was away: refused there once it is back.
      const tablet = await pairWith(backup, "Tablet");
      await until(
        "main accepts backup's device",
        async () => await statusWith(main, tablet.token) === 200,
      );
      await backup.stop({ keepData: true });
      const gone = await main.get(`/api/v1/devices/${tablet.deviceId}`, { method: "DELETE" });
      assert.equal(gone.status, 200, JSON.stringify(gone.body));
      backup = await startTestService(
        { group: "show", groupEndpoints: [etcd.url], rigName: "backup", groupClockPort: 0 },
        { dataDir: backup.dataDir },
      );
      await until(
        "backup, back, refuses the device revoked meanwhile",
        async () => await statusWith(backup, tablet.token) === 401,
      );
    } finally {
      await backup.stop();
      await main.stop();
      await etcd.stop();
    }
  },
});
