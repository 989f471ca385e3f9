import assert from "node:assert/strict";
import { PlayerApp, type PlayerOptions } from "../../player/app.ts";
import { VirtualClock } from "../../player/clock.ts";
import { fixtureDataDir, openFixture } from "../../tools/testing/fixture.ts";
import { readJsonIfThere, until } from "../../tools/testing/until.ts";

// deno-lint-ignore no-explicit-any
type Json = any;

/** A player started again on the same data dir, as the supervisor does after a crash. */
function restart(dataDir: string, options: Partial<PlayerOptions> = {}): Promise<PlayerApp> {
  return PlayerApp.open({ dataDir, clock: new VirtualClock(), positionIntervalMs: 0, ...options });
}

const showOf = (app: PlayerApp) => app.snapshot().playstates.find((p) => p.projectId === "show")!;
const savedShow = async (dataDir: string) =>
  ((await readJsonIfThere(`${dataDir}/live.json`)) as Json)?.projects?.show;

Deno.test("PlayerApp saves the show by itself and a restarted player resumes it", async () => {
  const f = await openFixture();
  try {
    await f.run("SONG_SELECT_BY_ID", { songID: "s1" });
    await f.run("SET_CONTROL", { controlID: "B", value: 0.5 });
    await f.run("PLAY_IN");
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    // Saved without being asked, off the request path.
    await until("the playing Song in live.json", async () => {
      return (await savedShow(f.dataDir))?.song?.state === "playing";
    });
    // Moving the clock is a change too (the bundled player calls this on clock.advance).
    f.clock.advance(3000);
    f.app.liveChanged();
    await until("the Song at 3 s in live.json", async () => {
      return (await savedShow(f.dataDir))?.song?.position === 3;
    });

    const again = await restart(f.dataDir); // f.app is never closed: it "crashed"
    try {
      const ps = showOf(again);
      assert.equal(ps.song?.state, "playing");
      assert.equal(ps.song?.position, 3);
      assert.equal(ps.selectedClipID, "c1");
      assert.deepEqual(ps.clips.map((c) => [c.clipID, c.state, c.position, c.speed]), [
        ["c1", "playing", 3 * 0.875, 0.875],
      ]);
      assert.deepEqual(again.snapshot().live.show, {
        controls: { B: 0.5 },
        params: { c1: { speed: 0.875 } },
      });
    } finally {
      await again.close();
    }
  } finally {
    await f.close();
  }
});

