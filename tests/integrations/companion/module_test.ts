/**
 * The built Companion module, run as Companion runs it (a Node child speaking the host protocol
 * over IPC), against a real Cueport service started here.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { startTestService, type TestService } from "../../../tools/testing/service.ts";
import { proxiesFor, PROXY_HOST } from "./_proxy.ts";
import { ModuleHost } from "../../../integrations/companion/deno/host.ts";
import { decodePng } from "../../../server/media/render/codecs.ts";
import type { Raster } from "../../../server/media/render/raster.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { until } from "../../../tools/testing/until.ts";
import { CATALOG_PATH, catalogText } from "../../../integrations/companion/deno/catalog.ts";

function localConfig(svc: TestService): Record<string, unknown> {
  return {
    bonjour: null,
    host: "127.0.0.1",
    httpPort: svc.service.ports.http,
    wsPort: svc.service.ports.ws,
    pairingCode: "",
    deviceName: "Companion test",
  };
}

/** The PNG of an advanced feedback's value, decoded. */
// deno-lint-ignore no-explicit-any
async function pngOf(value: any): Promise<Raster> {
  const bytes = Buffer.from(String(value?.png64 ?? ""), "base64");
  assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG", "a PNG");
  return await decodePng(new Uint8Array(bytes));
}

/** The RGB of a pixel. */
function rgbAt(r: Raster, x: number, y: number): number[] {
  const i = (y * r.width + x) * 4;
  return [r.data[i]!, r.data[i + 1]!, r.data[i + 2]!];
}

const GREEN = [0, 204, 68];
const AMBER = [255, 170, 0];

Deno.test("catalog.json is what deno task companion:catalog generates from the catalog", async () => {
  assert.equal(await Deno.readTextFile(CATALOG_PATH), catalogText());
});

