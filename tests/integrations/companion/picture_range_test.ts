/**
 * The Companion module takes the range of a picture's size from the catalog (`pictureSize`, made
 * from `protocol/pictures.ts`), never from literals of its own that could drift from the service's.
 */
import assert from "node:assert/strict";
import { PICTURE_SIZE } from "../../../protocol/pictures.ts";

const SOURCES = new URL("../../../integrations/companion/src/", import.meta.url);

Deno.test("Companion module: no literal picture-size range in its sources (the catalog's pictureSize)", async () => {
  // A clamp to the range: Math.min(512, ...) or Math.max(16, ...), either order of arguments.
  const { min, max } = PICTURE_SIZE;
  const literal = new RegExp(
    `Math\\.min\\((${max}\\s*,|[^()]*,\\s*${max}\\))|Math\\.max\\((${min}\\s*,|[^()]*,\\s*${min}\\))`,
  );
  for await (const entry of Deno.readDir(SOURCES)) {
    if (!entry.name.endsWith(".ts")) continue;
    const text = await Deno.readTextFile(new URL(entry.name, SOURCES));
    for (const line of text.split("\n")) {
      assert.doesNotMatch(line, literal, `${entry.name}: ${line.trim()}`);
    }
  }
});