Deno.test("PlayerApp.open() continues what played by the wall time the player was down", async () => {
  const dataDir = await fixtureDataDir();
  let wall = 1_700_000_000_000;
  const wallNow = () => wall;
  try {
    const first = await restart(dataDir, { wallNow });
    await first.runAction({ name: "PLAY_IN", params: {}, projectId: null });
    await first.runAction({ name: "PLAY_CLIP_IN", params: { clipID: "c3" }, projectId: null });
    await first.flushLiveState();
    await first.close();
    wall += 2500;
    const second = await restart(dataDir, { wallNow });
    assert.equal(showOf(second).song?.position, 2.5);
    assert.equal(showOf(second).clips[0]?.position, 2.5);
    await second.close();
    wall += 10_000; // c3 (6 s) has ended by now; the Song (20 s) plays on
    const third = await restart(dataDir, { wallNow });
    assert.equal(showOf(third).song?.position, 12.5);
    assert.deepEqual(showOf(third).clips.map((c) => c.clipID), []);
    await third.close();
    // Without a wall clock of its own, a player on a virtual clock sees no time pass.
    const fourth = await restart(dataDir);
    assert.equal(showOf(fourth).song?.position, 12.5);
    await fourth.close();
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PlayerApp.open() logs, reports and moves aside a live.json it cannot use, with no good copy", async () => {
  const dataDir = await fixtureDataDir();
  try {
    for (
      const text of [
        '{"version": 1, "savedAt": 5, "projects": {"show": {"activeSongId": ',
        JSON.stringify({ version: 99, savedAt: 5, projects: {} }),
        JSON.stringify({ version: 1, savedAt: 5, projects: { show: { song: "loud" } } }),
      ]
    ) {
      await Deno.writeTextFile(`${dataDir}/live.json`, text);
      for (const n of [1, 2]) await Deno.remove(`${dataDir}/live.json.${n}`).catch(() => {});
      const logs: string[] = [];
      const app = await restart(dataDir, { log: (level, m) => logs.push(`${level}: ${m}`) });
      try {
        assert.equal(showOf(app).song?.state, "stopped");
        assert.deepEqual(showOf(app).clips, []);
        assert.equal(logs.length, 1, logs.join("\n"));
        assert.match(
          logs[0]!,
          /^warn: Damaged file live\.json: .+; no good copy: the show starts stopped.+; the damaged file is kept as live\.json\.damaged-/,
        );
        const [problem] = app.snapshot().problems;
        assert.equal(problem?.file, "live.json");
        assert.equal(problem?.recoveredFrom, null);
        assert.equal(await Deno.readTextFile(`${dataDir}/${problem!.keptAs}`), text);
      } finally {
        await app.close();
      }
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PlayerApp.open() skips a saved Project that is gone and restores the others", async () => {
  const dataDir = await fixtureDataDir();
  try {
    const first = await restart(dataDir);
    await first.runAction({
      name: "SET_CONTROL",
      params: { controlID: "Z", value: 1 },
      projectId: null,
    });
    await first.close(); // a clean shutdown keeps the live state too
    const saved = (await readJsonIfThere(`${dataDir}/live.json`)) as Json;
    saved.projects.gone = saved.projects.show;
    await Deno.writeTextFile(`${dataDir}/live.json`, JSON.stringify(saved));
    const logs: string[] = [];
    const again = await restart(dataDir, { log: (_level, m) => logs.push(m) });
    try {
      assert.deepEqual(again.snapshot().live.show?.controls, { Z: 1 });
      assert.deepEqual(Object.keys(again.snapshot().live), ["show"]);
      assert.deepEqual(logs, ['Live state not restored (no longer there): Project "gone"']);
    } finally {
      await again.close();
    }
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("PlayerApp.open() removes the temp files interrupted writes left in the data dir", async () => {
  const dataDir = await fixtureDataDir();
  try {
    const leftovers = [
      "live.json.0a1b2c3d.tmp",
      "player.json.deadbeef.tmp",
      "presets.json.01234567.tmp",
    ];
    for (const name of leftovers) await Deno.writeTextFile(`${dataDir}/${name}`, '{"half');
    await Deno.writeTextFile(`${dataDir}/notes.tmp`, "not the player's");
    const app = await restart(dataDir);
    await app.close();
    const names = [...Deno.readDirSync(dataDir)].map((e) => e.name).sort();
    // live.json.1: the close writes twice, so the newest kept copy is the final state too.
    assert.deepEqual(names, ["live.json", "live.json.1", "notes.tmp", "projects"]);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("A recording goes on in the same file after a restart; an armed one stays armed", async () => {
  const f = await openFixture();
  try {
    await f.run("RECORD_TOGGLE", { mode: "now" });
    const recording = f.app.appState.recording;
    f.clock.advance(1500);
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.app.flushLiveState();

    const linesOf = async () =>
      (await Deno.readTextFile(`${f.dataDir}/${recording.file}`)).trim().split("\n")
        .map((l) => JSON.parse(l));
    const before = await linesOf();

    const again = await restart(f.dataDir);
    try {
      assert.deepEqual(again.appState.recording, recording);
      await again.runAction({ name: "STOP_CLIP_IN", params: { clipID: "c1" }, projectId: null });
      const lines = await linesOf();
      assert.deepEqual(lines.slice(0, before.length), before);
      const added = lines.slice(before.length);
      assert.deepEqual(added.map((l) => l.event), [
        "recording-resumed",
        "clip-play-state-changed",
      ]);
      assert.equal(added[0].ms, 1500, "offsets go on from where they were");
      assert.equal(added[1].newState, "stopped");
      await again.runAction({
        name: "RECORD_TOGGLE",
        params: { mode: "next-trigger" },
        projectId: null,
      });
      assert.equal(again.appState.recording.state, "idle");
      await again.runAction({
        name: "RECORD_TOGGLE",
        params: { mode: "next-trigger" },
        projectId: null,
      });
      await again.flushLiveState();
    } finally {
      await again.close();
    }
    const armed = await restart(f.dataDir);
    assert.equal(armed.appState.recording.state, "armed");
    await armed.close();
  } finally {
    await f.close();
  }
});

Deno.test("PlayerApp: an action's retry key is saved with the live state; a restarted player answers the retry without applying it again", async () => {
  const f = await openFixture();
  try {
    const toggle = { name: "MUTE_TOGGLE", params: {}, projectId: null } as const;
    const first = await f.app.runActionNow(toggle, "mute-1");
    assert.equal(f.app.appState.muted, true);
    assert.deepEqual(await f.app.runActionNow(toggle, "mute-1"), first);
    assert.equal(f.app.appState.muted, true, "not toggled twice");
    await f.app.flushLiveState();
    const again = await PlayerApp.open({ dataDir: f.dataDir, clock: new VirtualClock() });
    try {
      assert.equal(again.appState.muted, true);
      assert.deepEqual(await again.runActionNow(toggle, "mute-1"), first);
      assert.equal(again.appState.muted, true, "the retry after the restart applied nothing");
      await again.runActionNow(toggle, "mute-2");
      assert.equal(again.appState.muted, false, "a new key applies");
    } finally {
      await again.close();
    }
  } finally {
    await f.close();
  }
});