Deno.test("the manifest and HELP.md name the repository as README.md and docs/deployment.md do", async () => {
  const read = (path: string) => Deno.readTextFile(new URL(`../../../${path}`, import.meta.url));
  const repos = (text: string) => new Set(text.match(/https:\/\/github\.com\/[^/\s)"]+\/cueport/g));
  const readme = repos(await read("README.md"));
  assert.equal(readme.size, 1, "one repository in README.md");
  const [repo] = readme;
  assert.deepEqual(repos(await read("docs/deployment.md")), readme);
  const manifest = JSON.parse(await read("integrations/companion/companion/manifest.json"));
  assert.equal(manifest.repository, `git+${repo}.git`);
  assert.equal(manifest.bugs, `${repo}/issues`);
  assert.deepEqual(repos(await read("integrations/companion/companion/HELP.md")), readme);
});

Deno.test("the built module drives and follows a real service", needs("node"), async (t) => {
  // Position reports on (the player's clock moves only when the test advances it).
  const svc = await startTestService({ positionIntervalMs: 250 }, { demo: true });
  const host = await ModuleHost.start();
  try {
    await host.init(localConfig(svc));
    await host.until(() => host.status.status === "ok", "the connection to be OK");
    await host.until(() => host.variables.get("project_name"), "the project variable");

    await t.step("setActionDefinitions: every catalog action, Clips from the live state", () => {
      const catalog = JSON.parse(catalogText());
      for (const action of catalog.actions) assert.ok(host.actions[action.name], action.name);
      assert.ok(host.actions.PROJECT_UNDO && host.actions.PROJECT_REDO);
      const clipField = host.actions.TRIGGER_CLIP_IN.options.find((o: { id: string }) =>
        o.id === "clipID"
      );
      assert.ok(clipField.choices.some((c: { id: string }) => c.id === "clip-rings"));
      assert.ok(
        host.presets.presets["clip_clip-aurora"],
        "a Clip trigger preset of the active Song",
      );
      // Companion's host checks presets against the definitions: nothing for it to complain about.
      assert.deepEqual(host.logs.filter((l) => l.includes("preset definitions")), []);
    });

    await t.step("executeAction of a Clip trigger changes the service's play state", async () => {
      const answer = await host.executeAction("TRIGGER_CLIP_IN", {
        clipID: "clip-rings",
        activateSong: false,
        velocity: 100,
      });
      assert.equal(answer.success, true);
      const play = await svc.get("/api/v1/projects/demo/playstate");
      const rings = play.body.clips.find((c: { clipID: string }) => c.clipID === "clip-rings");
      assert.equal(rings?.state, "playing");
      assert.equal(rings?.velocity, 100);
    });

    await t.step("positions on the keys count from 1 (sent with base 1)", async () => {
      await host.executeAction("PLAY_CLIP_BY_INDEX_IN", {
        index: 4,
        songID: "song-opening",
        velocity: 127,
      });
      const play = await svc.get("/api/v1/projects/demo/playstate");
      const fourth = play.body.clips.find((c: { clipID: string }) => c.clipID === "clip-checker");
      assert.equal(fourth?.state, "playing", "the fourth Clip of the Song");
      await svc.post("/api/v1/action", { name: "STOP_CLIP_IN", params: ["clip-checker"] });
    });

    await t.step(
      "a change over HTTP by another client reaches variables and feedback values",
      async () => {
        await host.placeFeedbacks({
          muted: { feedbackId: "muted", options: {} },
          rings: { feedbackId: "clip_state", options: { clipID: "clip-rings", state: "playing" } },
          song: { feedbackId: "song_active", options: { songID: "song-midnight" } },
        });
        await host.until(
          () => host.feedbackValues.get("rings")?.value === true,
          "the Clip feedback",
        );
        assert.equal(host.feedbackValues.get("muted")?.value, false);
        await svc.post("/api/v1/action", { name: "MUTE_TOGGLE" });
        await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["A", 0.75] });
        await svc.post("/api/v1/action", {
          name: "SONG_SELECT_BY_ID",
          params: ["song-midnight", false],
        });
        await host.until(() => host.feedbackValues.get("muted")?.value === true, "muted feedback");
        await host.until(() => host.variables.get("control_a") === 0.75, "control_a");
        await host.until(() => host.variables.get("song_title") === "Midnight Drive", "song_title");
        await host.until(
          () => host.feedbackValues.get("song")?.value === true,
          "song_active feedback",
        );
        assert.equal(host.variables.get("muted"), true);
        assert.equal(host.variables.get("song_index"), 2);
      },
    );

    await t.step("SET_CONTROL relative steps start from the live value", async () => {
      await host.executeAction("SET_CONTROL", {
        controlID: "A",
        mode: "increase",
        value: 0,
        step: 0.1,
      });
      const live = await svc.get("/api/v1/projects/demo/playstate");
      assert.equal(live.body.controls.A, 0.85);
    });

    await t.step("dial ticks faster than the round trip all count", async () => {
      // Three ticks before any update comes back: each steps from where the Control is heading.
      const tick = { controlID: "B", mode: "decrease", value: 0, step: 0.1 };
      await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["B", 0.9] });
      await host.until(() => host.variables.get("control_b") === 0.9, "control_b at 0.9");
      await Promise.all([1, 2, 3].map(() => host.executeAction("SET_CONTROL", tick)));
      await host.until(() => host.variables.get("control_b") === 0.6, "three steps down");
      const live = await svc.get("/api/v1/projects/demo/playstate");
      assert.equal(live.body.controls.B, 0.6);
      // Updates win again: a change by another client is where the next tick starts.
      await svc.post("/api/v1/action", { name: "SET_CONTROL", params: ["B", 0.3] });
      await host.until(() => host.variables.get("control_b") === 0.3, "control_b from elsewhere");
      await host.executeAction("SET_CONTROL", tick);
      await host.until(() => host.variables.get("control_b") === 0.2, "one step from 0.3");
    });

    await t.step("the thumbnail feedback returns a PNG of the key's size", async () => {
      await host.placeFeedbacks({
        thumb: {
          feedbackId: "clip_thumbnail",
          options: { clipID: "clip-rings" },
          image: { width: 72, height: 58 },
        },
        bar: {
          feedbackId: "control_bar",
          options: { controlID: "A", color: 0x00ff00 },
          image: { width: 96, height: 96 },
        },
      });
      const thumb = await host.until(
        () => host.feedbackValues.get("thumb")?.value?.png64 && host.feedbackValues.get("thumb"),
        "thumbnail",
      );
      const png = await pngOf(thumb.value);
      assert.deepEqual([png.width, png.height], [72, 58]);
      assert.deepEqual(rgbAt(png, 1, 29), GREEN, "framed green: playing");
      assert.notDeepEqual(rgbAt(png, 36, 20), GREEN, "the picture inside the frame");
      const bar = await host.until(
        () => host.feedbackValues.get("bar")?.value?.png64 && host.feedbackValues.get("bar"),
        "bar",
      );
      const barPng = await pngOf(bar.value);
      assert.deepEqual([barPng.width, barPng.height], [96, 96]);
      // Control A is at 0.85: the bar is lit at 80 % of its width and dark at 90 %.
      assert.deepEqual(rgbAt(barPng, 2 + Math.floor(92 * 0.8), 85), [0, 255, 0]);
      assert.notDeepEqual(rgbAt(barPng, 2 + Math.floor(92 * 0.9), 85), [0, 255, 0]);

      // Paused by another client: the key is drawn again, framed amber.
      const before = host.feedbackValues.get("thumb")!.value.png64;
      await svc.post("/api/v1/action", { name: "PAUSE_IN", params: ["clip-rings"] });
      const paused = await host.until(
        () =>
          host.feedbackValues.get("thumb")?.value?.png64 !== before &&
          host.feedbackValues.get("thumb"),
        "the paused key",
      );
      assert.deepEqual(rgbAt(await pngOf(paused.value), 1, 29), AMBER, "framed amber: paused");
      await svc.post("/api/v1/action", { name: "RESUME_IN", params: ["clip-rings"] });
    });

    await t.step(
      "a discovered service (the bonjour field's host:port) is connected to",
      async () => {
        const ws = svc.service.ports.ws;
        await host.call("updateConfig", {
          label: "cueport",
          config: { ...localConfig(svc), host: "", bonjour: `127.0.0.1:${ws}` },
          secrets: { token: "" },
        });
        await host.until(() => host.status.status === "ok", "the discovered service");
        assert.equal(host.variables.get("project_name"), "Demo Show");
      },
    );

    await t.step(
      "a player crash: the module stays connected and follows the restarted player",
      async () => {
        await host.placeFeedbacks({
          checker: {
            feedbackId: "clip_state",
            options: { clipID: "clip-checker", state: "playing" },
          },
        });
        await host.until(
          () => host.feedbackValues.get("checker")?.value === false,
          "the checker key",
        );
        const oldPid = svc.service.supervisor.pid!;
        Deno.kill(oldPid, "SIGKILL");
        await until("a new player", () => {
          const pid = svc.service.supervisor.pid;
          return pid !== null && pid !== oldPid && svc.service.core.isReady;
        });
        await host.executeAction("TRIGGER_CLIP_IN", {
          clipID: "clip-checker",
          activateSong: false,
        });
        await host.until(
          () => host.feedbackValues.get("checker")?.value === true,
          "the state after the crash",
        );
        assert.equal(host.status.status, "ok");
      },
    );

    await t.step("positions and recording reach the time variables", async () => {
      await host.placeFeedbacks({
        rec: { feedbackId: "recording", options: { state: "recording" } },
      });
      await svc.post("/api/v1/action", { name: "SONG_SELECT_BY_ID", params: ["song-opening"] });
      await svc.post("/api/v1/action", { name: "PLAY_IN" });
      await svc.advance(3_000); // the player's virtual clock: position reports every 250 ms
      await host.until(() => host.variables.get("song_position") === "0:03", "the Song position");
      assert.equal(host.variables.get("song_remaining"), "0:27"); // the opening Song is 30 s
      await svc.post("/api/v1/action", { name: "RECORD_TOGGLE", params: ["now"] });
      await host.until(
        () => host.feedbackValues.get("rec")?.value === true,
        "the recording feedback",
      );
      assert.equal(host.variables.get("recording_state"), "recording");
      assert.match(String(host.variables.get("recording_time")), /^\d+:\d\d$/);
      await svc.post("/api/v1/action", { name: "RECORD_TOGGLE" });
      await svc.post("/api/v1/action", { name: "STOP_IN" });
    });

    await t.step("a refused action is a log line, not a failure", async () => {
      const answer = await host.executeAction("PAUSE_IN", { clipID: "no-such-clip" });
      assert.equal(answer.success, true);
      await host.until(() => host.logs.some((l) => l.includes("PAUSE_IN refused")), "the log line");
    });

    await t.step("undo from a button undoes the last edit", async () => {
      await svc.post("/api/v1/edit", { name: "project.rename", params: { name: "Renamed" } });
      await host.until(
        () => host.variables.get("project_name") === "Renamed",
        "the renamed project",
      );
      await host.executeAction("PROJECT_UNDO", {});
      await host.until(() => host.variables.get("project_name") !== "Renamed", "the undone rename");
      assert.equal(
        (await svc.get("/api/v1/projects/demo")).body.name,
        host.variables.get("project_name"),
      );
    });

    await t.step("a Clip added by an edit joins the dropdowns and the Clip presets", async () => {
      await svc.post("/api/v1/action", { name: "SONG_SELECT_BY_ID", params: ["song-opening"] });
      const added = await svc.post("/api/v1/edit", {
        name: "clip.add",
        params: { songID: "song-opening", fileId: "file-sunset", name: "Encore Sunset" },
      });
      assert.equal(added.status, 200, JSON.stringify(added.body));
      const choice = await host.until(
        () =>
          host.actions.TRIGGER_CLIP_IN.options[0].choices.find((c: { label: string }) =>
            c.label.endsWith("Encore Sunset")
          ),
        "the new Clip in the dropdown",
      );
      await host.until(() => host.presets.presets[`clip_${choice.id}`], "its trigger preset");
    });
  } finally {
    await host.stop();
    await svc.stop();
  }
});

