/**
 * The built Companion module, run as Companion runs it (a Node child speaking the host protocol
 * over IPC), against a real Cueport service started here.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { startTestService, type TestService } from "../../_helpers/service.ts";
import { remoteProxies } from "../../_helpers/browser.ts";
import { ModuleHost } from "./_module_host.ts";
import { needs } from "../../_helpers/peers.ts";
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

// deno-lint-ignore no-explicit-any
function pngOf(value: any): { width: number; height: number; rgbAt0: number[] } {
  const bytes = Buffer.from(String(value?.png64 ?? ""), "base64");
  assert.equal(bytes.subarray(1, 4).toString("latin1"), "PNG", "a PNG");
  return { width: bytes.readUInt32BE(16), height: bytes.readUInt32BE(20), rgbAt0: [] };
}

Deno.test("catalog.json is what deno task companion:catalog generates from the catalog", async () => {
  assert.equal(await Deno.readTextFile(CATALOG_PATH), catalogText());
});

Deno.test("the built module drives and follows a real service", needs("node"), async (t) => {
  const svc = await startTestService({}, { demo: true });
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
      const png = pngOf(thumb.value);
      assert.deepEqual([png.width, png.height], [72, 58]);
      const bar = await host.until(
        () => host.feedbackValues.get("bar")?.value?.png64 && host.feedbackValues.get("bar"),
        "bar",
      );
      const barPng = pngOf(bar.value);
      assert.deepEqual([barPng.width, barPng.height], [96, 96]);
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
    const allowedHosts = ["127.0.0.5"];
    let svc = await startTestService({ allowedHosts }, { demo: true });
    const ports = { http: svc.service.ports.http, ws: svc.service.ports.ws };
    const proxies = await remoteProxies(ports);
    const host = await ModuleHost.start();
    try {
      const code = (await svc.post("/api/v1/pair/code", {})).body.otp;
      const config = {
        ...localConfig(svc),
        host: "127.0.0.5",
        pairingCode: code,
        deviceName: "Stage Deck",
      };
      await host.init(config);
      const saved = await host.until(
        () => host.savedConfigs.find((c) => c.secrets?.token),
        "the saved token",
      );
      assert.equal(saved.config.pairingCode, "", "the code is cleared once used");
      await host.until(() => host.status.status === "ok", "the paired connection");
      const devices = (await svc.get("/api/v1/devices")).body;
      assert.ok(JSON.stringify(devices).includes("Stage Deck"));

      await svc.stop({ keepData: true });
      await host.until(() => host.status.status !== "ok", "the drop to be seen");
      svc = await startTestService({ allowedHosts, httpPort: ports.http, wsPort: ports.ws }, {
        dataDir: svc.dataDir,
      });
      await host.until(() => host.status.status === "ok", "the reconnect");
      await host.executeAction("TRIGGER_CLIP_IN", {
        clipID: "clip-aurora",
        activateSong: false,
        velocity: 127,
      });
      await host.until(
        () => host.variables.get("clip_state") === "playing",
        "the state after the restart",
      );
    } finally {
      await host.stop();
      await proxies.close();
      await svc.stop();
    }
  },
);
