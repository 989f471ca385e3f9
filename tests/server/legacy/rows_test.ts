/**
 * One step per row of the spec's table of differences (section 9), checked
 * on a running service with both interfaces.
 */
import assert from "node:assert/strict";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { remoteRequest } from "../../../tools/testing/remote.ts";
import { RawSocket, TestSocket } from "../../../tools/testing/ws_client.ts";
import { V5Http, V5Socket } from "../../../tools/testing/v5_session.ts";
import { SETTINGS } from "../../../protocol/settings.ts";
import { Settings } from "../../../server/config.ts";
import { V5_ERROR_TYPES, V5_STATUSES, V5InfoView } from "../../../server/legacy/mod.ts";
import { V5_ACTIONS } from "../../../server/legacy/mod.ts";
import { until } from "../../../tools/testing/until.ts";

const LEGACY = { legacyHttpPort: 0, legacyWsPort: 0 } as const;

function v5(svc: TestService): V5Http {
  return new V5Http("127.0.0.1", svc.service.ports.legacyHttp!);
}

Deno.test("5.0.0 rows: ports, paths, routes, bodies, names, seek, direction", async (t) => {
  const svc = await startTestService(LEGACY);
  const http5 = v5(svc);
  const ports = svc.service.ports;
  try {
    await t.step("Ports: 51736 and 51734 by default; 0 picks; info reports them", async () => {
      const defaults = Settings.parse({ dataDir: "/tmp/x" });
      assert.deepEqual([defaults.legacyHttpPort, defaults.legacyWsPort], [51736, 51734]);
      assert.equal(SETTINGS.oscPort.schema.parse(undefined), 17735, "OSC stays on 17735 only");
      assert.ok(ports.legacyHttp! > 0 && ports.legacyWs! > 0);
      const info = (await svc.get("/api/v1/info")).body;
      assert.equal(info.ports.legacyHttp, ports.legacyHttp);
      assert.equal(info.ports.legacyWs, ports.legacyWs);
      const v5info = (await http5.call("GET", "/api/info")).body;
      V5InfoView.parse(v5info); // strict: no field added or dropped unseen
      assert.equal(v5info.apiVersion, "5.0.0");
      assert.deepEqual(v5info.ports, { http: ports.legacyHttp, ws: ports.legacyWs });
      assert.equal(v5info.websocket, "/");
      // Each endpoint described as itself: the single Clip is not the 6.0 list by ids.
      const single = v5info.endpoints.find((e: { path: string }) => e.path.endsWith(":clipId"));
      assert.equal(single.description, "One Clip of the Song, by its id");
    });

    await t.step(
      "WebSocket path: / on the 5.0.0 port, /v1 on the 6.0 port, not crossed",
      async () => {
        const v5root = await RawSocket.open("127.0.0.1", ports.legacyWs!, { path: "/" });
        assert.equal(v5root.status, 101);
        v5root.destroy();
        for (const [port, path] of [[ports.legacyWs!, "/v1"], [ports.ws, "/"]] as const) {
          const wrong = await RawSocket.open("127.0.0.1", port, { path });
          assert.equal(wrong.status, 404, `${path} on ${port}`);
          wrong.destroy();
        }
      },
    );

    await t.step("Info / pair / data paths: without /v1 on 5.0.0, not the /v1 ones", async () => {
      for (
        const path of [
          "/api/info",
          "/api/projects",
          "/api/projects/show",
          "/api/projects/show/playstate",
          "/api/active",
          "/api/projects/show/songs",
          "/api/projects/show/songs/s1",
          "/api/projects/show/effects",
          "/api/projects/show/visualizers",
          "/api/cameras",
          "/health",
        ]
      ) assert.equal((await http5.call("GET", path)).status, 200, path);
      const pair = await http5.call("POST", "/api/pair", { otp: "000000" });
      assert.equal(pair.status, 401, "the pair route exists (a wrong code is refused)");
      const v1 = await http5.call("GET", "/api/v1/projects");
      assert.equal(v1.status, 404);
      assert.match(v1.body.error.message, /5\.0\.0 paths have no \/v1/);
      assert.equal((await svc.get("/api/projects")).status, 404, "6.0 keeps /v1");
    });

    await t.step(
      "Extra/missing routes: the single Clip on 5.0.0 only; 6.0's new routes 404",
      async () => {
        const clip = await http5.call("GET", "/api/projects/show/songs/s1/clips/c2");
        assert.equal(clip.status, 200);
        assert.equal(clip.body.clipID, "c2");
        assert.equal(clip.body.songID, "s1");
        const elsewhere = await http5.call("GET", "/api/projects/show/songs/s2/clips/c2");
        assert.equal(elsewhere.status, 404);
        assert.equal((await http5.call("GET", "/api/projects/show/songs/s1/clips/zz")).status, 404);
        assert.equal((await svc.get("/api/v1/projects/show/songs/s1/clips/c2")).status, 404);
        for (
          const [method, path] of [
            ["GET", "/api/projects/show/summary"],
            ["GET", "/api/app-state"],
            ["GET", "/api/presets"],
            ["GET", "/api/presets/effect/x"],
            ["GET", "/api/projects/show/clips?ids=c1"],
            ["POST", "/api/refresh"],
            ["GET", "/api/v1/edit/schema"],
            ["GET", "/api/edit/schema"],
            ["POST", "/api/v1/files/upload"],
            ["POST", "/api/v1/refresh"],
            ["GET", "/api/v1/devices"],
            ["POST", "/api/v1/pair/code"],
          ]
        ) {
          const answer = await http5.call(method!, path!, method === "POST" ? {} : undefined);
          assert.equal(answer.status, 404, `${method} ${path}`);
          assert.match(answer.body.error.message, /6\.0 interface/);
        }
      },
    );

    await t.step(
      "Action and edit routes: the same paths on both ports, each port its own bodies",
      async () => {
        const legacyBase = `http://127.0.0.1:${ports.legacyHttp}`;
        for (const [base, direction] of [[legacyBase, "reverse"], [svc.base, "forward"]]) {
          const isV5 = base === legacyBase;
          const action = await fetch(`${base}/api/v1/action`, {
            method: "POST",
            body: JSON.stringify(
              isV5 ? { action: { name: "MuteToggleAction", params: [] } } : { name: "MUTE_TOGGLE" },
            ),
          });
          assert.equal(action.status, 200, String(base));
          const name = isV5 ? "MuteToggleAction" : "MUTE_TOGGLE";
          assert.equal((await action.json()).action, name, "each interface names it its way");
          const params = { clipID: "c6", direction };
          const edit = await fetch(`${base}/api/v1/edit`, {
            method: "POST",
            body: JSON.stringify(
              isV5 ? { edit: { name: "clip.update", params } } : { name: "clip.update", params },
            ),
          });
          const result = await edit.json();
          assert.equal(edit.status, 200, JSON.stringify(result));
          assert.deepEqual(result.changed.clips, ["c6"]);
          if (direction === "forward") continue;
          const c6 = (await svc.get("/api/v1/projects/show/songs/s2")).body.clips[1];
          assert.equal(c6.direction, "backward", "reverse is stored as backward");
          const c6v5 = (await http5.call("GET", "/api/projects/show/songs/s2/clips/c6")).body;
          assert.equal(c6v5.direction, "reverse");
        }
      },
    );

    await t.step("Action body and names: every 5.0.0 name runs as its catalog action", async () => {
      const shown = [
        "PlayClipByIndexAction",
        "NextSongAction",
        "StopAllClipsAction",
        "PanicAction",
      ];
      for (const name of shown) {
        const answer = await http5.action(name, name === "PlayClipByIndexAction" ? [0] : []);
        assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
      }
      const level = await http5.action("OutputLevelAction", [0.8]);
      assert.deepEqual([level.body.action, level.body.params], ["OutputLevelAction", {
        level: 0.8,
      }]);
      assert.equal((await svc.get("/api/v1/app-state")).body.volume, 0.8);
      const full = await http5.action("FullscreenToggleAction");
      assert.equal(full.body.action, "FullscreenToggleAction");
      assert.equal(V5_ACTIONS.size, 29, "every action 5.0.0 had: the 34 of 6.0 but five");
      // The 6.0 form keeps its uppercase names; a 5.0.0 name there says both ways.
      const mixed = await http5.call("POST", "/api/v1/action", { name: "PanicAction" });
      assert.equal(mixed.status, 400);
      assert.match(mixed.body.error.message, /5\.0\.0 name of PANIC/);
    });

    await t.step(
      "Seek: position in seconds, converted with the media's length; out of range refused",
      async () => {
        await http5.action("SongSelectAction", [0]);
        await http5.action("PlayClipAction", ["c1"]);
        const seek = await http5.action("SeekClipAction", ["c1", 2.5]);
        assert.equal(seek.status, 200, JSON.stringify(seek.body));
        assert.equal(seek.body.params.percent, 0.25, "c1 is 10 s long");
        const state = (await http5.call("GET", "/api/projects/show/playstate")).body;
        assert.equal(state.clips.find((c: { clipID: string }) => c.clipID === "c1").position, 2.5);
        const past = await http5.action("SeekClipAction", ["c1", 10.5]);
        assert.equal(past.status, 400);
        assert.match(past.body.error.message, /from 0 to 10 seconds/);
        assert.equal((await http5.action("SeekClipAction", ["c1", -1])).status, 400);
        assert.equal((await http5.action("SeekClipAction", ["ghost", 1])).status, 404);
        await http5.action("PlayAction");
        const song = await http5.action("SeekSongAction", ["s1", 5]);
        assert.equal(song.status, 200, JSON.stringify(song.body));
        assert.equal(song.body.params.percent, 0.25, "s1's audio is 20 s long");
        assert.equal((await http5.action("SeekSongAction", ["s1", 21])).status, 400);
        await http5.action("StopAllClipsAction");
        await http5.action("StopAction");
      },
    );

    await t.step(
      "Direction values: reverse in, reverse out on 5.0.0, backward on 6.0",
      async () => {
        const reversed = await http5.action("ClipDirectionAction", ["c1", "reverse"]);
        assert.equal(reversed.status, 200);
        assert.equal(reversed.body.params.direction, "reverse", "the answer says it the 5.0.0 way");
        const six = (await svc.get("/api/v1/projects/show")).body;
        assert.equal(six.clips[0].direction, "backward");
        const five = (await http5.call("GET", "/api/projects/show")).body;
        assert.equal(five.clips[0].direction, "reverse");
        await http5.action("ClipDirectionAction", ["c1", "forward"]);
      },
    );
  } finally {
    await svc.stop();
  }
});

