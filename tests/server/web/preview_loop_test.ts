/**
 * The pacing of the web remote's output preview (`server/web/page/preview_loop.js`) on a
 * virtual clock: one request at a time, about three a second, paused while hidden, backing off
 * on refusals and back to pace after a picture.
 */
import assert from "node:assert/strict";
import {
  FIRST_BACKOFF_MS,
  MAX_BACKOFF_MS,
  MIN_GAP_MS,
  nextDelay,
  PERIOD_MS,
  PreviewLoop,
} from "../../../server/web/page/preview_loop.js";

/** A loop whose requests, timer and clock the test holds. */
function harness() {
  const requests: { signal: AbortSignal; answer: PromiseWithResolvers<string | null> }[] = [];
  const timers: { fn: () => void; ms: number; isCleared: boolean }[] = [];
  const shown: string[] = [];
  const failures: string[] = [];
  let recoveries = 0;
  let now = 0;
  let isVisible = true;
  const loop = new PreviewLoop({
    fetchFrame(signal: AbortSignal) {
      const answer = Promise.withResolvers<string | null>();
      requests.push({ signal, answer });
      return answer.promise;
    },
    show: (blob: string) => void shown.push(blob),
    fail: (error: Error) => void failures.push(error.message),
    recover: () => void recoveries++,
    isVisible: () => isVisible,
    now: () => now,
    setTimer(fn: () => void, ms: number) {
      const timer = { fn, ms, isCleared: false };
      timers.push(timer);
      return timer;
    },
    clearTimer(timer: { isCleared: boolean } | null) {
      if (timer) timer.isCleared = true;
    },
  });
  /** Lets the loop's awaits run. */
  const settle = () => new Promise((r) => setTimeout(r, 0));
  return {
    loop,
    requests,
    timers,
    shown,
    failures,
    get recoveries() {
      return recoveries;
    },
    settle,
    advance: (ms: number) => void (now += ms),
    setVisible: (v: boolean) => void (isVisible = v),
    /** Fires the last timer the loop set (it must be live). */
    fire() {
      const timer = timers.at(-1)!;
      assert.equal(timer.isCleared, false, "the timer is live");
      timer.fn();
    },
  };
}

Deno.test("nextDelay(): about three a second, a gap after a slow picture, doubling backoff to a cap", () => {
  assert.equal(nextDelay(33, 0), PERIOD_MS - 33);
  assert.equal(nextDelay(900, 0), MIN_GAP_MS, "a slow capture is never followed at once");
  assert.equal(nextDelay(5, 1), FIRST_BACKOFF_MS);
  assert.equal(nextDelay(5, 2), FIRST_BACKOFF_MS * 2);
  assert.equal(nextDelay(5, 3), FIRST_BACKOFF_MS * 4);
  assert.equal(nextDelay(5, 50), MAX_BACKOFF_MS);
});

Deno.test("PreviewLoop: one request at a time; the next is planned only after the picture shows", async () => {
  const h = harness();
  h.loop.resume();
  h.loop.resume(); // a second resume while one is under way asks for nothing more
  assert.equal(h.requests.length, 1);
  h.advance(100);
  h.requests[0]!.answer.resolve("picture 1");
  await h.settle();
  assert.deepEqual(h.shown, ["picture 1"]);
  assert.equal(h.timers.length, 1);
  assert.equal(h.timers[0]!.ms, PERIOD_MS - 100);
  h.fire();
  assert.equal(h.requests.length, 2);
  h.loop.stop();
  assert.equal(h.requests[1]!.signal.aborted, true, "stop drops the request under way");
});

Deno.test("PreviewLoop: refusals back off and say why; a picture brings the pace back", async () => {
  const h = harness();
  h.loop.resume();
  h.requests[0]!.answer.reject(new Error("No output runs"));
  await h.settle();
  assert.deepEqual(h.failures, ["No output runs"]);
  assert.equal(h.timers.at(-1)!.ms, FIRST_BACKOFF_MS);
  h.fire();
  h.requests[1]!.answer.reject(new Error("No output runs"));
  await h.settle();
  assert.equal(h.timers.at(-1)!.ms, FIRST_BACKOFF_MS * 2);
  h.fire();
  h.requests[2]!.answer.resolve("picture");
  await h.settle();
  assert.equal(h.timers.at(-1)!.ms, PERIOD_MS);
  h.loop.stop();
});

Deno.test("PreviewLoop: a 429's Retry-After is honoured when longer than the backoff", async () => {
  const h = harness();
  h.loop.resume();
  h.requests[0]!.answer.reject(
    Object.assign(new Error("Too many variants"), { code: "RATE_LIMITED", retryAfterMs: 7000 }),
  );
  await h.settle();
  assert.equal(h.timers.at(-1)!.ms, 7000, "waits as the service asked");
  h.fire();
  h.requests[1]!.answer.reject(Object.assign(new Error("busy"), { retryAfterMs: 10 }));
  await h.settle();
  assert.equal(h.timers.at(-1)!.ms, FIRST_BACKOFF_MS * 2, "a shorter Retry-After: the backoff");
  h.loop.stop();
});

Deno.test("PreviewLoop: a picture not modified (304, null) shows nothing and keeps the pace", async () => {
  const h = harness();
  h.loop.resume();
  h.requests[0]!.answer.resolve("picture");
  await h.settle();
  h.fire();
  h.requests[1]!.answer.resolve(null);
  await h.settle();
  assert.deepEqual(h.shown, ["picture"]);
  assert.deepEqual(h.failures, []);
  assert.equal(h.timers.at(-1)!.ms, PERIOD_MS);
  h.loop.stop();
});

Deno.test("PreviewLoop: a 304 after a refusal clears the refusal (the picture shown is the output's)", async () => {
  const h = harness();
  h.loop.resume();
  h.requests[0]!.answer.resolve("picture");
  await h.settle();
  h.fire();
  h.requests[1]!.answer.reject(new Error("Too many variants"));
  await h.settle();
  assert.equal(h.recoveries, 0);
  h.fire();
  h.requests[2]!.answer.resolve(null); // the show is still: the same picture, 304
  await h.settle();
  assert.deepEqual(h.shown, ["picture"]);
  assert.equal(h.recoveries, 1, "the refusal is cleared though nothing new is shown");
  assert.equal(h.timers.at(-1)!.ms, PERIOD_MS, "back to pace");
  h.fire();
  h.requests[3]!.answer.resolve(null);
  await h.settle();
  assert.equal(h.recoveries, 1, "a 304 with no refusal before it clears nothing");
  h.loop.stop();
});

Deno.test("PreviewLoop: hidden, it asks for nothing; shown again, it asks at once", async () => {
  const h = harness();
  h.loop.resume();
  h.loop.pause(); // the page was hidden with a request under way
  assert.equal(h.requests[0]!.signal.aborted, true);
  h.requests[0]!.answer.resolve("late");
  await h.settle();
  assert.deepEqual(h.shown, [], "a dropped request's picture is not shown");
  assert.equal(h.timers.filter((t) => !t.isCleared).length, 0, "nothing planned while hidden");
  h.setVisible(false);
  h.loop.resume(); // a stray resume while still hidden
  assert.equal(h.requests.length, 1, "no request while hidden");
  await h.settle();
  assert.equal(h.timers.filter((t) => !t.isCleared).length, 0, "a hidden tick plans nothing");
  h.setVisible(true);
  h.loop.resume();
  assert.equal(h.requests.length, 2);
  h.loop.stop();
});
