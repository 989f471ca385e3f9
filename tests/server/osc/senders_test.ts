import assert from "node:assert/strict";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { OscPeer } from "./_peer.ts";
import { startServiceProcess } from "../../../tools/testing/service_process.ts";
import { until } from "../../../tools/testing/until.ts";
import { parseSubnets } from "../../../server/osc/senders.ts";

/** A string argument that makes a datagram big enough for the full refusal to fit. */
const PAD = "x".repeat(400);

async function pairCode(svc: TestService): Promise<string> {
  return (await svc.post("/api/v1/pair/code", {})).body.otp;
}

Deno.test("OSC: a remote sender is refused until it pairs with /connect; revocation stops it", async () => {
  const svc = await startTestService();
  const remote = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  try {
    // Refused: nothing runs, and the refusal is no bigger than what caused it.
    await remote.send("/control/A", [0.5, "reply", PAD]);
    const refusal = await remote.next();
    assert.equal(refusal.address, "/reply/control/A");
    assert.equal(JSON.parse(refusal.args[0]).data.code, "AUTHENTICATION_FAILED");
    assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.controls.A, undefined);

    const otp = await pairCode(svc);
    await remote.send("/connect", [{ type: "string", value: otp }, "Desk", "view,control"]);
    const paired = await remote.reply("/connect");
    assert.equal(paired.status, "ok");
    const devices = (await svc.get("/api/v1/devices")).body.devices;
    const desk = devices.find((d: { deviceId: string }) => d.deviceId === paired.data.deviceId);
    assert.deepEqual(
      { name: desk.name, address: desk.address, origin: desk.origin, scopes: desk.scopes },
      { name: "Desk", address: "127.0.0.2", origin: "osc", scopes: ["view", "control"] },
    );

    // Paired: bound to the address, whatever the source port.
    const again = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
    try {
      assert.equal((await again.ask("/control/A", [0.5])).status, "ok");
    } finally {
      await again.close();
    }
    assert.equal((await remote.ask("/get/appState")).status, "ok");

    const revoked = await fetch(`${svc.base}/api/v1/devices/${paired.data.deviceId}`, {
      method: "DELETE",
    });
    assert.equal(revoked.status, 200);
    await revoked.body?.cancel();
    await remote.send("/control/A", [0.75, "reply", PAD]);
    const after = await remote.next();
    assert.equal(JSON.parse(after.args[0]).data.code, "AUTHENTICATION_FAILED");
    assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.controls.A, 0.5);
  } finally {
    await remote.close();
    await svc.stop();
  }
});

Deno.test("OSC: an unpaired sender is named in the service's log, once per address, with how to pair", async () => {
  // localhostAuthExempt off: a sender on this machine must pair too, and is logged as rarely.
  const svc = await startServiceProcess([
    "--log-format",
    "json",
    "--mdns",
    "off",
    "--localhost-auth-exempt",
    "false",
  ]);
  const peers = ["127.0.0.2", "127.0.0.3", "127.0.0.1", "127.0.0.4"].map((host) =>
    OscPeer.open(svc.ready.ports.osc, host)
  );
  const [desk, other, local, last] = peers as [OscPeer, OscPeer, OscPeer, OscPeer];
  const messages = () =>
    svc.stderr().trim().split("\n").filter(Boolean).map((line) => JSON.parse(line).message);
  const about = (host: string) =>
    messages().filter((m: string) => m.startsWith(`OSC sender ${host} `));
  try {
    // Small datagrams: the refusal would be bigger, so the sender hears nothing back.
    for (let i = 0; i < 5; i++) await desk.send("/control/A", [0.5]);
    await other.send("/get/appState");
    for (let i = 0; i < 5; i++) await local.send("/control/A", [0.5]);
    for (let i = 0; i < 5; i++) await desk.send("/play");
    await last.send("/ping");
    // The log is in order: once the last sender's line is there, every earlier one is too.
    await until("the last sender's log line", () => about("127.0.0.4").length === 1);
    assert.deepEqual(about("127.0.0.2"), [
      "OSC sender 127.0.0.2 is not paired, so its messages are ignored: pair it with " +
      '/connect <otp> <deviceName> and a code from "cueport pair", or let its address in ' +
      "with --osc-allow (logged once a minute per sender)",
    ]);
    assert.equal(about("127.0.0.3").length, 1);
    assert.equal(about("127.0.0.1").length, 1);
  } finally {
    for (const peer of peers) await peer.close();
    assert.equal(await svc.stop(), 0);
  }
});

Deno.test("OSC: refusals are rate-limited and never bigger than the datagram; a wrong code fails", async () => {
  const svc = await startTestService();
  const remote = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  try {
    // A small datagram gets the short form only (36 bytes), and only because the /connect is 40.
    await remote.send("/connect", [{ type: "integer", value: 1234 }, "Desk", "view"]);
    const wrong = await remote.next();
    assert.equal(wrong.address, "/error");
    assert.equal(wrong.args[0], "AUTHENTICATION_FAILED");
    // A burst of 2, then one a second: of five more, at most one is answered now.
    for (let i = 0; i < 5; i++) await remote.send("/play", ["reply", PAD]);
    const first = await remote.next();
    assert.equal(JSON.parse(first.args[0]).data.code, "AUTHENTICATION_FAILED");
    // A local round trip after them: the other refusals would have come by now.
    const local = OscPeer.open(svc.service.ports.osc);
    try {
      assert.equal((await local.ask("/ping")).status, "ok");
    } finally {
      await local.close();
    }
    assert.deepEqual(remote.pending, []);
    assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.song.state, "stopped");
  } finally {
    await remote.close();
    await svc.stop();
  }
});

Deno.test("OSC: oscAllow lets a subnet in without pairing", async () => {
  const svc = await startTestService({ oscAllow: ["127.0.0.0/30"] });
  const remote = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  const outside = OscPeer.open(svc.service.ports.osc, "127.0.0.5");
  try {
    assert.equal((await remote.ask("/control/A", [0.25])).status, "ok");
    await outside.send("/control/A", [0.5, "reply", PAD]);
    assert.equal((await outside.reply("/control/A")).data.code, "AUTHENTICATION_FAILED");
    assert.equal((await svc.get("/api/v1/projects/show/playstate")).body.controls.A, 0.25);
  } finally {
    await remote.close();
    await outside.close();
    await svc.stop();
  }
});

Deno.test("OSC: local senders must pair when localhostAuthExempt is off", async () => {
  const svc = await startTestService({ localhostAuthExempt: false });
  const local = OscPeer.open(svc.service.ports.osc);
  try {
    await local.send("/play", ["reply", PAD]);
    assert.equal((await local.reply("/play")).data.code, "AUTHENTICATION_FAILED");
  } finally {
    await local.close();
    await svc.stop();
  }
});

Deno.test("parseSubnets() reads IPv4 and IPv6 addresses and subnets, and names a bad entry", () => {
  assert.equal(parseSubnets(["10.0.0.0/8", "fd00::/8", "192.168.1.7", "::1"]).length, 4);
  assert.throws(() => parseSubnets(["10.0.0.0/33"]), /oscAllow: "10.0.0.0\/33"/);
  assert.throws(() => parseSubnets(["desk.local"]), /not an address or subnet/);
});
