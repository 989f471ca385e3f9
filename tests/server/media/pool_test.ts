import assert from "node:assert/strict";
import { wavHeader } from "../../../player/media/encode.ts";
import { CueportError } from "../../../server/core/mod.ts";
import { RenderPool, type RenderPoolHooks } from "../../../server/media/pool.ts";
import type { RenderJob, SourceFile } from "../../../server/media/render/mod.ts";
import { MAX_PIXELS, paint, source, tempDir, writeImage } from "./render/_fixtures.ts";
import { untilProgress } from "../../../tools/testing/until.ts";

const MB = 1024 * 1024;

/** A silent WAV of `mb` MiB (sparse): its waveform reads every byte, about 5 ms a MiB here. */
async function silence(dir: string, name: string, mb: number): Promise<RenderJob> {
  const path = `${dir}/${name}.wav`;
  await Deno.writeFile(path, wavHeader(mb * MB, 48_000));
  await Deno.truncate(path, 44 + mb * MB);
  return { type: "waveform", source: source(path, "audio"), width: 64, height: 16, ffmpeg: null };
}

/** A PNG thumbnail of `file` at `size` (null: its original size). */
function thumbnail(file: SourceFile, size: number | null, ffmpeg: string | null = null): RenderJob {
  return {
    type: "thumbnail",
    source: file,
    size,
    overlay: "none",
    format: "png",
    quality: 85,
    ffmpeg,
    maxPixels: MAX_PIXELS,
  };
}

/**
 * The pool's hooks as events a test waits on: `when(check)` resolves once `check` holds, looked
 * at again after each job's start and each worker's `ready`. No bound on time: on a loaded
 * machine a worker at its lowered priority took more than 15 s to compile its codecs (load 44).
 */
function poolEvents(): { hooks: RenderPoolHooks; when(check: () => boolean): Promise<void> } {
  const waiters: (() => void)[] = [];
  const tell = () => waiters.splice(0).forEach((w) => w());
  return {
    hooks: { jobStarted: tell, workerReady: tell },
    async when(check) {
      while (!check()) await new Promise<void>((r) => waiters.push(r));
    },
  };
}

// The pool's API as this test uses it, so the test reads the same before the options existed.
type Render = (job: RenderJob, options?: { client?: string; signal?: AbortSignal }) => Promise<
  unknown
>;

