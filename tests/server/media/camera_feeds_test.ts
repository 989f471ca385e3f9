import assert from "node:assert/strict";
import { CameraFeeds } from "../../../server/media/camera_feeds.ts";

/** Lets the promise chains of a capture settle (no time passes). */
const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

/** Feeds on a hand-moved clock with timers the test fires. */
function feeds() {
  let now = 0;
  let nextTimer = 1;
  const timers = new Map<number, { at: number; fn: () => void }>();
  const captures: string[] = [];
  const feeds = new CameraFeeds({
    capture: (id) => {
      captures.push(id);
      const n = captures.length;
      return Promise.resolve({ bytes: new Uint8Array([n]), etag: `"${n}"` });
    },
    refreshMs: 5_000,
    activeMs: 15_000,
    now: () => now,
    setTimer: (fn, ms) => {
      timers.set(nextTimer, { at: now + ms, fn });
      return nextTimer++;
    },
    clearTimer: (id) => timers.delete(id as number),
  });
  /** Moves the clock, firing the timers that fall due. */
  const advance = async (ms: number) => {
    const end = now + ms;
    for (;;) {
      const due = [...timers.entries()].filter(([, t]) =>
        t.at <= end
      ).sort((x, y) => x[1].at - y[1].at)[0];
      if (!due) break;
      timers.delete(due[0]);
      now = due[1].at;
      due[1].fn();
      await flush();
    }
    now = end;
    await flush();
  };
  return { feeds, captures, advance, timers };
}

Deno.test("a camera is captured at the first request, then every 5 s while it is asked for", async () => {
  const { feeds: f, captures, advance } = feeds();
  const first = await f.frame("test-pattern");
  assert.equal(first.etag, '"1"');
  assert.equal((await f.frame("test-pattern")).etag, '"1"', "the same picture within 5 s");
  assert.equal(captures.length, 1);
  await advance(5_000);
  assert.equal(captures.length, 2, "refreshed after 5 s");
  assert.equal((await f.frame("test-pattern")).etag, '"2"');
  await advance(10_000);
  assert.equal(captures.length, 4);
  assert.deepEqual(f.active, ["test-pattern"]);
});

Deno.test("a camera nobody asks for stops being captured, and starts again when asked", async () => {
  const { feeds: f, captures, advance, timers } = feeds();
  await f.frame("video0");
  await advance(60_000);
  const afterIdle = captures.length;
  assert.ok(afterIdle <= 4, `${afterIdle} captures: stopped within 15 s of the last request`);
  assert.deepEqual(f.active, []);
  assert.equal(timers.size, 0, "no timer left");
  await advance(60_000);
  assert.equal(captures.length, afterIdle, "nothing while idle");
  const fresh = await f.frame("video0");
  assert.equal(captures.length, afterIdle + 1, "a fresh picture, not the old one");
  assert.equal(fresh.etag, `"${afterIdle + 1}"`);
});

Deno.test("concurrent first requests share one capture; close stops every timer", async () => {
  const { feeds: f, captures, timers } = feeds();
  const all = await Promise.all(Array.from({ length: 20 }, () => f.frame("test-pattern")));
  assert.equal(captures.length, 1);
  assert.ok(all.every((frame) => frame.etag === '"1"'));
  f.close();
  assert.equal(timers.size, 0);
});
