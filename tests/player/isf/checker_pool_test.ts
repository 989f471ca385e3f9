/**
 * The checker processes kept between ISF checks (`checker_pool.ts`): a check in a kept
 * process gets the verdict a fresh process gives, a check past its memory ceiling among
 * them too; a process is replaced after a check cut short, past its heap ceiling, after
 * its count of checks, and when idle; a kept process that ended unheard costs no verdict.
 */
import assert from "node:assert/strict";
import { VirtualClock } from "../../../player/clock.ts";
import { parseIsfApart } from "../../../player/isf/apart.ts";
import { ISF_CHECKS_AT_ONCE } from "../../../player/isf/check_memo.ts";
import {
  CheckerPool,
  type CheckerPoolOptions,
  ISF_CHECKER_SLOTS,
} from "../../../player/isf/checker_pool.ts";
import { INVERT } from "../../../tools/testing/isf_shaders.ts";

const BROKEN_LCD = await Deno.readTextFile(
  new URL("../../../tools/reliability/isf_corpus/Broken LCD.fs", import.meta.url),
);
const TYPO = INVERT.replace("amount)", "amont)");

/** A check in `pool`, with no glslang (the parse's verdict alone). */
function check(pool: CheckerPool, code: string, options: { heapMb?: number } = {}) {
  return parseIsfApart(code, "effect", {
    pool,
    compiler: null,
    clock: new VirtualClock(),
    ...options,
  });
}

/** A pool whose idle timers run on a clock of the test's. */
function poolOf(options: CheckerPoolOptions = {}): { pool: CheckerPool; clock: VirtualClock } {
  const clock = new VirtualClock();
  return { pool: new CheckerPool({ clock, ...options }), clock };
}

Deno.test("checks in kept processes answer what fresh processes answer, one past its memory ceiling among them", async () => {
  // A 2 MB ceiling: Broken LCD's check grows its heap past it, Invert's does not.
  const sequence: Array<[string, { heapMb?: number }]> = [
    [BROKEN_LCD, {}],
    [TYPO, { heapMb: 2 }],
    [BROKEN_LCD, { heapMb: 2 }],
    [BROKEN_LCD, {}],
    [TYPO, {}],
  ];
  const { pool } = poolOf();
  const kept = [];
  for (const [code, options] of sequence) kept.push(await check(pool, code, options));
  const fresh = [];
  for (const [code, options] of sequence) {
    const own = new CheckerPool();
    fresh.push(await check(own, code, options));
    assert.equal(own.started, 1);
  }
  assert.deepEqual(kept, fresh);
  assert.match(JSON.stringify(kept[2]), /too large to check/);
  assert.ok(kept[0]!.ok && kept[3]!.ok);
  // One process until the check past its ceiling, which ended it; one after.
  assert.equal(pool.started, 2);
  pool.close();
});

Deno.test("a kept process is replaced after a check cut by a bound, and after its count of checks", async () => {
  const { pool } = poolOf({ checks: 2 });
  await check(pool, INVERT);
  await check(pool, INVERT);
  assert.equal(pool.started, 1);
  await check(pool, INVERT); // the first answered 2: a new one
  assert.equal(pool.started, 2);
  const cut = await parseIsfApart(INVERT, "effect", {
    pool,
    compiler: null,
    bounds: { parseSteps: 50 },
  });
  assert.match(JSON.stringify(cut), /the check stopped at its bound/);
  assert.equal(pool.idle, 0, "a check cut short leaves no process kept");
  await check(pool, INVERT);
  assert.equal(pool.started, 3);
  pool.close();
});

Deno.test("a kept process is replaced past its heap ceiling, and ended when idle", async () => {
  const { pool: greedy } = poolOf({ heapMb: 0 });
  await check(greedy, INVERT);
  assert.equal(greedy.idle, 0, "a heap past the ceiling after its check: not kept");
  const { pool, clock } = poolOf({ idleMs: 10_000 });
  await check(pool, INVERT);
  assert.equal(pool.idle, 1);
  clock.advance(9_999);
  assert.equal(pool.idle, 1);
  clock.advance(1);
  assert.equal(pool.idle, 0, "idle for its time: ended");
  await check(pool, INVERT);
  assert.equal(pool.started, 2);
  pool.close();
});

Deno.test("at most one process a slot is kept", async () => {
  assert.equal(ISF_CHECKER_SLOTS, ISF_CHECKS_AT_ONCE);
  const { pool } = poolOf();
  await Promise.all([check(pool, INVERT), check(pool, TYPO), check(pool, INVERT)]);
  assert.equal(pool.started, 3);
  assert.equal(pool.idle, ISF_CHECKER_SLOTS);
  pool.close();
  assert.equal(pool.idle, 0);
});

Deno.test("a check sent to a kept process that ended meanwhile is answered by a new one", async () => {
  // A stand-in that answers one check and ends.
  const path = new URL("_slow_checker.ts", import.meta.url).pathname;
  const command = [Deno.execPath(), "run", "--quiet", path];
  const { pool } = poolOf();
  const slow = { ok: false, problems: [{ line: 1, column: 1, message: "slow" }] };
  for (let i = 0; i < 3; i++) {
    assert.deepEqual(
      await parseIsfApart(INVERT, "effect", { pool, command, compiler: null }),
      slow,
    );
  }
  assert.equal(pool.started, 3);
  pool.close();
});
