import assert from "node:assert/strict";
import { Core, CueportError, type UpdateBatch } from "../../../server/core/mod.ts";
import { PlayerSupervisor } from "../../../server/player_client/mod.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import { inProcessLauncher } from "../../../tools/testing/in_process.ts";

async function startCore() {
  const dataDir = await fixtureDataDir();
  const launcher = inProcessLauncher(dataDir);
  const supervisor = new PlayerSupervisor(launcher, { backoff: { initialMs: 1 } });
  const core = new Core(supervisor, { coalesceMs: 0 });
  const batches: UpdateBatch[] = [];
  core.bus.subscribe((b) => batches.push(b));
  supervisor.start();
  assert.ok(await supervisor.waitReady(120_000));
  const close = async () => {
    await supervisor.stop();
    core.close();
    await Deno.remove(dataDir, { recursive: true });
  };
  return { core, supervisor, launcher, batches, close };
}

function codeOf(error: unknown): string {
  assert.ok(error instanceof CueportError, String(error));
  return error.code;
}

Deno.test("Core.runAction() answers after the read model shows the change", async () => {
  const t = await startCore();
  try {
    const result = await t.core.runAction({
      name: "PLAY_CLIP_BY_INDEX_IN",
      params: [2],
      base: 1,
      velocity: 100,
    });
    assert.deepEqual(result, {
      action: "PLAY_CLIP_BY_INDEX_IN",
      projectId: "show",
      params: { index: 1 },
      velocity: 100,
      applied: true,
      message: 'Clip "c2" playing',
    });
    const play = t.core.model.playstate("show")!;
    assert.deepEqual(play.clips.map((c) => [c.clipID, c.state, c.velocity]), [[
      "c2",
      "playing",
      100,
    ]]);
    await t.core.runAction({ name: "SET_CONTROL", params: ["a", 0.3] });
    assert.equal(t.core.model.live("show").params.c1!.opacity, 0.3);
    await t.core.runAction({ name: "CLIP_DIRECTION", params: ["c3", "backward"] });
    assert.equal(t.core.model.clip("show", "c3")!.direction, "backward");
    assert.equal(t.core.model.project("show")!.revision, 1);
    await t.core.runAction({ name: "MUTE_TOGGLE" });
    assert.equal(t.core.model.appState!.muted, true);
  } finally {
    await t.close();
  }
});

Deno.test("Core's read model equals the player's own state after many actions", async () => {
  const t = await startCore();
  try {
    const script: Array<[string, unknown[]]> = [
      ["PLAY_IN", []],
      ["TRIGGER_CLIP_IN", ["c2"]],
      ["NEXT_CLIP_IN", [true]],
      ["SONG_SELECT_IN", [1, false]],
      ["SEEK_CLIP_IN", ["c5", 0.5]],
      ["SET_PARAM", ["clip:c6/hue", 7]],
      ["OUTPUT_LEVEL_IN", [0.6]],
      ["RECORD_TOGGLE", ["next-trigger"]],
      ["TRIGGER_CLIP_IN", ["c6", true]],
      ["OPEN_EDITOR", ["effect", "fx-blur"]],
      ["CLIP_DIRECTION", ["c6", "backward"]],
      ["STOP_ALL_CLIPS_IN", [true]],
    ];
    for (const [name, params] of script) await t.core.runAction({ name, params });
    await t.core.runAction({ name: "RECORD_TOGGLE" });
    const player = t.launcher.players.at(-1)!.app.snapshot();
    assert.deepEqual(t.core.model.snapshot(), player);
  } finally {
    await t.close();
  }
});

Deno.test("Core.runAction() maps failures to stable codes", async () => {
  const t = await startCore();
  try {
    assert.equal(
      codeOf(await t.core.runAction({ name: "NOPE" }).catch((e) => e)),
      "INVALID_MESSAGE",
    );
    assert.equal(
      codeOf(await t.core.runAction({ name: "PLAY_IN", projectID: "ghost" }).catch((e) => e)),
      "NOT_FOUND",
    );
    const refused = await t.core.runAction({ name: "PAUSE_IN" }).catch((e) => e);
    assert.equal(codeOf(refused), "ACTION_FAILED");
    assert.equal(refused.message, "Nothing is playing");
    assert.equal(refused.status, 500);
  } finally {
    await t.close();
  }
});

Deno.test("player crash mid-request: pending rejected, not ready, restarted, full update sent", async () => {
  const t = await startCore();
  try {
    t.core.bus.flush();
    const fullsBefore = t.batches.filter((b) =>
      b.updates.some((u) => u.updateType === "full")
    ).length;
    // a request the player will never answer: the crash comes first
    const pending = t.supervisor.request("clock.advance", { ms: 1 });
    await t.launcher.crash();
    assert.equal(codeOf(await pending.catch((e) => e)), "NOT_READY");
    assert.equal(t.core.isReady, false);
    assert.equal(codeOf(await t.core.runAction({ name: "PLAY_IN" }).catch((e) => e)), "NOT_READY");
    assert.ok(await t.supervisor.waitReady(120_000));
    assert.equal(t.supervisor.restarts, 1);
    assert.equal(t.launcher.players.length, 2);
    t.core.bus.flush();
    const fulls = t.batches.filter((b) => b.updates.some((u) => u.updateType === "full")).length;
    assert.equal(fulls, fullsBefore + 1);
    assert.equal((await t.core.runAction({ name: "PLAY_IN" })).applied, true);
  } finally {
    await t.close();
  }
});

Deno.test("Core.advanceClock() moves the player's virtual clock", async () => {
  const t = await startCore();
  try {
    await t.core.runAction({ name: "PLAY_CLIP_IN", params: ["c1"] });
    assert.equal(await t.core.advanceClock(4000), 4000);
    assert.equal(t.core.model.playstate("show")!.clips.length, 1);
    await t.core.advanceClock(6000);
    assert.equal(t.core.model.playstate("show")!.clips.length, 0, "the Clip ended on the clock");
  } finally {
    await t.close();
  }
});