Deno.test("5.0.0 rows: the WebSocket (action message, updates, after auth, update types, errors)", async (t) => {
  const svc = await startTestService(LEGACY);
  const ports = svc.service.ports;
  const ws = await V5Socket.open("127.0.0.1", ports.legacyWs!);
  const six = await TestSocket.open(`ws://127.0.0.1:${ports.ws}/v1`);
  try {
    await six.take();
    await six.auth();
    await t.step(
      "After auth: nothing on open, the connected event with the client ID after",
      async () => {
        // A 6.0 client is greeted on open; by the time its auth is answered, a 5.0.0 client
        // opened earlier would have had its greeting too.
        assert.equal(ws.messages.length, 0);
        const connected = await ws.auth();
        assert.match(connected.payload.clientId, /^c\d+-/);
        assert.equal(connected.payload.apiVersion, "5.0.0");
        assert.equal(connected.payload.deprecation.deprecated, true);
        assert.equal(connected.payload.deprecation.successor.wsPort, ports.ws);
      },
    );

    await t.step(
      "WebSocket action message: answered by action-response, same correlationId",
      async () => {
        const answer = await ws.action("PlayClipAction", ["c2"]);
        assert.equal(answer.type, "action-response");
        assert.equal(answer.payload.success, true);
        assert.equal(answer.payload.action, "PlayClipAction");
        const failed = await ws.action("ResumeAction");
        assert.equal(failed.payload.success, false);
        assert.equal(failed.payload.error.type, "ACTION_FAILED");
      },
    );

    await t.step("WebSocket state update: {type: event, payload: {event, updates}}", async () => {
      const event = await ws.take((m) => m.type === "event" && m.payload.event === "state-update");
      assert.deepEqual(Object.keys(event).sort(), ["payload", "type"]);
      assert.ok(Array.isArray(event.payload.updates));
    });

    await t.step("Update types: no appState or presets; volume and mute as volume", async () => {
      await ws.action("FullscreenToggleAction");
      await six.take((m) =>
        m.event === "state-update" &&
        m.payload.some((u: { updateType: string }) => u.updateType === "appState")
      );
      await ws.action("MuteToggleAction");
      const volume = await ws.update((u) => u.updateType === "volume");
      assert.equal(volume.data.muted, true);
      await ws.action("MuteToggleAction");
      await ws.update((u) => u.updateType === "volume" && u.data.muted === false);
      for (const m of ws.messages) {
        for (const u of m.payload?.updates ?? []) {
          assert.ok(!["appState", "presets"].includes(u.updateType), u.updateType);
        }
      }
    });

    await t.step("Error codes: only the five 5.0.0 types", async () => {
      const raw = await RawSocket.open("127.0.0.1", ports.legacyWs!, { path: "/" });
      raw.send({ type: "action", payload: { action: { name: "PlayAction" } }, correlationId: 1 });
      raw.send({ type: "query", query: "projects", correlationId: 2 });
      raw.send({ type: "auth", payload: { token: "forged" }, correlationId: 3 });
      await until("three answers", () => raw.json().length >= 3);
      const [early, unknown, forged] = raw.json();
      assert.equal(early.payload.error.type, "AUTHENTICATION_FAILED");
      assert.equal(early.correlationId, 1);
      assert.equal(unknown.payload.type, "INVALID_MESSAGE");
      assert.equal(forged.payload.type, "AUTHENTICATION_FAILED");
      raw.destroy();
      const velocity = await ws.action("PlayClipAction", ["c1"]);
      assert.equal(velocity.payload.success, true);
      for (const m of ws.messages) {
        const type = m.payload?.error?.type ?? (m.type === "error" ? m.payload.type : undefined);
        if (type !== undefined) assert.ok(V5_ERROR_TYPES.includes(type), type);
      }
    });

    await t.step(
      "New in 6.0: the 6.0-only actions, velocity and base are refused the 6.0 way",
      async () => {
        for (
          const [name, six] of [
            ["ReleaseClipAction", "RELEASE_CLIP_IN"],
            ["ReleaseClipByIndexAction", "RELEASE_CLIP_BY_INDEX_IN"],
            ["SetControlAction", "SET_CONTROL"],
            ["SetParamAction", "SET_PARAM"],
            ["RecordToggleAction", "RECORD_TOGGLE"],
            ["SET_CONTROL", "SET_CONTROL"],
          ]
        ) {
          const refused = await ws.action(name!, []);
          assert.equal(refused.payload.error.type, "INVALID_MESSAGE");
          assert.match(
            refused.payload.error.message,
            new RegExp(`send the 6\\.0 form \\{"name": "${six}"`),
          );
        }
        ws.messages.length = 0;
        const raw = await RawSocket.open("127.0.0.1", ports.legacyWs!, { path: "/" });
        raw.send({ type: "auth", payload: {} });
        raw.send({
          type: "action",
          payload: { action: { name: "PlayClipAction", params: ["c1"], velocity: 10 } },
          correlationId: "v",
        });
        raw.send({
          type: "action",
          payload: { action: { name: "SongSelectAction" }, base: 1 },
          correlationId: "b",
        });
        await until(
          "two answers",
          () => raw.json().filter((m) => m.type === "action-response").length >= 2,
        );
        const [v, b] = raw.json().filter((m) => m.type === "action-response");
        assert.match(v.payload.error.message, /velocity is new in 6\.0/);
        assert.match(b.payload.error.message, /base is new in 6\.0/);
        raw.destroy();
      },
    );
  } finally {
    await ws.close();
    await six.close();
    await svc.stop();
  }
});

