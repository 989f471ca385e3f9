/**
 * How a rig checks the token of a device another rig of its group paired (server/rigs/pairing.ts,
 * `TokenAuthenticator`): by the SHA-256 in the device's record, never by a key it does not hold.
 * Two rigs' authenticators, each with its own key, on one clock; no etcd (the record is copied by
 * hand, as the sharing's watch copies it).
 */
import assert from "node:assert/strict";
import { DeviceRegistry } from "../../../server/auth/devices.ts";
import { loadSigningKey } from "../../../server/auth/keys.ts";
import { PairingCodes } from "../../../server/auth/pairing.ts";
import { TokenAuthenticator } from "../../../server/auth/token_authenticator.ts";
import { issueToken, tokenHash } from "../../../server/auth/tokens.ts";
import type { CueportError } from "../../../server/core/mod.ts";

const HOUR_S = 3600;

async function rig(clock: () => number) {
  const dir = await Deno.makeTempDir();
  const devices = await DeviceRegistry.open(dir);
  const codes = new PairingCodes({ now: clock });
  const key = await loadSigningKey(dir);
  const auth = new TokenAuthenticator({
    key,
    devices,
    codes,
    tokenLifetimeSeconds: HOUR_S,
    now: clock,
  });
  return { dir, key, devices, codes, auth };
}

const refusal = (p: Promise<unknown>) =>
  p.then(() => "accepted", (e: CueportError) => `${e.code}: ${e.message}`);

Deno.test("pairing tokens: a token another rig signed is accepted by its hash, until it expires", async () => {
  let now = Date.parse("2026-11-30T20:00:00Z");
  const clock = () => now;
  const [main, backup] = [await rig(clock), await rig(clock)];
  try {
    const shared: unknown[] = [];
    main.auth.onpair = (device) => Promise.resolve(void shared.push(device));
    const { otp } = main.codes.issue();
    const { token, deviceId } = await main.auth.pair(otp, "10.0.0.9", "Phone");
    const record = main.devices.get(deviceId)!;
    assert.equal(record.tokenHash, await tokenHash(token));
    assert.deepEqual(shared, [record], "told before the pairing is answered");
    const remote = { token, address: "10.0.0.9" };

    assert.match(await refusal(backup.auth.authenticate(remote)), /AUTHENTICATION_FAILED/);
    await backup.devices.add({ ...record, address: "", pairedOn: "main" });
    const grant = await backup.auth.authenticate(remote);
    assert.deepEqual([grant.deviceId, grant.scopes], [deviceId, ["view", "control", "edit"]]);

    // Another token with the device's claims, signed with a key backup does not hold: refused.
    const other = new Uint8Array(32).fill(7);
    const forged = await issueToken(other, {
      deviceId,
      deviceName: "Phone",
      scopes: ["view", "control", "edit"],
      tokenId: record.tokenId,
    }, { lifetimeSeconds: HOUR_S, now });
    assert.match(
      await refusal(backup.auth.authenticate({ ...remote, token: forged.token })),
      /not valid/,
    );
    // A record without a hash (a device paired before pairings were shared) vouches for nothing.
    const { tokenHash: _hash, ...unhashed } = record;
    await backup.devices.add({ ...unhashed, pairedOn: "main" });
    assert.match(await refusal(backup.auth.authenticate(remote)), /not valid/);
    await backup.devices.add({ ...record, address: "", pairedOn: "main" });

    now += HOUR_S * 1000 + 1;
    assert.match(await refusal(backup.auth.authenticate(remote)), /expired/);
  } finally {
    for (const r of [main, backup]) await Deno.remove(r.dir, { recursive: true });
  }
});
