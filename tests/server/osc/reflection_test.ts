/**
 * The OSC port cannot be used to reflect traffic at a forged source address:
 * what it sends one address (replies, feedback, refusals) is held to a byte
 * budget, and `/connect` guesses from any address never pause pairing for
 * everyone.
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { PairingCodes } from "../../../server/auth/pairing.ts";
import { OscPeer } from "./_peer.ts";

/** Counts the bytes that arrive at `peer` until it is closed. */
function countBytes(peer: Deno.DatagramConn): { bytes: number; done: Promise<void> } {
  const counter = { bytes: 0, done: Promise.resolve() };
  counter.done = (async () => {
    try {
      for await (const [data] of peer) counter.bytes += data.length;
    } catch { /* closed */ }
  })();
  return counter;
}

Deno.test("OSC: what the port sends one remote address stays within its byte budget (no reflection)", async () => {
  const rate = 4096;
  const svc = await startTestService({ oscAllow: ["127.0.0.2"], oscSendBytesPerSecond: rate });
  // The victim: a port on 127.0.0.2 that only listens. The "attacker" names it with reply=.
  const victim = Deno.listenDatagram({ hostname: "127.0.0.2", port: 0, transport: "udp" });
  const victimPort = (victim.addr as Deno.NetAddr).port;
  const attacker = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  try {
    const one = await attacker.ask("/get/active");
    const size = new TextEncoder().encode(JSON.stringify(one)).length;
    assert.ok(size > 1000, `a reply of ${size} bytes is big enough to tell`);
    const counter = countBytes(victim);
    const started = performance.now();
    for (let i = 0; i < 100; i++) await attacker.send("/get/active", [`reply=${victimPort}`]);
    await attacker.send("/subscribe", [`reply=${victimPort}`]);
    for (let i = 0; i < 100; i++) {
      await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", i / 100] });
    }
    // The burst arrived: the service held back what passed the budget (its own count), and
    // the victim got what the budget let through (the subscription's feedback: a reply of
    // `size` is more than the 2 s burst). No fixed window: the bound grows with the time the
    // victim counted, so it holds however long that took; 100 replies unbudgeted (about 1 MB)
    // pass it.
    await until("the service to withhold bytes over the budget", () => {
      return svc.service.osc.withheldBytes > 0;
    });
    await until("something to reach the victim", () => counter.bytes > 0);
    victim.close();
    await counter.done;
    const seconds = (performance.now() - started) / 1000;
    const bound = 2 * rate + rate * seconds + 1500; // the burst, the rate, one datagram
    assert.ok(
      counter.bytes <= bound,
      `${counter.bytes} bytes reached the victim in ${seconds.toFixed(1)} s (bound ${bound})`,
    );
    // This machine is not limited.
    const local = OscPeer.open(svc.service.ports.osc);
    try {
      for (let i = 0; i < 20; i++) assert.equal((await local.ask("/get/active")).status, "ok");
    } finally {
      await local.close();
    }
  } finally {
    await attacker.close();
    try {
      victim.close();
    } catch { /* closed */ }
    await svc.stop();
  }
});

Deno.test("OSC: /connect guesses lock out only their own address's OSC pairing; pairing over HTTP goes on", async () => {
  const svc = await startTestService();
  const peers: OscPeer[] = [];
  try {
    // 60 addresses guess one code each: more than the 50 that used to pause pairing for all.
    for (let i = 0; i < 60; i++) {
      const peer = OscPeer.open(svc.service.ports.osc, `127.0.1.${i + 2}`);
      peers.push(peer);
      await peer.send("/connect", [{ type: "string", value: "000000" }, "Guess"]);
    }
    const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
    const paired = await remoteRequest(svc.service.ports.http, "POST", "/api/v1/pair", {
      body: { otp, deviceName: "Tablet" },
      localAddress: "127.0.0.3",
    });
    assert.equal(paired.status, 200, JSON.stringify(paired.body));
  } finally {
    for (const peer of peers) await peer.close();
    await svc.stop();
  }
});

Deno.test("PairingCodes: OSC guesses from one address lock only that address's OSC pairing", () => {
  const codes = new PairingCodes({ now: () => 0 });
  const good = codes.issue().otp;
  const wrong = good === "000000" ? "000001" : "000000";
  for (let i = 0; i < 5; i++) {
    assert.throws(() => codes.consume(wrong, "10.0.0.9", "osc"), /Invalid pairing code/);
  }
  assert.throws(() => codes.consume(good, "10.0.0.9", "osc"), /Too many wrong pairing codes/);
  // The same address over TCP (a real connection from it) is not locked by forged datagrams.
  codes.consume(good, "10.0.0.9");
});