Deno.test(
  "the module pairs from its config page as a remote device and survives a service restart",
  needs("node"),
  async () => {
    // The module reaches the service through 127.0.0.5 from 127.0.0.2: a device on the network.
    const allowedHosts = [PROXY_HOST];
    let svc = await startTestService({ allowedHosts }, { demo: true });
    const proxies = await proxiesFor(svc.service.ports);
    const host = await ModuleHost.start();
    try {
      const config = {
        ...localConfig(svc),
        host: PROXY_HOST,
        httpPort: proxies.http.port,
        wsPort: proxies.ws.port,
        deviceName: "Stage Deck",
      };
      // A wrong code is tried once: cleared from the config and shown in the status.
      await host.init({ ...config, pairingCode: "000000" });
      const cleared = await host.until(() => host.savedConfigs.at(-1), "the cleared code");
      assert.equal(cleared.config.pairingCode, "", "a refused code is not sent again");
      await host.until(
        () => /Pairing refused/.test(host.status.message ?? ""),
        "the refusal in the status",
      );

      const code = (await svc.post("/api/v1/pair/code", {})).body.otp;
      await host.call("updateConfig", {
        label: "cueport",
        config: { ...config, pairingCode: code },
        secrets: { token: "" },
      });
      const saved = await host.until(
        () => host.savedConfigs.find((c) => c.secrets?.token),
        "the saved token",
      );
      assert.equal(saved.config.pairingCode, "", "the code is cleared once used");
      await host.until(() => host.status.status === "ok", "the paired connection");
      assert.doesNotMatch(host.status.message ?? "", /refused/, "the new code cleared the refusal");
      const devices = (await svc.get("/api/v1/devices")).body;
      assert.ok(JSON.stringify(devices).includes("Stage Deck"));

      await svc.stop({ keepData: true });
      await host.until(() => host.status.status !== "ok", "the drop to be seen");
      // Renamed while the service is down: no update will say so, only the resync can.
      const file = `${svc.dataDir}/projects/demo/project.json`;
      const project = JSON.parse(await Deno.readTextFile(file));
      await Deno.writeTextFile(file, JSON.stringify({ ...project, name: "Renamed Offline" }));
      // Free ports (the old ones may be taken by now): the proxies point at the new ones.
      svc = await startTestService({ allowedHosts }, { dataDir: svc.dataDir });
      proxies.http.retarget(svc.service.ports.http);
      proxies.ws.retarget(svc.service.ports.ws);
      await host.until(() => host.status.status === "ok", "the reconnect");
      await host.until(
        () => host.variables.get("project_name") === "Renamed Offline",
        "the resync",
      );
      await host.executeAction("TRIGGER_CLIP_IN", {
        clipID: "clip-aurora",
        activateSong: false,
        velocity: 127,
      });
      await host.until(
        () => host.variables.get("clip_state") === "playing",
        "the state after the restart",
      );

      // Revoked on the show machine: the status says so, and a new code pairs it again.
      const listed = (await svc.get("/api/v1/devices")).body;
      const device = JSON.stringify(listed).match(/"deviceId":"([^"]+)","name":"Stage Deck"/);
      assert.ok(device, JSON.stringify(listed));
      await svc.get(`/api/v1/devices/${device[1]}`, { method: "DELETE" });
      await host.until(() => host.status.status === "authentication_failure", "the refused auth");
      const again = (await svc.post("/api/v1/pair/code", {})).body.otp;
      const saves = host.savedConfigs.length;
      await host.call("updateConfig", {
        label: "cueport",
        config: { ...config, pairingCode: again },
        secrets: { token: "revoked" },
      });
      await host.until(() => host.savedConfigs.length > saves, "the new token");
      await host.until(() => host.status.status === "ok", "the connection paired again");

      // A wrong code while paired: still connected on the token, the refusal in the status.
      const token = host.savedConfigs.at(-1)!.secrets.token;
      await host.call("updateConfig", {
        label: "cueport",
        config: { ...config, pairingCode: "000000" },
        secrets: { token },
      });
      await host.until(
        () => host.status.status === "ok" && /Pairing refused/.test(host.status.message ?? ""),
        "connected, with the refusal shown",
      );
      assert.equal(host.savedConfigs.at(-1)!.config.pairingCode, "");
    } finally {
      await host.stop();
      await proxies.close();
      await svc.stop();
    }
  },
);

