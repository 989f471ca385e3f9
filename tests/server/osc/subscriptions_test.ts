import assert from "node:assert/strict";
import { startTestService } from "../../../tools/testing/service.ts";
import { until } from "../../../tools/testing/until.ts";
import { OscDump, OscPeer, oscsend } from "./_peer.ts";
import { parseFilter, passes, Subscriptions } from "../../../server/osc/subscriptions.ts";
import { needs } from "../../../tools/testing/peers.ts";

Deno.test(
  "OSC: a subscriber gets the current values at once, then typed changes; oscdump shows them",
  needs("oscsend"),
  async () => {
    const svc = await startTestService();
    const dump = await OscDump.start();
    const peer = OscPeer.open(svc.service.ports.osc);
    try {
      await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", 0.5] });
      await oscsend(svc.service.ports.osc, "/subscribe", "s", `reply=${dump.port}`);
      await until("current values", () => dump.lines().some((l) => l.startsWith("/record/state")));
      const lines = dump.lines();
      assert.match(lines[0]!, /^\/reply\/subscribe s .*"leaseSeconds":30/);
      assert.ok(lines.includes("/control/A f 0.500000"), lines.join("\n"));
      assert.ok(lines.includes('/song/current s "s1"'), lines.join("\n"));
      assert.ok(lines.includes("/output/level f 1.000000"), lines.join("\n"));
      assert.ok(lines.includes("/mute i 0"), lines.join("\n"));

      // A second subscriber, filtered to Controls, on its own port.
      assert.equal((await peer.ask("/subscribe", ["/control"])).status, "ok");
      assert.deepEqual(await peer.next(), { address: "/control/A", args: [0.5] });
      await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["B", 0.25] });
      await svc.post("/api/v1/action", { name: "PLAY_CLIP_IN", params: ["c1"] });
      // One batch keeps the last value of each address: see this one before the next change.
      await until("c1 playing", () => dump.lines().includes('/clip/c1/state s "playing"'));
      await svc.post("/api/v1/action", { name: "SONG_SELECT_IN", params: [2] });
      await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" });
      await until("changes", () => dump.lines().includes("/mute i 1"));
      const after = dump.lines();
      assert.ok(after.includes("/control/B f 0.250000"));
      assert.ok(after.includes('/clip/c1/state s "playing"'), after.join("\n"));
      assert.ok(after.includes('/song/current s "s3"'));
      assert.ok(after.includes("/song/current/index i 2"));
      assert.deepEqual(await peer.next(), { address: "/control/B", args: [0.25] });
      assert.equal(svc.service.osc.subscriberCount, 2);
      assert.equal((await peer.ask("/unsubscribe")).data.unsubscribed, true);
      assert.equal(svc.service.osc.subscriberCount, 1);
      assert.equal((await peer.ask("/ping")).data.subscribed, false);
    } finally {
      await peer.close();
      await dump.stop();
      await svc.stop();
    }
  },
);

Deno.test("OSC: revoking a paired sender ends its subscriptions", async () => {
  const svc = await startTestService();
  const remote = OscPeer.open(svc.service.ports.osc, "127.0.0.2");
  try {
    const { otp } = (await svc.post("/api/v1/pair/code", {})).body;
    await remote.send("/connect", [otp, "Desk"]);
    const { data } = await remote.reply("/connect");
    assert.equal((await remote.ask("/subscribe", ["playstate"])).status, "ok");
    assert.equal(svc.service.osc.subscriberCount, 1);
    const res = await fetch(`${svc.base}/api/v1/devices/${data.deviceId}`, { method: "DELETE" });
    await res.body?.cancel();
    assert.equal(svc.service.osc.subscriberCount, 0);
  } finally {
    await remote.close();
    await svc.stop();
  }
});

Deno.test("OSC: /subscribe refuses an unknown filter, naming it", async () => {
  const svc = await startTestService();
  const peer = OscPeer.open(svc.service.ports.osc);
  try {
    const answer = await peer.ask("/subscribe", ["playstat"]);
    assert.equal(answer.data.code, "INVALID_MESSAGE");
    assert.match(answer.data.message, /did you mean "playstate"/);
  } finally {
    await peer.close();
    await svc.stop();
  }
});

Deno.test("Subscriptions: a lease expires unless renewed; at most 16 per address", () => {
  let now = 0;
  const subs = new Subscriptions({ ttlMs: 30_000, now: () => now });
  const base = {
    hostname: "10.0.0.1",
    address: "10.0.0.1",
    isLocal: false,
    socket: { send() {} },
    deviceId: undefined,
    filter: parseFilter([]),
  };
  subs.add({ ...base, key: "a|1", port: 1 });
  now = 20_000;
  assert.equal(subs.renew("a|1"), true);
  now = 45_000;
  assert.equal(subs.size, 1, "renewed at 20 s: lasts until 50 s");
  now = 50_000;
  assert.equal(subs.size, 0);
  assert.equal(subs.renew("a|1"), false);
  for (let i = 0; i < 16; i++) subs.add({ ...base, key: `a|${i}`, port: i });
  assert.throws(() => subs.add({ ...base, key: "a|99", port: 99 }), /Too many subscribers/);
});

Deno.test("passes() filters by update type, Project and address prefix", () => {
  const control = {
    address: "/control/A",
    args: [],
    updateType: "playstate" as const,
    projectId: "p1",
  };
  const mute = { address: "/mute", args: [], updateType: "volume" as const, projectId: null };
  assert.equal(passes(parseFilter([]), control, "p1"), true);
  assert.equal(passes(parseFilter([]), control, "p2"), false, "another Project than the active");
  assert.equal(passes(parseFilter(["project=p1"]), control, "p2"), true);
  assert.equal(passes(parseFilter(["volume"]), control, "p1"), false);
  assert.equal(passes(parseFilter(["volume"]), mute, "p1"), true);
  assert.equal(passes(parseFilter(["/control"]), mute, "p1"), false);
});
