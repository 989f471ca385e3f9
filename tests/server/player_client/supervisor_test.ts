import assert from "node:assert/strict";
import { RpcError, RpcErrorCode } from "../../../protocol/jsonrpc.ts";
import { Core, type CueportError } from "../../../server/core/mod.ts";
import {
  bundledPlayerCommand,
  PlayerSupervisor,
  processLauncher,
} from "../../../server/player_client/mod.ts";
import { fixtureDataDir } from "../../_helpers/fixture.ts";
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
    assert.ok(await supervisor.waitReady(20_000), logs.join("\n"));
    assert.ok(supervisor.pid);
    await core.runAction({ name: "TRIGGER_CLIP_IN", params: ["c1"] });
    assert.equal(core.model.playstate("show")!.clips[0]!.state, "playing");
    await core.advanceClock(10_000);
    assert.equal(core.model.playstate("show")!.clips.length, 0);
  } finally {
    await supervisor.stop();
    core.close();
    await Deno.remove(dataDir, { recursive: true });
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
    assert.ok(await supervisor.waitReady(5000));
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
