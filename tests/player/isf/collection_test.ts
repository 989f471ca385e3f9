/**
 * The ISF community's collection (issue 45): every `.fs` of ISF-Files at its pinned commit
 * (`tests/fixtures/isf_files/`) goes through `preset.add` on one real player, each checked once
 * (the check was the file's longest: validated then added, every file took two), and each refused
 * one through `preset.validate` too, which must refuse it as well. The count accepted may not fall below `ACCEPTED_FLOOR`
 * (raised by each feature that takes more of the collection), and every refusal is the one the
 * table of `docs/presets.md` ("The ISF collection") lists under its cause.
 *
 * The table is written from this test's verdicts by
 * `deno task test tests/player/isf/collection_test.ts -- --write` (then `deno fmt docs/presets.md`).
 * @module
 */
import assert from "node:assert/strict";
import { PlayerApp } from "../../../player/app.ts";
import { VirtualClock } from "../../../player/clock.ts";
import { Refusal } from "../../../player/errors.ts";
import { fixtureDataDir } from "../../../tools/testing/fixture.ts";
import {
  type CollectionShader,
  loadCollection,
  refusalTable,
  tableIn,
  withTable,
} from "./_collection.ts";

/** Files of the 321 accepted today; the target is 305. */
const ACCEPTED_FLOOR = 320;

const DOC = new URL("../../../docs/presets.md", import.meta.url);

/** A table's text without the padding `deno fmt` gives its cells. */
const unpadded = (table: string) =>
  table.split("\n").map((line) => line.replace(/\s*\|\s*/g, "|").replace(/-{3,}/g, "---"))
    .join("\n");

Deno.test("the ISF collection: added on a player, each file checked once, its refusals those the docs list", async () => {
  const shaders = await loadCollection();
  assert.equal(shaders.length, 321);
  const dataDir = await fixtureDataDir();
  const app = await PlayerApp.open({ dataDir, clock: new VirtualClock() });
  const refused = new Map<string, string>();
  const edit = (name: string, params: Record<string, unknown>) =>
    app.applyEdits({ projectId: null, edits: [{ name, params }] });
  // Two at once, as the player runs two checks at once (`check_memo.ts`): the others would wait.
  // Each file is checked once where it is taken: `preset.add` (which checks as `preset.validate`
  // does, `checkIsfPreset`). Only a refused one is validated too, for its problems as
  // `preset.validate` words them (the docs' table), and to see that it refuses it as well.
  const verdictOf = async ({ name, kind, code, vertexCode }: CollectionShader) => {
    const params = { kind, name, type: "isf", code, ...(vertexCode && { vertexCode }) };
    const added = await edit("preset.add", params).catch((error) => {
      if (error instanceof Refusal) return error;
      throw error;
    });
    if (!(added instanceof Refusal)) return assert.ok(added.edits[0]?.created?.presetID, name);
    const [answer] = (await edit("preset.validate", params)).edits;
    const { valid, problems } = answer!.result as { valid: boolean; problems: string[] };
    assert.equal(valid, false, `${name}: preset.add refused it (${added.message}), validate not`);
    refused.set(name, problems[0]!);
  };
  try {
    for (let i = 0; i < shaders.length; i += 2) {
      await Promise.all(shaders.slice(i, i + 2).map(verdictOf));
    }
  } finally {
    await app.close();
    await Deno.remove(dataDir, { recursive: true });
  }
  const accepted = shaders.length - refused.size;
  console.log(`ISF collection: ${accepted} of ${shaders.length} accepted`);
  assert.ok(accepted >= ACCEPTED_FLOOR, `${accepted} accepted, below the floor ${ACCEPTED_FLOOR}`);
  const table = refusalTable(refused);
  const doc = await Deno.readTextFile(DOC);
  if (Deno.args.includes("--write")) {
    await Deno.writeTextFile(DOC, withTable(doc, table));
  }
  const listed = tableIn(await Deno.readTextFile(DOC));
  assert.ok(listed !== null, "docs/presets.md has no table of the collection's refusals");
  assert.equal(unpadded(listed), unpadded(table), "the docs' table of refusals is stale");
});
