/**
 * Both ends of the ISF checker's pipe read lines with the one line reader (`LineReader`,
 * `protocol/transport.ts`), bounded: a line over the bound is refused as it arrives, never
 * buffered to its end.
 */
import assert from "node:assert/strict";
import { runIsfCheckStdio } from "../../../player/isf/check_stdio.ts";
import { CheckerProcess, ISF_CHECK_LINE_BYTES } from "../../../player/isf/check_child.ts";
import { MAX_REQUEST_LINE_BYTES } from "../../../player/request_transport.ts";

/** `count` chunks of 64 KiB with no newline, and how many were pulled. */
function endlessLine(
  count: number,
): { readable: ReadableStream<Uint8Array>; pulled: () => number } {
  let pulled = 0;
  const readable = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled === count) return controller.close();
      pulled++;
      controller.enqueue(new Uint8Array(64 * 1024).fill(0x61));
    },
  });
  return { readable, pulled: () => pulled };
}

Deno.test("the checker process refuses a request line over its bound, once, and reads on", async () => {
  const { readable, pulled } = endlessLine(32);
  const refused: number[] = [];
  const maxLineBytes = 256 * 1024;
  await runIsfCheckStdio({ readable, maxLineBytes, onTooLong: (n) => refused.push(n) });
  assert.deepEqual(refused, [maxLineBytes]);
  assert.equal(pulled(), 32, "read to its end, the rest of the line skipped");
});

Deno.test("the player ends a checker whose line is over the bound, saying why", async () => {
  const command = [
    Deno.execPath(),
    "run",
    "--quiet",
    new URL("_long_line_checker.ts", import.meta.url).pathname,
  ];
  const maxLineBytes = 1024 * 1024;
  const process = new CheckerProcess(command, { maxLineBytes });
  const heard: unknown[] = [];
  await process.send({ code: "", kind: "effect" }, (m) => heard.push(m));
  const end = await process.ended;
  assert.match(end.stderr, new RegExp(`line too long: over ${maxLineBytes} bytes`));
  assert.deepEqual(heard, []);
  assert.equal(process.isEnded, true);
});

Deno.test("ISF_CHECK_LINE_BYTES takes a request of the player's longest", () => {
  assert.ok(ISF_CHECK_LINE_BYTES >= MAX_REQUEST_LINE_BYTES);
});