Deno.test("RenderPool.render() drops a queued job whose request is abandoned, and ends a running one", async () => {
  const dir = await tempDir();
  // The first job's start is an event (the worker compiles its codecs first, at a lowered
  // priority: beside stress-ng at load 20 that outlasted a 15 s wait, and at load 44 on main).
  const events = poolEvents();
  const pool = new RenderPool({ hooks: events.hooks });
  const render = pool.render.bind(pool) as Render;
  try {
    const slow = await silence(dir, "slow", 200);
    const running = new AbortController(), queued = new AbortController();
    const first = render(slow, { client: "a", signal: running.signal });
    const second = render(slow, { client: "a", signal: queued.signal });
    const firstOutcome = first.then(() => "made", (e) => e);
    const secondOutcome = second.then(() => "made", (e) => e);
    await events.when(() => pool.waiting === 1); // the first job runs, the second waits
    let isFirstSettled = false;
    firstOutcome.finally(() => {
      isFirstSettled = true;
    });
    const started = pool.workersStarted;
    queued.abort();
    assert.equal(pool.waiting, 0, "the queued job left the queue as its request was abandoned");
    const dropped = await secondOutcome;
    assert.ok(dropped instanceof CueportError, `queued: ${dropped}`);
    assert.equal(dropped.code, "REQUEST_TIMEOUT");
    assert.equal(isFirstSettled, false, "refused without waiting for the running job");
    running.abort();
    const ended = await firstOutcome;
    assert.ok(ended instanceof CueportError, `running: ${ended}`);
    // The worker was ended and the next job gets a fresh one.
    const small = await silence(dir, "small", 1);
    assert.equal(((await pool.render(small)) as { width: number }).width, 64);
    assert.equal(pool.workersStarted, started + 1, "the running job's worker was ended");
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool.render() serves clients in turn: one client's queue does not starve another's", async () => {
  const dir = await tempDir();
  const pool = new RenderPool();
  const render = pool.render.bind(pool) as Render;
  try {
    const job = await silence(dir, "job", 40);
    const done: string[] = [];
    const asks = [
      ...["a1", "a2", "a3", "a4"].map((name) =>
        render(job, { client: "a" }).then(() => done.push(name))
      ),
      render(job, { client: "b" }).then(() => done.push("b1")),
    ];
    await Promise.all(asks);
    assert.ok(done.indexOf("b1") <= 1, `order: ${done.join(" ")}`);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool.render() past a client's share of the queue is RATE_LIMITED", async () => {
  const dir = await tempDir();
  const pool = new RenderPool({ maxQueuedPerClient: 2, maxQueued: 3 });
  const render = pool.render.bind(pool) as Render;
  try {
    const job = await silence(dir, "job", 1);
    await render(job); // a worker that is ready takes the first job at once
    const outcomes = await Promise.all([
      ...Array.from({ length: 4 }, () => render(job, { client: "a" })),
      render(job, { client: "b" }),
      render(job, { client: "c" }),
    ].map((p) =>
      p.then(() => "made", (e: CueportError) => `${e.code} ${e.details?.retryAfterSeconds}`)
    ));
    // One runs and two wait for "a"; its fourth is over its share; "b" waits; "c" finds the queue full.
    assert.deepEqual(outcomes, [
      "made",
      "made",
      "made",
      "RATE_LIMITED 1",
      "made",
      "RATE_LIMITED 1",
    ]);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool recycles its worker after a job that decoded a large picture", async () => {
  const dir = await tempDir();
  const pool = new RenderPool({ recyclePixels: 10_000, localLane: false }); // one worker's count
  try {
    const path = `${dir}/big.png`;
    await writeImage(path, paint(200, 200, () => [10, 20, 30]), "png");
    const small = `${dir}/small.png`;
    await writeImage(small, paint(50, 50, () => [10, 20, 30]), "png");
    const job = (p: string) => thumbnail(source(p, "image"), 32);
    await pool.render(job(small));
    await pool.render(job(small));
    const started = (pool as unknown as { workersStarted: number }).workersStarted;
    assert.equal(started, 1, "small pictures keep the worker");
    await pool.render(job(path));
    await pool.render(job(small));
    assert.equal((pool as unknown as { workersStarted: number }).workersStarted, 2);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool keeps its worker after a small thumbnail of a large JPEG (decoded scaled), not after its original size", async () => {
  const dir = await tempDir();
  const events = poolEvents();
  // One worker's count; the replacement's start is an event (`workerReady`), not a wait.
  const pool = new RenderPool({ recyclePixels: 10_000, localLane: false, hooks: events.hooks });
  const started = () => (pool as unknown as { workersStarted: number }).workersStarted;
  try {
    const path = `${dir}/big.jpeg`; // 160,000 pixels in its header; 2,500 decoded at 1/8
    await writeImage(path, paint(400, 400, (x, y) => [x & 255, y & 255, 30]), "jpeg");
    const job = (size: number | null) => thumbnail(source(path, "image"), size);
    await pool.render(job(32));
    await pool.render(job(32));
    assert.equal(started(), 1, "a thumbnail decoded at 1/8 keeps the worker");
    await pool.render(job(null));
    await events.when(() => started() === 2); // the worker replaced
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool: a worker due for replacement makes the small pictures waiting first, then is replaced once idle", async () => {
  const dir = await tempDir();
  const events = poolEvents();
  // One worker's count; the replacement's start is an event (`workerReady`), not a wait.
  const pool = new RenderPool({ recyclePixels: 10_000, localLane: false, hooks: events.hooks });
  const started = () => (pool as unknown as { workersStarted: number }).workersStarted;
  try {
    const big = `${dir}/big.png`;
    await writeImage(big, paint(200, 200, () => [10, 20, 30]), "png");
    const job = (size: number | null) => thumbnail(source(big, "image"), size);
    // The large picture, and a small one waiting behind it.
    const first = pool.render(job(null)).then(() => started());
    const second = pool.render(job(32)).then(() => started());
    assert.equal(await first, 1, "not replaced while a small picture waits");
    await second;
    await events.when(() => started() === 2); // the worker replaced once idle
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool.render() serves a local client before remote ones, after the job that runs", async () => {
  const dir = await tempDir();
  const pool = new RenderPool({ localLane: false }); // the order of one worker's turns
  const render = pool.render.bind(pool) as (
    job: RenderJob,
    options?: { client?: string; isLocal?: boolean },
  ) => Promise<unknown>;
  try {
    const job = await silence(dir, "job", 20);
    await render(job); // a worker that is ready takes the first job at once
    const done: string[] = [];
    const asks = [
      ...["a1", "a2"].map((name) => render(job, { client: "a" }).then(() => done.push(name))),
      ...["b1", "b2"].map((name) => render(job, { client: "b" }).then(() => done.push(name))),
      render(job, { client: "127.0.0.1", isLocal: true }).then(() => done.push("local")),
    ];
    await Promise.all(asks);
    assert.equal(done.indexOf("local"), 1, `order: ${done.join(" ")}`);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool survives jobs abandoned while a fresh worker still compiles its codecs", async () => {
  const dir = await tempDir();
  try {
    const job = await silence(dir, "job", 1);
    const pool = new RenderPool({ localLane: false }); // one worker, started by the first job
    try {
      // Each job is abandoned before the worker has compiled its codecs (it cannot have said
      // `ready`: no event ran since render() started it). Terminating a worker then aborted the
      // process: the job leaves the queue, and the worker is left to compile.
      for (let i = 0; i < 3; i++) {
        const abandon = new AbortController();
        const asked = pool.render(job, { client: "a", signal: abandon.signal }).catch((e) => e);
        abandon.abort();
        assert.equal(((await asked) as CueportError).code, "REQUEST_TIMEOUT");
      }
      assert.equal(pool.waiting, 0, "the abandoned jobs left the queue");
      assert.deepEqual([pool.workersStarted, pool.retiring], [1, 0], "no worker was ended");
      const made = await pool.render(job).catch((e) => e);
      assert.equal((made as { width: number }).width, 64, String(made));
      assert.equal(pool.workersStarted, 1, "the worker that compiled meanwhile made the picture");
    } finally {
      await pool.close();
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool.close() resolves once a worker still compiling its codecs is gone", async () => {
  const dir = await tempDir();
  try {
    const pool = new RenderPool();
    const asked = pool.render(await silence(dir, "job", 1)).catch((e) => e);
    await pool.close(); // at once: the worker has not compiled its codecs yet
    assert.equal(pool.retiring, 0, "no worker left to end when the process or module goes");
    assert.equal((await asked as { code: string }).code, "NOT_READY");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool: after a busy worker is ended, an original-size picture waits for its memory to come back (at most drainMs), a small job does not", async () => {
  const dir = await tempDir();
  let rss = 100 * MB;
  let looks = 0; // how often the pool read the memory
  const memory = () => (looks++, rss);
  const events = poolEvents();
  const options = { stallMs: 30_000, memory, drainMs: 60_000, hooks: events.hooks };
  const pool = new RenderPool(options);
  const render = pool.render.bind(pool) as Render;
  try {
    const slow = await silence(dir, "slow", 200);
    const running = new AbortController();
    const first = render(slow, { signal: running.signal }).catch((e) => e);
    await events.when(() => pool.waiting === 0);
    rss = 400 * MB; // the job's pictures, still held by the ended worker's thread
    running.abort();
    assert.ok((await first) instanceof CueportError);
    // A waveform (or a thumbnail, decoded scaled) is made at once on the fresh worker.
    assert.equal(((await render(await silence(dir, "small", 1))) as { width: number }).width, 64);
    const path = `${dir}/still.png`;
    await writeImage(path, paint(40, 30, () => [10, 20, 30]), "png");
    const original = thumbnail(source(path, "image"), null);
    let isMade = false;
    const before = looks;
    const next = render(original).then((r) => (isMade = true, r));
    // The pool looks at the memory again and again meanwhile.
    // Each look is the pool's progress: a pool that stops looking fails the wait, a slow one not.
    await untilProgress("the pool to wait for the memory", () => looks > before + 5, {
      progress: () => looks,
    });
    assert.equal(isMade, false, "waits while the ended worker's memory is held");
    rss = 120 * MB; // gone
    assert.equal(((await next) as { width: number }).width, 40);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/**
 * A remote device's original-size picture that runs until the test lets it end: a video frame
 * whose "ffmpeg" waits on a FIFO (`open()`), then fails (the picture is a card). Without
 * `open()`, it is killed at the frame's deadline (10 s).
 */
async function gatedOriginal(dir: string): Promise<{ job: RenderJob; open(): Promise<void> }> {
  const gate = `${dir}/gate`;
  const mkfifo = await new Deno.Command("mkfifo", { args: [gate] }).output();
  assert.ok(mkfifo.success, "mkfifo");
  const ffmpeg = `${dir}/ffmpeg`;
  await Deno.writeTextFile(ffmpeg, `#!/bin/sh\nread line < '${gate}'\nexit 1\n`);
  await Deno.chmod(ffmpeg, 0o755);
  return {
    job: thumbnail(source(`${dir}/show.mp4`, "video"), null, ffmpeg),
    open: () => Deno.writeTextFile(gate, "go\n"),
  };
}

Deno.test("RenderPool: a local small picture asked while a remote original-size one runs is made before that one ends; a local original-size one, or one of a picture (a JPEG too) not known to be small, is not", async () => {
  const dir = await tempDir();
  const events = poolEvents();
  const pool = new RenderPool({ hooks: events.hooks });
  try {
    const small = `${dir}/small.png`;
    await writeImage(small, paint(50, 50, () => [10, 20, 30]), "png");
    // `pixels`: what the catalog knows of the picture (the player's probe).
    const job = (size: number | null, pixels = 2500) =>
      thumbnail(source(small, "image", { pixels }), size);
    const local = { client: "127.0.0.1", isLocal: true };
    const started = () => (pool as unknown as { workersStarted: number }).workersStarted;
    await pool.render(job(32), local);
    assert.equal(
      started(),
      2,
      "the local lane's worker starts with the first, compiled when needed",
    );
    const remote = await gatedOriginal(dir);
    const ended: string[] = [];
    // Outcomes, never rejected: a failed assertion leaves none unhandled when the pool closes.
    const settle = (asked: Promise<unknown>, name: string) =>
      asked.catch((e) => e).finally(() => ended.push(name));
    const remoteDone = settle(pool.render(remote.job, { client: "127.0.0.2" }), "remote");
    await events.when(() => pool.waiting === 0);
    // The operator's own original-size picture waits (two such pictures at once are two
    // pictures' memory), as does a small one of a picture the catalog says is 36 megapixels (a
    // PNG is decoded whole); the small one behind them in the operator's line does not.
    const localLarge = settle(pool.render(job(null), local), "large");
    const localHeavy = settle(pool.render(job(32, 36_000_000), local), "heavy");
    // A JPEG too: it is decoded scaled, but whole where scaling fails (some phone JPEGs).
    const jpeg = `${dir}/small.jpg`;
    await writeImage(jpeg, paint(50, 50, () => [10, 20, 30]), "jpeg");
    const bigJpeg = source(jpeg, "image", { mimeType: "image/jpeg", pixels: 24_000_000 });
    const localJpeg = settle(pool.render(thumbnail(bigJpeg, 32), local), "jpeg");
    const first = await Promise.race([
      pool.render(job(32), local).then(() => "local"),
      remoteDone.then(() => "remote"),
    ]);
    assert.equal(first, "local", "the local picture waited for the remote one");
    assert.deepEqual(ended, [], "nothing else ended before the local small picture");
    await remote.open();
    assert.equal(((await remoteDone) as { origin: string }).origin, "card");
    assert.equal(((await localLarge) as { width: number }).width, 50);
    assert.equal(((await localHeavy) as { width: number }).width, 32);
    assert.equal(((await localJpeg) as { width: number }).width, 32);
    assert.deepEqual(ended, ["remote", "large", "heavy", "jpeg"]);
    assert.equal(started(), 2, "no other worker started");
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool: a local small picture asked while the first worker is being replaced (its codecs compiling) is made by the local lane", async () => {
  const dir = await tempDir();
  const events = poolEvents();
  const pool = new RenderPool({ recyclePixels: 1000, hooks: events.hooks });
  try {
    const path = `${dir}/still.png`;
    await writeImage(path, paint(60, 40, () => [10, 20, 30]), "png");
    const job = (size: number | null) => thumbnail(source(path, "image", { pixels: 2400 }), size);
    await pool.render(job(32)); // the workers start with the first job
    await events.when(() => pool.lane?.isReady === true);
    // An original-size picture of more than `recyclePixels`: its worker is replaced as soon as
    // it answers, and the fresh one compiles its codecs (tens of ms at least) from now.
    await pool.render(job(null), { client: "127.0.0.2" });
    const before = pool.lane!.jobs;
    await pool.render(job(32), { client: "127.0.0.1", isLocal: true });
    assert.equal(
      pool.lane!.jobs,
      before + 1,
      "made by the lane, not after the fresh worker's codecs",
    );
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool: a local small picture behind the operator's original-size one, while the idle worker waits for an ended worker's memory, is made by the local lane at once", async () => {
  const dir = await tempDir();
  let rss = 100 * MB;
  // drainMs: the ended worker's memory stays held for the whole test (it cannot pass by waiting).
  const events = poolEvents();
  const pool = new RenderPool({ memory: () => rss, drainMs: 60_000, hooks: events.hooks });
  try {
    const path = `${dir}/still.png`;
    await writeImage(path, paint(60, 40, () => [10, 20, 30]), "png");
    const job = (size: number | null) => thumbnail(source(path, "image", { pixels: 2400 }), size);
    const running = new AbortController();
    const first = pool.render(await silence(dir, "slow", 200), { signal: running.signal })
      .catch((e) => e);
    await events.when(() => pool.waiting === 0);
    rss = 400 * MB; // the job's pictures, still held by the ended worker's thread
    running.abort();
    assert.ok((await first) instanceof CueportError);
    // A small job on the fresh worker: it is ready and idle after, still draining.
    assert.equal((await pool.render(job(32))).width, 32);
    await events.when(() => pool.lane?.isReady === true);
    const local = { client: "127.0.0.1", isLocal: true };
    let isLargeMade = false;
    // Outcomes, never rejected: a failed assertion leaves none unhandled when the pool closes.
    const large = pool.render(job(null), local).then((r) => (isLargeMade = true, r), (e) => e);
    const before = pool.lane!.jobs;
    const small = pool.render(job(32), local).catch((e) => e);
    // Well before drainMs (the idle worker could start it only after the large one).
    await events.when(() => pool.lane!.jobs > before);
    assert.equal(pool.waiting, 1, "the large picture still waits for the memory");
    assert.equal((await small).width, 32);
    assert.equal(isLargeMade, false);
    rss = 120 * MB; // gone
    assert.equal((await large).width, 60);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

/** The niceness of this thread: a child process runs at the niceness of the thread that starts it. */
async function ownNiceness(): Promise<number> {
  const out = await new Deno.Command("nice", { stdin: "null", stderr: "null" }).output();
  return Number.parseInt(new TextDecoder().decode(out.stdout), 10);
}

Deno.test({
  name:
    "RenderPool: the worker for every job lowers its thread's priority, the local lane keeps the service's",
  // Issue 42: each worker lowered "the newest worker thread", so the first worker and the lane,
  // started together, both lowered the lane's; beside busy processes the operator's thumbnail
  // then waited seconds for the lane's thread while the remote device's original ran at full
  // priority. The pool runs here with the service's permissions (no --allow-all), as it does in
  // the service.
  ignore: Deno.build.os !== "linux",
  async fn() {
    const dir = await tempDir();
    const events = poolEvents();
    const pool = new RenderPool({ hooks: events.hooks });
    try {
      await pool.render(await silence(dir, "job", 1)); // both workers start with the first job
      await events.when(() => pool.workers.every((w) => w.isReady));
      const service = await ownNiceness();
      const [first, lane] = pool.workers;
      assert.equal(lane?.isLane, true);
      assert.equal(lane.nice, service, "the lane at the service's priority");
      assert.ok(
        first!.nice !== null && first!.nice >= Math.min(19, service + 1),
        `the first worker at a lower priority than the service's (${service}): ${first!.nice}`,
      );
    } finally {
      await pool.close();
      await Deno.remove(dir, { recursive: true });
    }
  },
});

Deno.test("RenderPool: a local small picture is made by the local lane even while the other worker is idle", async () => {
  const dir = await tempDir();
  const events = poolEvents();
  const pool = new RenderPool({ hooks: events.hooks });
  try {
    const path = `${dir}/still.png`;
    await writeImage(path, paint(60, 40, () => [10, 20, 30]), "png");
    const job = (size: number) => thumbnail(source(path, "image", { pixels: 2400 }), size);
    await pool.render(job(32), { client: "127.0.0.2" }); // remote: the first worker's
    await events.when(() => pool.workers.every((w) => w.isReady));
    const jobs = () => pool.workers.map((w) => w.jobs);
    const [first, lane] = jobs();
    // One after another: the first worker is idle and ready for each, and takes none (at its
    // lowered priority busy processes may starve it).
    for (const size of [32, 48, 64]) {
      const made = await pool.render(job(size), { client: "127.0.0.1", isLocal: true });
      assert.equal(made.width, size);
    }
    assert.deepEqual(jobs(), [first, lane! + 3]);
    // A remote one still goes to the first worker.
    await pool.render(job(16), { client: "127.0.0.2" });
    assert.deepEqual(jobs(), [first! + 1, lane! + 3]);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("RenderPool: a local picture of an image known to be over maxPixels (a card, nothing decoded) is made by the local lane, at any size", async () => {
  // Beside stress-ng the header bombs' cards waited seconds each on the lowered worker (issue 42).
  const dir = await tempDir();
  const events = poolEvents();
  const pool = new RenderPool({ hooks: events.hooks });
  try {
    const path = `${dir}/bomb.png`;
    await writeImage(path, paint(60, 40, () => [10, 20, 30]), "png");
    const bomb = source(path, "image", { pixels: MAX_PIXELS + 1 });
    await pool.render(thumbnail(source(path, "image", { pixels: 2400 }), 32), {
      client: "127.0.0.2",
    });
    await events.when(() => pool.workers.every((w) => w.isReady));
    const jobs = () => pool.workers.map((w) => w.jobs);
    const [first, lane] = jobs();
    for (const size of [64, null]) {
      await pool.render(thumbnail(bomb, size), { client: "127.0.0.1", isLocal: true });
    }
    assert.deepEqual(jobs(), [first, lane! + 2]);
    // Its original size asked remotely still goes to the first worker.
    await pool.render(thumbnail(bomb, null), { client: "127.0.0.2" });
    assert.deepEqual(jobs(), [first! + 1, lane! + 2]);
  } finally {
    await pool.close();
    await Deno.remove(dir, { recursive: true });
  }
});