/** The entries of the service's device list named `name`. */
async function devicesNamed(svc: TestService, name: string, token: string): Promise<unknown[]> {
  const answer = await svc.get("/api/v1/devices", {
    headers: { authorization: `Bearer ${token}` },
  });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  const list: { name?: string }[] = answer.body.devices;
  return list.filter((d) => d.name === name);
}

Deno.test(
  "on the show machine the approval's token is kept: one device entry, actions pass without the localhost exemption",
  needs("node"),
  async () => {
    const svc = await startTestService({ localhostAuthExempt: false }, { demo: true });
    let host = await ModuleHost.start();
    try {
      await host.init(localConfig(svc));
      await host.until(() => host.status.status === "ok", "the approved connection");
      const saved = await host.until(
        () => host.savedConfigs.find((c) => c.secrets?.token),
        "the approval's token saved",
      );
      // A config save sends the secrets Companion keeps: the same device, no new approval.
      await host.call("updateConfig", {
        label: "cueport",
        config: { ...localConfig(svc), deviceName: "Companion test" },
        secrets: saved.secrets,
      });
      await host.until(() => host.status.status === "ok", "the connection after the save");
      // Companion restarted: the module starts again with what was saved.
      await host.stop();
      host = await ModuleHost.start();
      await host.init(saved.config, saved.secrets);
      await host.until(() => host.status.status === "ok", "the connection after a restart");
      assert.equal(
        (await devicesNamed(svc, "Companion test", saved.secrets.token)).length,
        1,
        "one device entry",
      );

      const answer = await host.executeAction("TRIGGER_CLIP_IN", {
        clipID: "clip-rings",
        activateSong: false,
        velocity: 100,
      });
      assert.equal(answer.success, true);
      await host.until(
        () => host.variables.get("clip_state") === "playing",
        "the action through HTTP with the token",
      );
      assert.deepEqual(host.logs.filter((l) => l.includes("refused")), []);
    } finally {
      await host.stop();
      await svc.stop();
    }
  },
);

