/**
 * OSC `/connect` runs the catalog's `pair` operation through the one path
 * (`Policy.invoke`): the plan is checked as on every transport, and the
 * device it pairs is bound to the sender's address.
 */
import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { OscPeer } from "./_peer.ts";

Deno.test("OSC /connect is the pair operation: refused without the plan, bound to the sender with it", async () => {
  for (const plan of ["free", "pro"] as const) {
    const svc = await startTestService({ plan });
    const peer = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
    try {
      // A code is issued on the show machine whatever the plan (the operator's command).
      const otp = plan === "pro" ? (await svc.post("/api/v1/pair/code", {})).body.otp : "123456";
      await peer.send("/connect", [{ type: "string", value: otp }, "Desk", "view,control"]);
      if (plan === "free") {
        // To a sender not let in, a refusal no larger than what it sent: `/error <code>`.
        const refusal = await peer.next((m) => m.address === "/error");
        assert.equal(refusal.args[0], "API_ACCESS_DENIED");
        continue;
      }
      const reply = await peer.reply("/connect");
      assert.equal(reply.status, "ok", JSON.stringify(reply));
      assert.deepEqual(reply.data.scopes, ["view", "control"]);
      assert.equal(
        reply.data.token,
        undefined,
        "an OSC sender is known by its address, not a token",
      );
      const device = (await svc.get("/api/v1/devices")).body.devices
        .find((d: { deviceId: string }) => d.deviceId === reply.data.deviceId);
      assert.deepEqual([device.origin, device.address], ["osc", "127.0.0.2"]);
    } finally {
      await peer.close();
      await svc.stop();
    }
  }
});

Deno.test("OSC /connect: a refusal names the argument sent; an empty scope list is the default", async () => {
  const svc = await startTestService();
  const peer = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  try {
    const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
    // A long name makes a datagram big enough for the whole refusal to come back.
    await peer.send("/connect", [{ type: "string", value: otp }, "D".repeat(300), "view"]);
    const refused = await peer.reply("/connect");
    assert.equal(refused.status, "error");
    assert.equal(refused.data.details.field, "args[1]", JSON.stringify(refused));
    assert.match(refused.data.message, /args\[1\] \(deviceName\)/);
    await peer.send("/connect", [{ type: "string", value: otp }, "Desk", ""]);
    const paired = await peer.reply("/connect");
    assert.equal(paired.status, "ok", JSON.stringify(paired));
    assert.deepEqual(paired.data.scopes, ["view", "control"]);
  } finally {
    await peer.close();
    await svc.stop();
  }
});

Deno.test("OSC /connect with reply=<port> is refused at that port too, as it is answered there (oscsend reads no reply)", async () => {
  const svc = await startTestService();
  const sender = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  const listener = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  try {
    const reply = `reply=${listener.port}`;
    await sender.send("/connect", [{ type: "string", value: "000000" }, "Desk", reply]);
    const refusal = await listener.next((m) =>
      m.address === "/error" || m.address === "/reply/connect"
    );
    assert.ok(
      refusal.address === "/error"
        ? refusal.args[0] === "AUTHENTICATION_FAILED"
        : String(refusal.args[0]).includes("error"),
      JSON.stringify(refusal),
    );
    const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
    await sender.send("/connect", [{ type: "string", value: otp }, "Desk", reply]);
    const paired = await listener.reply("/connect");
    assert.equal(paired.status, "ok", JSON.stringify(paired));
  } finally {
    await sender.close();
    await listener.close();
    await svc.stop();
  }
});
