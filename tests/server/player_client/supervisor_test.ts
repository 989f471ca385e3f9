import assert from "node:assert/strict";
import { RpcError, RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { Core, type CueportError } from "../../../server/core/mod.ts";
import {
  bundledPlayerCommand,
  PlayerSupervisor,
  processLauncher,
} from "../../../server/player_client/mod.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { standInLauncher } from "./_stand_in.ts";

Deno.test("PlayerSupervisor runs the bundled player over real stdio, on a virtual clock", async () => {
  const dataDir = await fixtureDataDir();
  const logs: string[] = [];
  const command = bundledPlayerCommand({
    dataDir,
    plan: "pro",
    approval: "approve",
    virtualClock: true,
    positionIntervalMs: 0,
    historyLimit: 100,
    ffmpeg: "off",
    output: "none",
  });
  assert.ok(command.includes("player"), "the word player is on the command line");
  const supervisor = new PlayerSupervisor(processLauncher(command, (l) => logs.push(l)));
  const core = new Core(supervisor, { coalesceMs: 0 });
  supervisor.start();
  try {
    assert.ok(await supervisor.waitReady(120_000), logs.join("\n"));
    assert.ok(supervisor.pid);
    await core.runAction({ name: "TRIGGER_CLIP_IN", params: ["c1"] });
    assert.equal(core.model.playstate("show")!.clips[0]!.state, "playing");
    await core.advanceClock(10_000);
    assert.equal(core.model.playstate("show")!.clips.length, 0);
    // Actions of one turn go to the player as one action.batch (protocol 1.11), each answered.
    const set = (value: number) => core.runAction({ name: "SET_CONTROL", params: ["B", value] });
    const results = await Promise.all([
      set(0.1),
      set(0.2),
      core.runAction({ name: "TRIGGER_CLIP_IN", params: ["nope"] }).catch((e: CueportError) =>
        e.message
      ),
      set(0.3),
    ]);
    assert.deepEqual(results.map((r) => typeof r === "string" ? r : r.message), [
      "Control B = 0.1: 1 Target(s) written",
      "Control B = 0.2: 1 Target(s) written",
      'Clip "nope" does not exist in project "show"',
      "Control B = 0.3: 1 Target(s) written",
    ]);
    assert.equal(core.model.live("show")?.controls.B, 0.3);
  } finally {
    await supervisor.stop();
    core.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PlayerSupervisor batches the actions of one turn for a 1.11 player, not for an older one", async () => {
  for (const isLegacy of [false, true]) {
    const launcher = standInLauncher({ isLegacy });
    const supervisor = new PlayerSupervisor(launcher, { backoff: { initialMs: 1 } });
    supervisor.start();
    try {
      assert.ok(await supervisor.waitReady(120_000));
      const params = { name: "SET_CONTROL", params: { controlID: "A", value: 1 }, projectId: null };
      void supervisor.request("action.run", params).catch(() => {});
      void supervisor.request("action.run", params).catch(() => {});
      const held = launcher.players[0]!.held;
      // Polled: the write reaches the stand-in within a few turns (the cap only bounds a hang).
      for (
        let turn = 0;
        turn < 10_000 && !held.some((r) => r.method.startsWith("action."));
        turn++
      ) {
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
      const methods = held.map((r) => r.method).filter((m) => m.startsWith("action."));
      assert.deepEqual(methods, isLegacy ? ["action.run", "action.run"] : ["action.batch"]);
    } finally {
      await supervisor.stop(10); // the stand-in does not exit by itself
    }
  }
});

Deno.test("PlayerSupervisor reports not-ready and keeps retrying when the command cannot start", async () => {
  const supervisor = new PlayerSupervisor(processLauncher(["/nonexistent/player"], () => {}), {
    backoff: { initialMs: 1, maxMs: 5 },
  });
  supervisor.start();
  try {
    assert.equal(await supervisor.waitReady(100), false);
    assert.ok(supervisor.restarts >= 2, `retried ${supervisor.restarts} times`);
    const error = await supervisor.request("state.get", undefined).catch((e: CueportError) =>
      e
    ) as CueportError;
    assert.equal(error.code, "NOT_READY");
  } finally {
    await supervisor.stop();
  }
});

Deno.test("PlayerSupervisor checks the results of checked methods: one that does not fit is a player error naming the field", async () => {
  const launcher = standInLauncher({
    answers: {
      "media.locate": { size: 1, modifiedAt: 2 },
      "camera.frame": { path: "/tmp/c.png", capturedAt: 3, future: true },
      "action.run": { applied: true, message: "done", future: true },
    },
  });
  const supervisor = new PlayerSupervisor(launcher, { backoff: { initialMs: 1 } });
  supervisor.start();
  try {
    assert.ok(await supervisor.waitReady(120_000));
    const error = await supervisor.request("media.locate", { projectId: null, fileId: "f" })
      .catch((e: unknown) => e);
    assert.ok(error instanceof RpcError, String(error));
    assert.equal(error.code, RpcErrorCode.INTERNAL_ERROR);
    assert.match(error.message, /^Invalid result of media\.locate: result\.path: /);
    // A result that fits is kept without the fields the service does not know.
    const frame = await supervisor.request("camera.frame", { cameraId: "c" });
    assert.deepEqual(frame, { path: "/tmp/c.png", capturedAt: 3 });
    // An action's answer (the hot path) is read as it comes.
    const outcome = await supervisor.request("action.run", { name: "PANIC" });
    assert.deepEqual(outcome, { applied: true, message: "done", future: true });
  } finally {
    await supervisor.stop(50);
  }
});
