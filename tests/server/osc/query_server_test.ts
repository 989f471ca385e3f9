import assert from "node:assert/strict";
import * as osc from "osc-min";
import { startTestService } from "../../../tools/testing/service.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";

Deno.test("OSCQuery: the namespace, HOST_INFO, attributes and values, from the same address table", async () => {
  const svc = await startTestService();
  const base = `http://127.0.0.1:${svc.service.ports.oscQuery}`;
  try {
    assert.equal((await svc.get("/api/v1/info")).body.ports.oscQuery, svc.service.ports.oscQuery);
    const info = await (await fetch(`${base}/?HOST_INFO`)).json();
    assert.equal(info.OSC_PORT, svc.service.ports.osc);
    assert.equal(info.OSC_TRANSPORT, "UDP");
    assert.equal(info.EXTENSIONS.LISTEN, true);
    // The status line says its reason, as any HTTP server's does (it was "HTTP/1.1 200 ": fetch
    // fills a reason in, so the line is read as sent).
    const conn = await Deno.connect({ hostname: "127.0.0.1", port: svc.service.ports.oscQuery! });
    const host = `127.0.0.1:${svc.service.ports.oscQuery}`;
    await conn.write(new TextEncoder().encode(`GET / HTTP/1.1\r\nHost: ${host}\r\n\r\n`));
    const head = new Uint8Array(64);
    const got = (await conn.read(head)) ?? 0;
    conn.close();
    assert.equal(
      new TextDecoder().decode(head.subarray(0, got)).split("\r\n")[0],
      "HTTP/1.1 200 OK",
    );
    const root = await (await fetch(`${base}/`)).json();
    assert.equal(root.FULL_PATH, "/");
    assert.ok(root.CONTENTS.play && root.CONTENTS.get && root.CONTENTS.action);
    await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", 0.5] });
    const a = await (await fetch(`${base}/control/A`)).json();
    // A Control's value is not clamped, its range the conventional one (NUMBER_CONVENTION).
    assert.deepEqual(
      { path: a.FULL_PATH, type: a.TYPE, access: a.ACCESS, value: a.VALUE, range: a.RANGE },
      { path: "/control/A", type: "f", access: 3, value: [0.5], range: [{ MIN: 0, MAX: 1 }] },
    );
    assert.deepEqual(await (await fetch(`${base}/control/A?VALUE`)).json(), { VALUE: [0.5] });
    const trigger = await (await fetch(`${base}/clip/c1/trigger`)).json();
    assert.equal(trigger.ACCESS, 2);
    assert.match(trigger.DESCRIPTION, /Trigger a Clip/);
    const direction = await (await fetch(`${base}/clip/c1/direction`)).json();
    assert.deepEqual(direction.RANGE, [{ VALS: ["forward", "backward"] }]);
    const mute = await (await fetch(`${base}/mute`)).json();
    assert.deepEqual([mute.ACCESS, mute.TYPE, mute.VALUE], [1, "i", [0]]);
    const missing = await fetch(`${base}/nope`);
    assert.equal(missing.status, 404);
    await missing.body?.cancel();
    const remote = await remoteRequest(svc.service.ports.oscQuery!, "GET", "/");
    assert.equal(remote.status, 401, "the OSC port's senders only");
  } finally {
    await svc.stop();
  }
});

Deno.test("OSCQuery: LISTEN over the WebSocket sends the value at once and each change; IGNORE stops", async () => {
  const svc = await startTestService();
  const ws = new WebSocket(`ws://127.0.0.1:${svc.service.ports.oscQuery}/`);
  ws.binaryType = "arraybuffer";
  const got: Array<{ address: string; value: unknown }> = [];
  const all: string[] = [];
  let wake = () => {};
  ws.onmessage = (e) => {
    const m = osc.fromBuffer(new Uint8Array(e.data as ArrayBuffer));
    if (m.oscType === "message") {
      got.push({ address: m.address, value: (m.args[0] as { value: unknown }).value });
      all.push(m.address);
    }
    wake();
  };
  /** The next message to `address` (others are skipped). */
  const next = async (address: string) => {
    while (true) {
      const i = got.findIndex((m) => m.address === address);
      if (i >= 0) return got.splice(0, i + 1).pop()!;
      got.length = 0;
      await new Promise<void>((resolve) => (wake = resolve));
    }
  };
  try {
    await new Promise((resolve) => (ws.onopen = resolve));
    ws.send(JSON.stringify({ COMMAND: "LISTEN", DATA: "/mute" }));
    assert.deepEqual(await next("/mute"), { address: "/mute", value: 0 });
    await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" });
    // (The player-ready update of a service just started may repeat the current 0 first.)
    let mute = await next("/mute");
    if (mute.value === 0) mute = await next("/mute");
    assert.deepEqual(mute, { address: "/mute", value: 1 });
    ws.send(JSON.stringify({ COMMAND: "IGNORE", DATA: "/mute" }));
    ws.send(JSON.stringify({ COMMAND: "LISTEN", DATA: "/output/level" }));
    assert.deepEqual(await next("/output/level"), { address: "/output/level", value: 1 });
    const mutes = all.filter((a) => a === "/mute").length;
    await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" });
    await svc.post("/api/v1/action", { name: "OUTPUT_LEVEL_IN", params: [0.5] });
    const seen: unknown[] = [];
    while (seen.at(-1) !== 0.5) {
      const level = await next("/output/level");
      seen.push(level.value);
    }
    assert.equal(all.filter((a) => a === "/mute").length, mutes, "IGNORE stopped /mute");
  } finally {
    const closed = new Promise((resolve) => (ws.onclose = resolve));
    ws.close();
    await closed;
    await svc.stop();
  }
});

Deno.test("OSCQuery: off disables it", async () => {
  const svc = await startTestService({ oscQueryPort: null });
  try {
    assert.equal(svc.service.ports.oscQuery, undefined);
    assert.equal((await svc.get("/api/v1/info")).body.ports.oscQuery, undefined);
  } finally {
    await svc.stop();
  }
});
