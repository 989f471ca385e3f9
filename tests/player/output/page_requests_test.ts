/**
 * Requests to the output page wait while the browser and its page make progress, however
 * slowly, and fail only after `REQUEST_NO_PROGRESS_MS` without any sign of them (the old
 * fixed 20 s deadline failed a slow page's picture on a busy machine). Injected clock and
 * timers: nothing sleeps.
 */
import assert from "node:assert/strict";
import { PageRequests, REQUEST_NO_PROGRESS_MS } from "../../../player/output/page_requests.ts";

/** Requests on a clock moved by `advance`, which fires the timers that come due. */
function requests() {
  let now = 0;
  let lastProgressAt = 0;
  const timers = new Map<number, { at: number; fn: () => void }>();
  let nextTimer = 1;
  const sent: string[] = [];
  const pageRequests = new PageRequests((message) => sent.push(message.type), {
    lastProgressAt: () => lastProgressAt,
    now: () => now,
    setTimeout: (fn, ms) => {
      timers.set(nextTimer, { at: now + ms, fn });
      return nextTimer++;
    },
    clearTimeout: (id) => void timers.delete(id),
  });
  /** Moves the clock by `ms` in steps of a second, the page showing progress if `isAlive`. */
  const advance = (ms: number, isAlive: boolean) => {
    for (let t = 0; t < ms; t += 1000) {
      now += 1000;
      if (isAlive) lastProgressAt = now;
      for (const [id, timer] of [...timers]) {
        if (timer.at > now) continue;
        timers.delete(id);
        timer.fn();
      }
    }
  };
  return { pageRequests, sent, advance };
}

Deno.test("PageRequests waits for a slow page that makes progress, then takes its answer", async () => {
  const { pageRequests, sent, advance } = requests();
  let settled = false;
  const answer = pageRequests.request<{ png: string }>((id) => ({ type: "frame", id }));
  void answer.finally(() => settled = true);
  advance(10 * REQUEST_NO_PROGRESS_MS, true);
  await Promise.resolve();
  assert.equal(settled, false, "still waiting after ten bounds of a page that reports");
  pageRequests.settle(1, { png: "x" });
  assert.deepEqual(await answer, { png: "x" });
  assert.deepEqual(sent, ["frame"]);
});

Deno.test("PageRequests fails a request after the bound without any sign of the page", async () => {
  const { pageRequests, advance } = requests();
  const answer = pageRequests.request((id) => ({ type: "frame", id }));
  advance(5000, true);
  advance(REQUEST_NO_PROGRESS_MS, false);
  await assert.rejects(answer, {
    message: `The output page did not answer "frame": no sign of it for ${
      REQUEST_NO_PROGRESS_MS / 1000
    } s`,
  });
});
