import assert from "node:assert/strict";
import { LiveSaver } from "../../player/live_saver.ts";
import { readJsonIfThere, until } from "../../tools/testing/until.ts";
import { mountTmpfs } from "../../tools/testing/tmpfs.ts";
import { keptPath } from "../../lib/kept_copies.ts";

Deno.test("LiveSaver writes off the caller's path, one write at a time, the latest state next", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/live.json`;
  let value = 0;
  let builds = 0;
  const saver = new LiveSaver({
    path,
    build: () => {
      builds++;
      return { value };
    },
    gapMs: 0,
  });
  try {
    for (value = 1; value <= 1000; value++) saver.markDirty();
    value = 1000;
    assert.equal(builds, 0, "nothing is built or written while the caller runs");
    await until(
      "the first write",
      async () => ((await readJsonIfThere(path)) as { value: number })?.value === 1000,
    );
    assert.equal(builds, 1, "a burst of changes is one write");

    // Changes during a write wait for it, then go out as one more write.
    value = 2000;
    saver.markDirty();
    await until("the second write to start", () => builds === 2);
    for (value = 2001; value <= 2100; value++) saver.markDirty();
    value = 2100;
    await until(
      "the last state",
      async () => ((await readJsonIfThere(path)) as { value: number })?.value === 2100,
    );
    assert.ok(builds <= 3, `${builds} writes`);
    const names = [...Deno.readDirSync(dir)].map((e) => e.name);
    assert.deepEqual(names, ["live.json"], "no temp file is left");
  } finally {
    await saver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LiveSaver.close() writes the final state and nothing after it", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/live.json`;
  let value = "first", builds = 0;
  const build = () => (builds++, { value });
  const saver = new LiveSaver({ path, build, gapMs: 60_000 });
  try {
    saver.markDirty(); // written at once: nothing was written for a minute
    value = "second";
    saver.markDirty(); // would wait out the gap
    await saver.close();
    assert.deepEqual(await readJsonIfThere(path), { value: "second" });
    const buildsAtClose = builds;
    value = "late";
    // A later write could only come from a timer markDirty() arms (a sleep would not see one
    // armed for the 60 s gap): it must arm none, and build nothing now.
    const armed: unknown[] = [];
    const realSetTimeout = globalThis.setTimeout;
    globalThis.setTimeout = ((...args: unknown[]) =>
      armed.push(args)) as unknown as typeof setTimeout;
    try {
      saver.markDirty();
    } finally {
      globalThis.setTimeout = realSetTimeout;
    }
    assert.deepEqual(armed, [], "a change after close() arms no write");
    assert.equal(builds, buildsAtClose, "nor builds the state");
    assert.deepEqual(await readJsonIfThere(path), { value: "second" });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LiveSaver reports a failed write and keeps going", async () => {
  const dir = await Deno.makeTempDir();
  const logs: string[] = [];
  const path = `${dir}/missing-parent-is-a-file/live.json`;
  await Deno.writeTextFile(`${dir}/missing-parent-is-a-file`, "x");
  const saver = new LiveSaver({
    path,
    build: () => ({ ok: true }),
    gapMs: 0,
    log: (m) => logs.push(m),
  });
  try {
    saver.markDirty();
    await until("the error to be logged", () => logs.length === 1);
    assert.match(logs[0]!, /^Cannot save the live state: /);
  } finally {
    await saver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LiveSaver on a full disk: tries again until the state is written, one log line each way", async () => {
  const disk = await mountTmpfs("256k");
  const path = `${disk.dir}/live.json`;
  let value = 0;
  let builds = 0;
  const logs: string[] = [];
  const saver = new LiveSaver({
    path,
    build: () => {
      builds++;
      return { value, pad: "x".repeat(8192) };
    },
    gapMs: 0,
    retryMs: 5,
    log: (line) => logs.push(line),
  });
  try {
    disk.fill();
    value = 1;
    saver.markDirty();
    await until("three failed writes", () => builds >= 3);
    assert.equal(logs.length, 1, logs.join("\n"));
    assert.match(
      logs[0]!,
      /^Cannot save the live state: No space.* \(tried again until it works\)$/,
    );
    disk.free();
    await until(
      "the state written once there is room",
      async () => ((await readJsonIfThere(path)) as { value: number } | undefined)?.value === 1,
    );
    await until("the log says so", () => logs.length === 2);
    assert.equal(logs[1], "The live state is saved again");
  } finally {
    await saver.close();
    await disk.close();
  }
});

Deno.test("LiveSaver skips a write whose stillKey is the last written's; a new key, a null key and flush() write", async () => {
  const dir = await Deno.makeTempDir();
  const path = `${dir}/live.json`;
  type State = { value: string; stamp: number };
  let value = "a", stamp = 0, isMoving = false;
  let builds = 0;
  const saver = new LiveSaver({
    path,
    build: () => (builds++, { value, stamp: ++stamp }),
    // The stamp is the part not worth a write alone; a moving state has no key.
    stillKey: (state) => isMoving ? null : (state as State).value,
    gapMs: 0,
    keep: 1,
  });
  const read = async (p: string) => (await readJsonIfThere(p)) as State | undefined;
  /** Changes the state, waits until it is on disk; the copy kept is the file it replaced. */
  const writeAndKept = async (next: string) => {
    value = next;
    saver.markDirty();
    await until(`"${next}" written`, async () => (await read(path))?.value === next);
    return (await read(keptPath(path, 1)))?.stamp;
  };
  try {
    await writeAndKept("a"); // stamp 1
    saver.markDirty(); // stamp 2, the same key: skipped
    await until("the skipped state built", () => builds === 2);
    assert.equal(await writeAndKept("b"), 1, "the file the skipped write would have replaced");
    assert.equal((await read(path))?.stamp, 3);
    isMoving = true; // stamp 4: no key, written though its value is the same
    saver.markDirty();
    await until("the moving state written", async () => (await read(path))?.stamp === 4);
    isMoving = false;
    await saver.flush(); // stamp 5: written, its key "b" now the last written's
    assert.equal((await read(path))?.stamp, 5);
    saver.markDirty(); // stamp 6, skipped
    await until("the skipped state built", () => builds === 6);
    assert.equal(await writeAndKept("c"), 5);
  } finally {
    await saver.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("LiveSaver forgets the last written key when a write fails: the same still state is written again", async () => {
  const disk = await mountTmpfs("256k");
  const path = `${disk.dir}/live.json`;
  let value = "a", stamp = 0;
  const logs: string[] = [];
  const saver = new LiveSaver({
    path,
    build: () => ({ value, stamp: ++stamp, pad: "x".repeat(8192) }),
    stillKey: (state) => (state as { value: string }).value,
    gapMs: 0,
    retryMs: 5,
    log: (line) => logs.push(line),
  });
  const read = async () => (await readJsonIfThere(path)) as { value: string; stamp: number };
  try {
    saver.markDirty();
    await until("the first write", async () => (await read())?.stamp === 1);
    disk.fill();
    value = "b";
    saver.markDirty();
    await until("a failed write", () => logs.length === 1);
    value = "a"; // the key of the last write that succeeded, tried again after a failure
    const tried = stamp;
    await until("a retry of the state back to a", () => stamp > tried);
    disk.free();
    await until("the state written again", async () => (await read())?.stamp > 1);
    assert.equal((await read()).value, "a");
  } finally {
    await saver.close();
    await disk.close();
  }
});