Deno.test("5.0.0 rows: security (localhost setting, API access, error codes, tokens, one rate budget)", async (t) => {
  await t.step(
    "Localhost setting: localhostAuthExempt off asks local 5.0.0 clients for a token",
    async () => {
      const svc = await startTestService({ ...LEGACY, localhostAuthExempt: false });
      try {
        const answer = await v5(svc).call("GET", "/api/projects");
        assert.equal(answer.status, 401);
      } finally {
        await svc.stop();
      }
    },
  );

  await t.step(
    "API access: a plan without it is 401 on 5.0.0 (no 403 there), 403 on 6.0",
    async () => {
      const svc = await startTestService({ ...LEGACY, plan: "free" });
      try {
        const five = await v5(svc).call("GET", "/api/projects");
        assert.equal(five.status, 401);
        assert.equal(five.body.error.code, "API_ACCESS_DENIED");
        assert.equal((await svc.get("/api/v1/projects")).status, 403);
        const raw = await RawSocket.open("127.0.0.1", svc.service.ports.legacyWs!, { path: "/" });
        raw.send({ type: "auth", payload: {} });
        await until("an answer", () => raw.json().length > 0);
        assert.equal(raw.json()[0].payload.type, "AUTHENTICATION_FAILED");
        raw.destroy();
      } finally {
        await svc.stop();
      }
    },
  );

  const svc = await startTestService({
    ...LEGACY,
    tokenLifetimeDays: 90,
    httpRatePerSecond: 1,
    httpBurst: 40,
  });
  const ports = svc.service.ports;
  try {
    await t.step(
      "Token lifetime: a 5.0.0 pairing lives 30 days, and works on both interfaces",
      async () => {
        const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
        const paired = await remoteRequest(ports.legacyHttp!, "POST", "/api/pair", {
          body: { otp, deviceName: "Old deck" },
        });
        assert.equal(paired.status, 200, JSON.stringify(paired.body));
        const days = (Date.parse(paired.body.expiresAt) - Date.now()) / 86_400_000;
        assert.ok(days > 29.9 && days <= 30, `${days} days`);
        assert.equal(paired.headers.deprecation, "@1795392000");
        const auth = { authorization: `Bearer ${paired.body.token}` };
        for (
          const [port, path] of [[ports.legacyHttp!, "/api/projects"], [
            ports.http,
            "/api/v1/projects",
          ]]
        ) {
          assert.equal((await remoteRequest(port as number, "GET", path as string)).status, 401);
          assert.equal(
            (await remoteRequest(port as number, "GET", path as string, { headers: auth })).status,
            200,
          );
        }
        const otp6 = (await svc.post("/api/v1/pair/code", {})).body.otp;
        const six = await remoteRequest(ports.http, "POST", "/api/v1/pair", {
          body: { otp: otp6 },
        });
        const days6 = (Date.parse(six.body.expiresAt) - Date.now()) / 86_400_000;
        assert.ok(days6 > 89, "6.0 keeps the setting");
        const on5 = await remoteRequest(ports.legacyHttp!, "GET", "/api/active", {
          headers: { authorization: `Bearer ${six.body.token}` },
        });
        assert.equal(on5.status, 200, "a 6.0 pairing works on 5.0.0");
        // Over the 5.0.0 WebSocket, from a remote device.
        const raw = await RawSocket.open("127.0.0.1", ports.legacyWs!, {
          path: "/",
          localAddress: "127.0.0.2",
        });
        raw.send({ type: "auth", payload: { token: paired.body.token }, correlationId: "t" });
        await until("connected", () => raw.json().length > 0);
        assert.equal(raw.json()[0].payload.event, "connected");
        raw.destroy();
      },
    );

    await t.step(
      "One pairing: a device paired over the 5.0.0 WebSocket, revoked, is closed",
      async () => {
        const otp = (await svc.post("/api/v1/pair/code", {})).body.otp;
        const raw = await RawSocket.open("127.0.0.1", ports.legacyWs!, {
          path: "/",
          localAddress: "127.0.0.2",
        });
        raw.send({ type: "auth", payload: { otp, deviceName: "Desk" }, correlationId: "p" });
        await until("connected", () => raw.json().length > 0);
        const connected = raw.json()[0];
        assert.equal(connected.payload.event, "connected");
        const days = (JSON.parse(
              atob(connected.payload.token.split(".")[1].replace(/-/g, "+").replace(/_/g, "/")),
            ).exp * 1000 -
          Date.now()) / 86_400_000;
        assert.ok(days > 29.9 && days <= 30, `${days} days`);
        const devices = (await svc.get("/api/v1/devices")).body.devices;
        const desk = devices.find((d: { name: string }) => d.name === "Desk");
        const revoked = await fetch(`${svc.base}/api/v1/devices/${desk.deviceId}`, {
          method: "DELETE",
        });
        await revoked.body?.cancel();
        await until("the socket closed", () => raw.closeCode !== null);
        assert.equal(raw.closeCode, 1008);
      },
    );

    await t.step("Error codes: 5.0.0 HTTP answers only 400, 401, 404, 500, 503", async () => {
      const statuses = [
        (await remoteRequest(ports.legacyHttp!, "GET", "/api/projects")).status, // 401
        (await remoteRequest(ports.legacyHttp!, "POST", "/api/v1/devices/x")).status, // 404
        (await v5(svc).call("DELETE", "/api/projects")).status, // 405 on 6.0
        (await v5(svc).call("POST", "/api/v1/action", { action: { name: "ResumeAction" } })).status,
        (await v5(svc).call("POST", "/api/v1/action", "{oops" as unknown)).status,
      ];
      for (const status of statuses) assert.ok(V5_STATUSES.includes(status), `${status}`);
      assert.deepEqual(statuses, [401, 404, 404, 500, 400]);
    });

    await t.step("One rate budget per address across both interfaces, 503 on 5.0.0", async () => {
      let last = 0;
      for (let i = 0; i < 60 && last !== 429; i++) {
        last = (await remoteRequest(ports.http, "GET", "/health")).status;
      }
      assert.equal(last, 429, "the 6.0 budget is spent");
      const five = await remoteRequest(ports.legacyHttp!, "GET", "/health");
      assert.equal(five.status, 503, "and so is the 5.0.0 one");
      assert.ok(Number(five.headers["retry-after"]) >= 1);
    });
  } finally {
    await svc.stop();
  }
});

Deno.test("5.0.0 ports: off disables, a taken port is a warning and the listener is skipped", async () => {
  const taken = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (taken.addr as Deno.NetAddr).port;
  const svc = await startTestService({ legacyHttpPort: port, legacyWsPort: "off" });
  const wsOff = await startTestService({ legacyHttpPort: 0, legacyWsPort: "off" });
  try {
    const info = await new V5Http("127.0.0.1", wsOff.service.ports.legacyHttp!).call(
      "GET",
      "/api/info",
    );
    assert.equal(info.body.ports.ws, null, "the 5.0.0 WebSocket is off");
    assert.equal(svc.service.ports.legacyHttp, null);
    assert.equal(svc.service.ports.legacyWs, null);
    assert.equal((await svc.get("/api/v1/info")).body.ports.legacyHttp, null);
    assert.equal((await svc.get("/health")).status, 200, "the service runs");
  } finally {
    taken.close();
    await svc.stop();
    await wsOff.stop();
  }
});
