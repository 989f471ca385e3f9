/**
 * Generates a large project (100 Songs of 100 Clips: 10,000 Clips) for
 * benchmarks and scale tests.
 * @module
 */
import { CONTROL_IDS } from "../protocol/action_rules.ts";
import { Project } from "../protocol/model.ts";

/** A project document with `songs * clipsPerSong` Clips. */
export function bigProject(id = "big", songs = 100, clipsPerSong = 100): Project {
  const clips = [];
  const songList = [];
  for (let s = 0; s < songs; s++) {
    const ids = [];
    for (let c = 0; c < clipsPerSong; c++) {
      const clipId = `s${s}-c${c}`;
      ids.push(clipId);
      clips.push({
        id: clipId,
        name: `Song ${s} Clip ${c}`,
        fileId: null,
        duration: 5 + (c % 20),
        launchMode: (["Trigger", "Toggle", "Gate", "OneShot"] as const)[c % 4],
        loop: c % 3 === 0,
      });
    }
    songList.push({
      id: `song-${s}`,
      title: `Song ${s}`,
      pgmId: String(s),
      clips: ids,
      timeline: [{ id: `q-${s}`, time: 1, action: "play" as const, clipID: ids[0]! }],
      lyrics: [{ time: 0, text: `Verse ${s}` }],
    });
  }
  return Project.parse({
    id,
    name: "Big Show",
    songs: songList,
    clips,
    controls: CONTROL_IDS.map((c) => ({
      id: c,
      targets: c === "A" ? [{ target: "clip:s0-c0/opacity" }] : [],
    })),
  });
}
