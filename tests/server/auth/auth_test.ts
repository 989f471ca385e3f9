import assert from "node:assert/strict";
import { DeviceRegistry } from "../../../server/auth/devices.ts";
import { loadSigningKey } from "../../../server/auth/keys.ts";
import { PAIRING_LIMITS, PairingCodes } from "../../../server/auth/pairing.ts";
import { TokenAuthenticator } from "../../../server/auth/token_authenticator.ts";
import { issueToken, verifyToken } from "../../../server/auth/tokens.ts";
import type { CueportError } from "../../../server/core/mod.ts";

const codeOf = (p: Promise<unknown>) => p.then(() => "ok", (e: CueportError) => e.code);
const b64url = (s: string) => btoa(s).replace(/=+$/, "").replace(/\+/g, "-").replace(/\//g, "_");

async function setup() {
  const dir = await Deno.makeTempDir();
  let now = Date.parse("2026-11-21T12:00:00Z");
  const clock = { now: () => now, advance: (ms: number) => (now += ms) };
  const key = await loadSigningKey(dir);
  const devices = await DeviceRegistry.open(dir);
  const codes = new PairingCodes({ now: clock.now });
  const auth = new TokenAuthenticator({
    key,
    devices,
    codes,
    tokenLifetimeSeconds: 3600,
    now: clock.now,
  });
  return {
    dir,
    clock,
    key,
    devices,
    codes,
    auth,
    close: () => Deno.remove(dir, { recursive: true }),
  };
}

Deno.test("loadSigningKey() creates a 32-byte owner-only key once, and rotates on request", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const a = await loadSigningKey(dir);
    assert.equal(a.length, 32);
    assert.deepEqual(await loadSigningKey(dir), a);
    if (Deno.build.os !== "windows") {
      assert.equal((await Deno.stat(`${dir}/auth/signing-key.json`)).mode! & 0o777, 0o600);
    }
    assert.notDeepEqual(await loadSigningKey(dir, { rotate: true }), a);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("verifyToken() refuses expired, forged, alg:none and altered tokens", async () => {
  const t = await setup();
  try {
    const claims = {
      deviceId: "dev-1",
      deviceName: "iPad",
      scopes: ["view" as const],
      tokenId: "t1",
    };
    const { token } = await issueToken(t.key, claims, { lifetimeSeconds: 60, now: t.clock.now() });
    assert.equal((await verifyToken(t.key, token, t.clock.now())).deviceId, "dev-1");
    assert.equal(
      await codeOf(verifyToken(t.key, token, t.clock.now() + 61_000)),
      "AUTHENTICATION_FAILED",
    );
    const otherKey = crypto.getRandomValues(new Uint8Array(32));
    const forged =
      (await issueToken(otherKey, claims, { lifetimeSeconds: 60, now: t.clock.now() })).token;
    assert.equal(await codeOf(verifyToken(t.key, forged, t.clock.now())), "AUTHENTICATION_FAILED");
    const [, payload] = token.split(".");
    const none = `${b64url(JSON.stringify({ alg: "none", typ: "JWT" }))}.${payload}.`;
    assert.equal(await codeOf(verifyToken(t.key, none, t.clock.now())), "AUTHENTICATION_FAILED");
    const altered = JSON.parse(atob(payload!.replace(/-/g, "+").replace(/_/g, "/")));
    altered.scopes = ["view", "control", "edit"];
    const tampered = [token.split(".")[0], b64url(JSON.stringify(altered)), token.split(".")[2]]
      .join(".");
    assert.equal(
      await codeOf(verifyToken(t.key, tampered, t.clock.now())),
      "AUTHENTICATION_FAILED",
    );
  } finally {
    await t.close();
  }
});

Deno.test("PairingCodes: 6 digits, single use, expire after 5 minutes", async () => {
  const t = await setup();
  try {
    const { otp, expiresAt } = t.codes.issue();
    assert.match(otp, /^\d{6}$/);
    assert.equal(expiresAt - t.clock.now(), 5 * 60_000);
    t.codes.consume(otp, "127.0.0.2");
    assert.throws(() => t.codes.consume(otp, "127.0.0.2"), /wrong, used or expired/);
    const late = t.codes.issue().otp;
    t.clock.advance(5 * 60_000);
    assert.throws(() => t.codes.consume(late, "127.0.0.3"), /wrong, used or expired/);
  } finally {
    await t.close();
  }
});

Deno.test("PairingCodes lock an address out after repeated wrong codes, with backoff", async () => {
  const t = await setup();
  try {
    const good = t.codes.issue().otp;
    const wrong = good === "000000" ? "000001" : "000000";
    for (let i = 0; i < PAIRING_LIMITS.perAddressFailures; i++) {
      assert.throws(() => t.codes.consume(wrong, "10.9.9.9"), /Invalid pairing code/);
    }
    assert.throws(
      () => t.codes.consume(good, "10.9.9.9"),
      /Too many wrong pairing codes/,
      "even the right code is refused while locked",
    );
    t.codes.consume(good, "10.9.9.8"); // other addresses are not locked
    t.clock.advance(PAIRING_LIMITS.firstLockoutMs);
    const again = t.codes.issue().otp;
    for (let i = 0; i < PAIRING_LIMITS.perAddressFailures; i++) {
      assert.throws(() => t.codes.consume(wrong, "10.9.9.9"));
    }
    t.clock.advance(PAIRING_LIMITS.firstLockoutMs);
    assert.throws(
      () => t.codes.consume(again, "10.9.9.9"),
      /Too many/,
      "the second lockout is twice as long",
    );
    t.clock.advance(PAIRING_LIMITS.firstLockoutMs);
    t.codes.consume(again, "10.9.9.9");
  } finally {
    await t.close();
  }
});

Deno.test("TokenAuthenticator: pair once, use the token, revoke it; it exempts no local client", async () => {
  const t = await setup();
  try {
    const { otp } = t.codes.issue();
    const pairing = await t.auth.pair(otp, "127.0.0.2", "Stage iPad");
    assert.equal(await codeOf(t.auth.pair(otp, "127.0.0.2", "Twice")), "AUTHENTICATION_FAILED");
    const grant = await t.auth.authenticate({ address: "127.0.0.2", token: pairing.token });
    assert.deepEqual([grant.device, grant.deviceId], ["Stage iPad", pairing.deviceId]);
    assert.equal(
      await codeOf(t.auth.authenticate({ address: "127.0.0.2" })),
      "AUTHENTICATION_FAILED",
    );
    // The authenticator exempts nobody: the localhost exemption is the policy's (policy_test.ts).
    assert.equal(
      await codeOf(t.auth.authenticate({ address: "127.0.0.1" })),
      "AUTHENTICATION_FAILED",
    );
    const revoked: string[] = [];
    t.devices.onrevoke = (id) => revoked.push(id);
    assert.equal(await t.devices.revoke(pairing.deviceId), true);
    assert.deepEqual(revoked, [pairing.deviceId]);
    assert.equal(
      await codeOf(t.auth.authenticate({ address: "127.0.0.2", token: pairing.token })),
      "AUTHENTICATION_FAILED",
    );
    assert.equal((await DeviceRegistry.open(t.dir)).list().length, 0, "the registry is saved");
  } finally {
    await t.close();
  }
});

Deno.test("PairingCodes pause pairing for everyone after too many wrong codes from anywhere", async () => {
  const t = await setup();
  try {
    const good = t.codes.issue().otp;
    const wrong = good === "000000" ? "000001" : "000000";
    for (let i = 0; i < PAIRING_LIMITS.globalFailures; i++) {
      // a different address each time: no single address is locked out
      assert.throws(
        () => t.codes.consume(wrong, `10.0.${Math.floor(i / 4)}.${i % 4}`),
        /Invalid pairing code/,
      );
    }
    assert.throws(() => t.codes.consume(good, "10.1.1.1"), /Too many wrong pairing codes/);
    t.clock.advance(PAIRING_LIMITS.globalPauseMs);
    t.codes.consume(good, "10.1.1.1");
  } finally {
    await t.close();
  }
});
