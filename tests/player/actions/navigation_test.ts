import assert from "node:assert/strict";
import { openFixture } from "../../../tools/testing/fixture.ts";

Deno.test("NEXT_CLIP_IN steps like GO: stops the selected Clip and plays the next", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN");
    await f.run("NEXT_CLIP_IN");
    assert.equal(f.state().selectedClipID, "c2");
    assert.equal(f.clipState("c1"), "stopped");
    assert.equal(f.clipState("c2"), "playing");
    await f.run("PREV_CLIP_IN");
    assert.equal(f.state().selectedClipID, "c1");
    await assert.rejects(f.run("PREV_CLIP_IN"), /Already at the first Clip/);
  } finally {
    await f.close();
  }
});

Deno.test("NEXT_CLIP_IN crosses into the next Song only with anySong", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_BY_INDEX_IN", { index: 3 });
    assert.equal(f.state().selectedClipID, "c4");
    await assert.rejects(f.run("NEXT_CLIP_IN"), /Already at the last Clip of Song "s1"/);
    await f.run("NEXT_CLIP_IN", { anySong: true });
    assert.equal(f.state().activeSongID, "s2");
    assert.equal(f.state().selectedClipID, "c5");
    assert.equal(f.clipState("c5"), "playing");
    await f.run("PREV_CLIP_IN", { anySong: true });
    assert.equal(f.state().activeSongID, "s1");
    assert.equal(f.state().selectedClipID, "c4");
  } finally {
    await f.close();
  }
});

Deno.test("NEXT_SONG_IN stops playback unless noStop; refuses past the end", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_IN");
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("NEXT_SONG_IN");
    assert.equal(f.state().activeSongID, "s2");
    assert.equal(f.state().selectedClipID, "c5");
    assert.equal(f.state().clips.length, 0);
    assert.equal(f.state().song?.state, "stopped");
    await f.run("PLAY_CLIP_IN", { clipID: "c6" });
    await f.run("NEXT_SONG_IN", { noStop: true });
    assert.equal(f.state().activeSongID, "s3");
    assert.equal(f.clipState("c6"), "playing");
    await assert.rejects(f.run("NEXT_SONG_IN"), /Already at the last Song/);
    await f.run("PREV_SONG_IN");
    assert.equal(f.state().activeSongID, "s2");
  } finally {
    await f.close();
  }
});

Deno.test("PLAY_NEXT_SONG_IN selects the next Song and starts it", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("PLAY_NEXT_SONG_IN");
    assert.equal(f.state().activeSongID, "s2");
    assert.equal(f.state().song?.state, "playing");
    assert.equal(f.clipState("c1"), "stopped");
  } finally {
    await f.close();
  }
});

Deno.test("SONG_SELECT_* select by index, id, Program Identifier and percent; stopPlaying defaults to true", async () => {
  const f = await openFixture();
  try {
    await f.run("PLAY_CLIP_IN", { clipID: "c1" });
    await f.run("SONG_SELECT_IN", { index: 2, stopPlaying: false });
    assert.equal(f.state().activeSongID, "s3");
    assert.equal(f.clipState("c1"), "playing");
    await f.run("SONG_SELECT_IN", { index: 0 });
    assert.equal(f.clipState("c1"), "stopped", "stopPlaying defaults to true");
    await assert.rejects(
      f.run("SONG_SELECT_IN", { index: 3 }),
      /No Song at index 3 \(the Project has 3\)/,
    );
    await f.run("SONG_SELECT_BY_ID", { songID: "s2" });
    assert.equal(f.state().activeSongID, "s2");
    await f.run("SONG_SELECT_PGM_ID", { pgmId: "30" });
    assert.equal(f.state().activeSongID, "s3");
    await assert.rejects(
      f.run("SONG_SELECT_PGM_ID", { pgmId: "99" }),
      /No Song has Program Identifier "99"/,
    );
    const cases: Array<[number, string]> = [[0, "s1"], [0.33, "s1"], [0.34, "s2"], [0.99, "s3"], [
      1,
      "s3",
    ]];
    for (const [percent, song] of cases) {
      await f.run("SONG_SELECT_PERCENT_IN", { percent });
      assert.equal(f.state().activeSongID, song, `percent ${percent}`);
    }
  } finally {
    await f.close();
  }
});
