import assert from "node:assert/strict";
import { takeFirstLine } from "../../player/stdio_pipe.ts";
import type { BytePipe } from "../../protocol/transport.ts";

/** A pipe that reads `chunks` in turn, then ends. */
function pipeOf(chunks: Uint8Array[]): BytePipe {
  return {
    read: () => Promise.resolve(chunks.shift() ?? null),
    write: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

Deno.test("takeFirstLine() joins a line read in pieces, a character split between two", async () => {
  const bytes = new TextEncoder().encode('["--data-dir","/shows/caf\u00e9"]\n{"id":1}\n');
  const split = bytes.indexOf(0xc3) + 1; // inside the two bytes of the e with an acute accent
  const { line, rest } = await takeFirstLine(
    pipeOf([bytes.slice(0, split), bytes.slice(split)]),
  );
  assert.deepEqual(JSON.parse(line), ["--data-dir", "/shows/caf\u00e9"]);
  // What came after the line in the same read is read first, then the pipe goes on.
  assert.equal(new TextDecoder().decode((await rest.read())!), '{"id":1}\n');
  assert.equal(await rest.read(), null);
});

Deno.test("takeFirstLine() refuses a pipe that ends before the line", async () => {
  await assert.rejects(
    takeFirstLine(pipeOf([new TextEncoder().encode("[")])),
    /stdin ended before the flags line/,
  );
});
