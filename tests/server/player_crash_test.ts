import assert from "node:assert/strict";
import { startTestService, type TestService } from "../../tools/testing/service.ts";
import { TestSocket } from "../../tools/testing/ws_client.ts";
import { readJsonIfThere, until } from "../../tools/testing/until.ts";

const isUpdate = (m: { event?: string }) => m.event === "state-update";

/** The saved live state of the fixture project, if the file is there and whole. */
async function savedShow(dataDir: string) {
  // deno-lint-ignore no-explicit-any
  const saved = await readJsonIfThere(`${dataDir}/live.json`) as any;
  return saved?.projects?.show;
}

async function action(svc: TestService, name: string, params: unknown[] = []) {
  const answer = await svc.post("/api/v1/action", { name, params });
  assert.equal(answer.status, 200, JSON.stringify(answer.body));
  return answer.body;
}

Deno.test("A player killed mid-show comes back where the show was: Song, Clips, Controls", async () => {
  const svc = await startTestService();
  const ws = await TestSocket.open(`ws://127.0.0.1:${svc.service.ports.ws}/v1`);
  try {
    await ws.take();
    await ws.auth();
    await action(svc, "SONG_SELECT_BY_ID", ["s1"]);
    await action(svc, "SET_CONTROL", ["A", 0.25]);
    await action(svc, "SET_CONTROL", ["B", 0.5]); // c1 speed: 0.5 + 0.25 * 1.5 = 0.875
    await action(svc, "PLAY_IN");
    await action(svc, "PLAY_CLIP_IN", ["c1"]);
    await action(svc, "PLAY_CLIP_IN", ["cbg"]);
    await action(svc, "PAUSE_IN", ["cbg"]);
    await svc.advance(3000);

    // The player saves on its own, off the request path; wait until the file has caught up.
    await until("live.json with the song at 3 s", async () => {
      const show = await savedShow(svc.dataDir);
      return show?.song?.state === "playing" && show.song.position === 3;
    });
    const before = (await svc.get("/api/v1/projects/show/playstate")).body;
    assert.equal(before.song.position, 3);

    svc.service.core.bus.flush(); // earlier updates go out now, before the crash
    await ws.request({ type: "ping" });
    ws.messages.length = 0;

    const oldPid = svc.service.supervisor.pid!;
    Deno.kill(oldPid, "SIGKILL");
    await until("a new player", () => {
      const pid = svc.service.supervisor.pid;
      return pid !== null && pid !== oldPid && svc.service.core.isReady;
    });

    const after = (await svc.get("/api/v1/projects/show/playstate")).body;
    assert.equal(after.activeSongID, "s1");
    assert.equal(after.selectedClipID, "c1");
    assert.equal(after.song.state, "playing");
    assert.ok(Math.abs(after.song.position - 3) < 0.01, `song at ${after.song.position}`);
    assert.equal(after.song.lyricIndex, 0, "the lyric cursor follows the position");
    assert.deepEqual(after.controls, { A: 0.25, B: 0.5 });
    const c1 = after.clips.find((c: { clipID: string }) => c.clipID === "c1");
    assert.equal(c1.state, "playing");
    assert.equal(c1.speed, 0.875);
    assert.ok(Math.abs(c1.position - 3 * 0.875) < 0.01, `c1 at ${c1.position}`);
    const cbg = after.clips.find((c: { clipID: string }) => c.clipID === "cbg");
    assert.equal(cbg.state, "paused");
    assert.equal(cbg.position, 0);
    const clips = (await svc.get("/api/v1/projects/show/clips?ids=c1")).body.clips;
    assert.deepEqual(clips[0].current.live, { opacity: 0.25, speed: 0.875 });

    // The show goes on from there: the cue at 5 s starts c4.
    await svc.advance(2500);
    const later = (await svc.get("/api/v1/projects/show/playstate")).body;
    assert.ok(Math.abs(later.song.position - 5.5) < 0.01, `song at ${later.song.position}`);
    assert.ok(later.clips.some((c: { clipID: string }) => c.clipID === "c4"));

    // A client connected across the crash got one `full` update, with the restored show in it.
    svc.service.core.bus.flush();
    await ws.request({ type: "ping" });
    const fulls = ws.messages.filter(isUpdate).flatMap((m) => m.payload)
      .filter((u: { updateType: string }) => u.updateType === "full");
    assert.equal(fulls.length, 1, `${fulls.length} full updates`);
    assert.equal(fulls[0].data.event, "player-ready");
    const state = fulls[0].data.state;
    const ps = state.playstates.find((p: { projectId: string }) => p.projectId === "show");
    assert.equal(ps.song.state, "playing");
    assert.equal(ps.song.position, 3);
    assert.deepEqual(ps.clips.map((c: { clipID: string }) => c.clipID).sort(), ["c1", "cbg"]);
    assert.deepEqual(state.live.show.controls, { A: 0.25, B: 0.5 });
  } finally {
    await ws.close();
    await svc.stop();
  }
});

Deno.test("A player start removes temp files that interrupted writes left in the data dir", async () => {
  const svc = await startTestService();
  try {
    const leftovers = ["live.json.0a1b2c3d.tmp", "player.json.deadbeef.tmp"];
    for (const name of leftovers) await Deno.writeTextFile(`${svc.dataDir}/${name}`, '{"half');
    await Deno.writeTextFile(`${svc.dataDir}/notes.tmp`, "not ours");
    const oldPid = svc.service.supervisor.pid!;
    Deno.kill(oldPid, "SIGKILL");
    await until("a new player", () => {
      const pid = svc.service.supervisor.pid;
      return pid !== null && pid !== oldPid && svc.service.core.isReady;
    });
    const names = [...Deno.readDirSync(svc.dataDir)].map((e) => e.name);
    for (const name of leftovers) assert.ok(!names.includes(name), `${name} was removed`);
    assert.ok(names.includes("notes.tmp"), "a file the player did not write stays");
  } finally {
    await svc.stop();
  }
});
