import assert from "node:assert/strict";
import { CueportError } from "../../../server/core/errors.ts";
import { PlayerSupervisor, type SupervisorOptions } from "../../../server/player_client/mod.ts";
import { ManualClock, type StandInBehaviour, standInLauncher } from "./_stand_in.ts";
import { until } from "../../../tools/testing/until.ts";

/** A supervisor of stand-ins on a manual clock, ready; the lines it logged in `logs`. */
async function supervised(
  behaviour: Partial<StandInBehaviour> = {},
  options: SupervisorOptions = {},
) {
  const clock = new ManualClock();
  const launcher = standInLauncher(behaviour);
  const logs: string[] = [];
  const supervisor = new PlayerSupervisor(launcher, {
    clock,
    silentMs: 30_000,
    stuckMs: 300_000,
    backoff: { initialMs: 1 },
    log: (level, message) => logs.push(`${level} ${message}`),
    ...options,
  });
  supervisor.start();
  if (behaviour.answersInitialize !== false) assert.ok(await supervisor.waitReady(120_000));
  /** Waits until the supervisor has heard the heartbeat a tick asked for (a player that answers). */
  const heard = () => {
    const before = supervisor.heartbeats;
    return until("a heartbeat answer", () => supervisor.heartbeats > before || !supervisor.isReady);
  };
  /** Waits for the messages a tick set off, when no answer is coming. */
  const quiet = () => new Promise<void>((resolve) => setTimeout(resolve, 0));
  return { clock, launcher, logs, supervisor, heard, quiet };
}

const hungLines = (logs: string[]) => logs.filter((l) => l.includes("Player hung"));

