/**
 * docs/midi.md: its curl examples run against a live service and answer as
 * documented, and its default-map and feedback tables say what
 * `protocol/midi.ts` declares.
 */
import assert from "node:assert/strict";
import {
  CLIP_BASE_NOTE,
  CONTROL_BASE_CC,
  DEFAULT_MIDI_MAP,
  FEEDBACK_SCHEMES,
  LSB_OFFSET,
  NAVIGATION_NOTES,
  PAD_STATES,
  TRANSPORT_ACTIONS,
} from "../../../protocol/midi.ts";
import { answerDiff, examples } from "../../../tools/testing/doc_examples.ts";
import { needs } from "../../../tools/testing/peers.ts";
import { startMidiService } from "../../../tools/testing/midi.ts";

const DOC = new URL("../../../docs/midi.md", import.meta.url);

/** The first cells of the rows of the table under `heading`. */
function rows(doc: string, heading: string): string[][] {
  const section = doc.slice(doc.indexOf(`\n## ${heading}\n`) + 1);
  const all = section.split("\n");
  const start = all.findIndex((l) => l.startsWith("| "));
  const end = all.findIndex((l, i) => i > start && !l.startsWith("|"));
  const lines = all.slice(start + 2, end);
  return lines.map((l) => l.split("|").slice(1, -1).map((c) => c.trim()));
}

Deno.test("docs/midi.md: the default map's table is protocol/midi.ts's", async () => {
  const doc = await Deno.readTextFile(DOC);
  const table = rows(doc, "Default map").map(([message, action]) => `${message} -> ${action}`);
  const lastClip = NAVIGATION_NOTES.previousSong - 1;
  const z = CONTROL_BASE_CC + 25;
  const expected = [
    `Note on ${CLIP_BASE_NOTE}-${lastClip} (C1 upwards) -> \`PLAY_CLIP_BY_INDEX_IN\``,
    `Note off ${CLIP_BASE_NOTE}-${lastClip} -> \`RELEASE_CLIP_BY_INDEX_IN\``,
    `Note on ${NAVIGATION_NOTES.previousSong} -> \`PREV_SONG_IN\``,
    `Note on ${NAVIGATION_NOTES.nextSong} -> \`NEXT_SONG_IN\``,
    `Note on ${NAVIGATION_NOTES.panic} -> \`STOP_ALL_CLIPS_IN\``,
    `Control change ${CONTROL_BASE_CC}-${z} -> \`SET_CONTROL\``,
    `Control change ${CONTROL_BASE_CC + LSB_OFFSET}-${
      z + LSB_OFFSET
    } after ${CONTROL_BASE_CC}-${z} -> the fine`,
    `Program change p -> \`SONG_SELECT_PGM_ID\``,
    `Song select s -> \`SONG_SELECT_IN\``,
    `Start / Stop / Continue -> \`${TRANSPORT_ACTIONS.start}\` / \`${TRANSPORT_ACTIONS.stop}\` / \`${TRANSPORT_ACTIONS.continue}\``,
  ];
  assert.equal(table.length, expected.length);
  table.forEach((row, i) => assert.ok(row.startsWith(expected[i]!), `${row}\n  ${expected[i]}`));
  assert.match(doc, new RegExp(`pgmId is p \\+ ${DEFAULT_MIDI_MAP.programBase}`));
  assert.match(doc, new RegExp(`channel\`, default ${DEFAULT_MIDI_MAP.channel}\\)`));
});

Deno.test("docs/midi.md: the feedback schemes' table is protocol/midi.ts's", async () => {
  const doc = await Deno.readTextFile(DOC);
  const table = rows(doc, "Feedback");
  assert.deepEqual(
    table.map(([name, ...cells]) => [name, cells.slice(0, PAD_STATES.length).map(Number)]),
    Object.entries(FEEDBACK_SCHEMES).map(([name, scheme]) => [
      `\`${name}\``,
      PAD_STATES.map((s) => scheme[s]),
    ]),
  );
});

Deno.test({
  name: "docs/midi.md: every curl example runs against a live service and answers as documented",
  ignore: needs("curl").ignore,
  async fn() {
    const list = examples(await Deno.readTextFile(DOC));
    assert.equal(list.length, 4);
    // Network MIDI on, as by default: the status counts the session as an endpoint.
    const svc = await startMidiService({}, { demo: true });
    const problems: string[] = [];
    try {
      for (const { command, expected } of list) {
        const line = command.replaceAll("http://localhost:17736", svc.base);
        const out = await new Deno.Command("sh", { args: ["-c", line], stdout: "piped" }).output();
        assert.equal(out.code, 0, command);
        const answer = JSON.parse(new TextDecoder().decode(out.stdout));
        if (expected === undefined) continue;
        problems.push(...answerDiff(answer, expected).map((diff) => `${command}\n  ${diff}`));
      }
      assert.deepEqual(problems, []);
    } finally {
      await svc.stop();
    }
  },
});