Deno.test(
  "a link that stops forwarding without closing (a pulled cable) is seen and reconnected",
  needs("node"),
  async () => {
    const svc = await startTestService({ allowedHosts: [PROXY_HOST] }, { demo: true });
    // From 127.0.0.1: a client on the show machine, so no pairing is needed here.
    const proxies = await proxiesFor(svc.service.ports, "127.0.0.1");
    const host = await ModuleHost.start();
    try {
      await host.init({
        ...localConfig(svc),
        host: PROXY_HOST,
        httpPort: proxies.http.port,
        wsPort: proxies.ws.port,
        // A dead link is seen within two checks (3 s): a pong a busy machine delays by more than
        // 0.4 s (the 200 ms this test had) is not a dead link, and failed it once at load 30.
        linkCheckMs: 1500,
      });
      await host.until(() => host.status.status === "ok", "the connection");
      await host.until(() => host.variables.get("project_name"), "the state");
      // Idle: only the pings go up; the service's pongs keep the link OK.
      const start = proxies.ws.chunksUp;
      await until("four pings", () => proxies.ws.chunksUp >= start + 4);
      assert.equal(host.status.status, "ok", "answered pings keep the link");

      proxies.ws.freeze();
      proxies.http.freeze();
      await host.until(() => host.status.status !== "ok", "the dead link to be seen");
      proxies.ws.thaw();
      proxies.http.thaw();
      await host.until(() => host.status.status === "ok", "the reconnect");
      assert.ok(host.logs.some((l) => l.includes("No answer from")), host.logs.join("\n"));
    } finally {
      await host.stop();
      await proxies.close();
      await svc.stop();
    }
  },
);

Deno.test(
  "a request the service never answers is refused after five link checks, and the link reopened",
  needs("node"),
  async () => {
    // A service that answers pings and `auth`, and nothing else.
    let connections = 0;
    const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen: () => {} }, (req) => {
      const { socket, response } = Deno.upgradeWebSocket(req);
      connections++;
      socket.onmessage = (e) => {
        const msg = JSON.parse(String(e.data));
        if (msg.type === "auth") {
          socket.send(
            JSON.stringify({ type: "response", id: msg.id, data: { authenticated: true } }),
          );
        }
      };
      return response;
    });
    const host = await ModuleHost.start();
    try {
      await host.init({
        bonjour: null,
        host: "127.0.0.1",
        httpPort: server.addr.port,
        wsPort: server.addr.port,
        pairingCode: "",
        deviceName: "Companion test",
        linkCheckMs: 100,
      }, { token: "a-token" });
      await host.until(
        () => host.logs.some((l) => /No answer to subscribe in 500 ms/.test(l)),
        "the refused request",
      );
      await until("the link reopened", () => connections >= 2);
      assert.notEqual(host.status.status, "ok");
    } finally {
      await host.stop();
      await server.shutdown();
    }
  },
);