Deno.test("PlayerSupervisor keeps a slow player whose heartbeats are answered: the answer comes, with one slow line", async () => {
  const t = await supervised({ busy: "edit.apply" });
  try {
    const answer = t.supervisor.request("edit.apply", { projectId: null, edits: [] });
    await until("the edit reaches the player", () => t.launcher.players[0]!.held.length === 1);
    // Twelve times the old 5 s deadline, with the player busy on it all along.
    await t.clock.advance(60_000, t.heard);
    assert.equal(t.launcher.players.length, 1, "not restarted");
    await t.launcher.players[0]!.answer("edit.apply", { projectId: "show", revision: 2 });
    assert.deepEqual(await answer, { projectId: "show", revision: 2 });
    assert.deepEqual(hungLines(t.logs), []);
    const slow = t.logs.filter((l) => l.includes("Player slow but working"));
    assert.equal(slow.length, 1, t.logs.join("\n"));
    assert.match(slow[0]!, /^warn Player slow but working: edit\.apply answered after 60\.0 s; /);
    assert.match(slow[0]!, /busy edit\.apply/);
    assert.equal(t.supervisor.restarts, 0);
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor restarts a silent player after playerTimeoutMs, saying so with the figures; what it was asked is answered unknown", async () => {
  const t = await supervised();
  try {
    const edit = t.supervisor.request("edit.apply", { projectId: null, edits: [] })
      .catch((e: unknown) => e);
    await until("the edit reaches the player", () => t.launcher.players[0]!.held.length === 1);
    await t.clock.advance(5_000, t.heard);
    t.launcher.behaviour.heartbeats = false; // its loop stops: no answer, no message
    await t.clock.advance(29_000, t.quiet);
    assert.equal(t.launcher.players.length, 1, "not before the bound");
    await t.clock.advance(2_000, t.quiet);
    await until("the restart", () => t.launcher.players.length === 2);
    const lines = hungLines(t.logs);
    assert.equal(lines.length, 1, t.logs.join("\n"));
    assert.match(
      lines[0]!,
      /^error Player hung \(silent: no heartbeat answered and no message for 30\.0 s \(bound 30\.0 s\); handled 0, queued 0, idle, 1 requests pending \(oldest edit\.apply for 3\d\.0 s\), last heartbeat 3\d\.0 s ago, last message 3\d\.0 s ago\); restarting it$/,
    );
    const error = await edit;
    assert.ok(error instanceof CueportError);
    assert.equal(error.code, "NOT_READY");
    assert.match(
      error.message,
      /declared hung before answering edit\.apply, so whether it was done is unknown/,
    );
    assert.ok(t.launcher.players[0]!.isClosed, "the hung one was ended");
    t.launcher.behaviour.heartbeats = true;
    assert.ok(await t.supervisor.waitReady(120_000));
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor restarts a player whose loop turns but whose order is stuck for playerStuckMs", async () => {
  const t = await supervised({ busy: "projects.reload" }, { stuckMs: 120_000 });
  try {
    void t.supervisor.request("projects.reload", undefined).catch(() => {});
    await until("the reload reaches the player", () => t.launcher.players[0]!.held.length === 1);
    await t.clock.advance(110_000, t.heard);
    assert.equal(t.launcher.players.length, 1, "heartbeats answered: not before the long bound");
    await t.clock.advance(15_000, t.heard);
    await until("the restart", () => t.launcher.players.length === 2);
    assert.match(
      hungLines(t.logs)[0] ?? t.logs.join("\n"),
      /Player hung \(stuck: heartbeats answered, but projects\.reload held the order with no progress for 120\.0 s \(bound 120\.0 s\)/,
    );
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor counts a moving handled counter as progress: a busy order that advances is kept", async () => {
  const t = await supervised({ busy: "edit.apply" }, { stuckMs: 20_000 });
  try {
    void t.supervisor.request("edit.apply", { projectId: null, edits: [] }).catch(() => {});
    await until("the edit reaches the player", () => t.launcher.players[0]!.held.length === 1);
    for (let i = 0; i < 10; i++) {
      t.launcher.behaviour.handled++; // other work moves through the order
      await t.clock.advance(10_000, t.heard);
    }
    assert.equal(t.launcher.players.length, 1);
    assert.deepEqual(hungLines(t.logs), []);
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor counts no silence while the service itself was starved", async () => {
  const t = await supervised();
  try {
    t.launcher.behaviour.heartbeats = false;
    await t.clock.advance(2_000, t.quiet); // two ticks without an answer
    // A minute passes with no tick (the service's own loop did not turn): its answers could be
    // waiting unread in the pipe, so that minute is not held against the player.
    t.clock.jump(60_000);
    await t.clock.advance(1_000, t.quiet);
    assert.equal(t.launcher.players.length, 1);
    assert.deepEqual(hungLines(t.logs), []);
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor judges a player without heartbeats (protocol 1.4) by any message it sends while requests wait", async () => {
  const t = await supervised({ isLegacy: true }, { stuckMs: 100_000 });
  try {
    await until(
      "the no-heartbeat line",
      () => t.logs.some((l) => l.includes("answers no heartbeat")),
    );
    await t.clock.advance(200_000, t.quiet);
    assert.equal(t.launcher.players.length, 1, "an idle player owes nothing");
    void t.supervisor.request("edit.apply", { projectId: null, edits: [] }).catch(() => {});
    await until("the edit reaches the player", () => t.launcher.players[0]!.held.length === 1);
    await t.clock.advance(90_000, t.quiet);
    await t.launcher.players[0]!.notify("log", { level: "info", message: "still copying" });
    await t.clock.advance(90_000, t.quiet);
    assert.equal(t.launcher.players.length, 1, "a message 90 s ago: alive");
    await t.clock.advance(15_000, t.quiet);
    await until("the restart", () => t.launcher.players.length === 2);
    assert.match(hungLines(t.logs)[0]!, /silent: no message for 100\.0 s while requests waited/);
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor waits for a slow start up to the handshake bound, then restarts it", async () => {
  const t = await supervised({ answersInitialize: false }, { handshakeTimeoutMs: 120_000 });
  try {
    await until("the launch", () => t.launcher.players.length === 1);
    await t.clock.advance(110_000, t.quiet);
    assert.equal(t.launcher.players.length, 1, "opening a large Project on a busy machine");
    await t.clock.advance(10_000, t.quiet);
    await until("the restart", () => t.launcher.players.length === 2);
    assert.match(hungLines(t.logs)[0]!, /no answer to initialize 120\.0 s after its start/);
    assert.ok(t.logs.every((l) => !l.includes("handshake failed")), "said once, as a hang");
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor writes at most one slow line a minute, counting the others", async () => {
  const t = await supervised({}, { slowMs: 5_000 });
  try {
    const player = t.launcher.players[0]!;
    for (let i = 0; i < 4; i++) {
      const answer = t.supervisor.request("camera.frame", { cameraId: "c" });
      await until("the capture reaches the player", () => player.held.length === 1);
      await t.clock.advance(6_000, t.heard);
      await player.answer("camera.frame", { path: "/tmp/c.png", capturedAt: i });
      await answer;
    }
    await t.clock.advance(60_000, t.heard);
    const answer = t.supervisor.request("camera.frame", { cameraId: "c" });
    await until("the capture reaches the player", () => player.held.length === 1);
    await t.clock.advance(6_000, t.heard);
    await player.answer("camera.frame", { path: "/tmp/c.png", capturedAt: 9 });
    await answer;
    const slow = t.logs.filter((l) => l.includes("Player slow"));
    assert.equal(slow.length, 2, slow.join("\n"));
    assert.match(slow[1]!, /; 3 more slow signs since the last line$/);
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor reports the last heartbeat's output figures and its restarts", async () => {
  const t = await supervised();
  try {
    await t.clock.advance(1_000, t.heard);
    assert.deepEqual(t.supervisor.heartbeat, {
      handled: 0,
      queued: 0,
      beside: 0,
      busy: null,
      output: null,
    });
    assert.equal(t.supervisor.output, null);
    assert.equal(t.supervisor.restarts, 0);
  } finally {
    await t.supervisor.stop(0);
  }
});

Deno.test("PlayerSupervisor backs off further after each hang, even of a player that was up long: restarts never multiply work", async () => {
  const t = await supervised({ heartbeats: false }, {
    silentMs: 15_000,
    backoff: { initialMs: 1, resetAfterMs: 10_000 },
  });
  try {
    for (let hangs = 1; hangs <= 3; hangs++) {
      await t.clock.advance(17_000, t.quiet); // ready over 15 s, then declared hung
      await until("the restart", () => t.launcher.players.length === hangs + 1);
      assert.ok(await t.supervisor.waitReady(120_000));
    }
    const downs = t.logs.filter((l) => l.startsWith("warn Player down"));
    assert.deepEqual(downs, [
      "warn Player down (declared hung); restarting in 1 ms",
      "warn Player down (declared hung); restarting in 2 ms",
      "warn Player down (declared hung); restarting in 4 ms",
    ]);
    assert.equal(t.supervisor.restarts, 3);
  } finally {
    await t.supervisor.stop(0);
  }
});
