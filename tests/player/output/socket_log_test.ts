/**
 * The socket-fault log: one line a minute at most, and the faults counted after the last line
 * said a minute after it even when no other fault comes (an injected timer, a virtual clock).
 */
import assert from "node:assert/strict";
import { SOCKET_LOG_EVERY_MS, SocketFaultLog } from "../../../player/output/socket_log.ts";

/** A log on a virtual clock whose timers run only when the test says. */
function virtualLog() {
  let now = 0;
  const lines: string[] = [];
  const timers: { at: number; run: () => void; isCancelled: boolean }[] = [];
  const log = new SocketFaultLog((line) => lines.push(line), () => now, (run, ms) => {
    const timer = { at: now + ms, run, isCancelled: false };
    timers.push(timer);
    return () => timer.isCancelled = true;
  });
  return {
    log,
    lines,
    /** The timers not cancelled nor run. */
    pending: () => timers.filter((t) => !t.isCancelled),
    /** Moves the clock by `ms` and runs the timers due. */
    advance(ms: number) {
      now += ms;
      for (const timer of timers.filter((t) => !t.isCancelled && t.at <= now)) {
        timer.isCancelled = true;
        timer.run();
      }
    },
  };
}

Deno.test("SocketFaultLog: the first fault is said at once, the next counted", () => {
  const v = virtualLog();
  v.log.note("refused", "the ws socket refused: another origin");
  v.advance(1000);
  v.log.note("too fast", "the page's socket #1: too fast");
  assert.equal(v.lines.length, 1);
  assert.match(v.lines[0]!, /1 page socket closed or refused \(refused 1\)/);
  assert.deepEqual(Object.fromEntries(v.log.totals), { refused: 1, "too fast": 1 });
});

Deno.test("SocketFaultLog: faults counted after the last line are said a minute after it, with no other fault", () => {
  const v = virtualLog();
  v.log.note("refused", "first");
  v.advance(1000);
  v.log.note("too fast", "second");
  v.log.note("too fast", "third");
  v.advance(SOCKET_LOG_EVERY_MS - 1001);
  assert.equal(v.lines.length, 1, "not before the minute");
  v.advance(1);
  assert.equal(v.lines.length, 2);
  assert.match(v.lines[1]!, /2 page sockets closed or refused \(too fast 2\), the last: third/);
  v.advance(10 * SOCKET_LOG_EVERY_MS);
  assert.equal(v.lines.length, 2, "nothing more to say");
  assert.equal(v.pending().length, 0);
});

Deno.test("SocketFaultLog: a line said by a fault cancels the flush; close cancels it too", () => {
  const v = virtualLog();
  v.log.note("refused", "first");
  v.log.note("refused", "second");
  assert.equal(v.pending().length, 1);
  v.advance(SOCKET_LOG_EVERY_MS - 1);
  v.log.note("refused", "third");
  assert.equal(v.pending().length, 1, "one flush at a time");
  v.advance(1);
  assert.equal(v.lines.length, 2);
  v.log.note("refused", "fourth");
  v.log.close();
  assert.equal(v.pending().length, 0);
});
