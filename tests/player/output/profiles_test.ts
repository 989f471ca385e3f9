/**
 * The browser's profiles: fresh, 0700, owned by the browser's account, under
 * one parent of the player's; removed when released, and when their player
 * died (a real process killed with SIGKILL: its lock is free) at the next start;
 * never while being made, even by a player sweeping at that moment; what a
 * crash while making one left is removed once old.
 */
import assert from "node:assert/strict";
import { ORPHAN_AGE_MS, ProfileDirs } from "../../../player/output/profiles.ts";
import { until } from "../../../tools/testing/until.ts";

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.lstat(path);
    return true;
  } catch {
    return false;
  }
}

/** A parent for the profiles of this test, and the account's uid. */
async function parentDir(): Promise<{ parent: string; uid: number; remove(): Promise<void> }> {
  const root = await Deno.makeTempDir({ prefix: "cueport-profiles-" });
  const uid = (await Deno.stat(root)).uid!;
  return {
    parent: `${root}/parent`,
    uid,
    remove: () => Deno.remove(root, { recursive: true }),
  };
}

Deno.test("ProfileDirs: a fresh 0700 profile under a 0711 parent, removed when released", async () => {
  const dir = await parentDir();
  try {
    const profiles = new ProfileDirs(dir.parent, dir.uid);
    assert.equal((await Deno.stat(dir.parent)).mode! & 0o777, 0o711);
    const a = profiles.create(null);
    const b = profiles.create(null);
    assert.notEqual(a.path, b.path);
    assert.equal((await Deno.stat(a.path)).mode! & 0o777, 0o700);
    assert.equal(await profiles.removeStale(), 0, "a profile in use is not stale");
    await a.release();
    assert.equal(await exists(a.path), false);
    assert.equal(await exists(`${a.path}.lock`), false);
    assert.equal(await exists(b.path), true);
    await b.release();
  } finally {
    await dir.remove();
  }
});

Deno.test("ProfileDirs refuses a parent that is not its account's own or that others may write", async () => {
  const dir = await parentDir();
  try {
    await Deno.mkdir(dir.parent, { mode: 0o777 });
    await Deno.chmod(dir.parent, 0o777);
    assert.throws(() => new ProfileDirs(dir.parent, dir.uid), /is not this account's own/);
    assert.throws(() => new ProfileDirs(`${dir.parent}x`, dir.uid + 1), /not this account's own/);
  } finally {
    await dir.remove();
  }
});

Deno.test("ProfileDirs.removeStale removes the profile of a player killed with SIGKILL", async () => {
  const dir = await parentDir();
  const module = new URL("../../../player/output/profiles.ts", import.meta.url).href;
  // A stand-in player: makes a profile, says where, and waits to be killed.
  const code = `import { ProfileDirs } from "${module}";
const profile = new ProfileDirs(${JSON.stringify(dir.parent)}, ${dir.uid}).create(null);
await Deno.writeTextFile(profile.path + "/file", "x".repeat(4096));
console.log(profile.path);
setInterval(() => {}, 1000);`;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["eval", "--quiet", code],
    stdout: "piped",
    stderr: "inherit",
  }).spawn();
  try {
    const reader = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    let out = "";
    while (!out.includes("\n")) out += (await reader.read()).value ?? "";
    const path = out.trim();
    const profiles = new ProfileDirs(dir.parent, dir.uid);
    assert.equal(await profiles.removeStale(), 0, "its player lives");
    assert.equal(await exists(path), true);
    child.kill("SIGKILL");
    await child.status;
    await reader.cancel();
    assert.equal(await profiles.removeStale(), 1);
    assert.equal(await exists(path), false);
    assert.equal(await exists(`${path}.lock`), false);
    await until("nothing else left", () => [...Deno.readDirSync(dir.parent)].length === 0);
  } finally {
    try {
      child.kill("SIGKILL");
    } catch {
      // gone
    }
    await dir.remove();
  }
});

/** Runs `removeStale` of `parent` in another process (another player starting), and waits. */
function sweepElsewhere(parent: string, uid: number): number {
  const module = new URL("../../../player/output/profiles.ts", import.meta.url).href;
  const code = `import { ProfileDirs } from "${module}";
console.log(await new ProfileDirs(${JSON.stringify(parent)}, ${uid}).removeStale());`;
  const out = new Deno.Command(Deno.execPath(), { args: ["eval", "--quiet", code] }).outputSync();
  assert.ok(out.success, new TextDecoder().decode(out.stderr));
  return Number(new TextDecoder().decode(out.stdout));
}

Deno.test("ProfileDirs.create: a player sweeping between any two of its steps removes nothing of it", async () => {
  const dir = await parentDir();
  const profiles = new ProfileDirs(dir.parent, dir.uid);
  // Each file system step of create() is followed by another process's sweep.
  const steps = ["openSync", "renameSync", "mkdirSync", "makeTempDirSync"] as const;
  const originals = steps.map((name) => [name, Deno[name]] as const);
  const swept: number[] = [];
  for (const [name, original] of originals) {
    // deno-lint-ignore no-explicit-any
    (Deno as any)[name] = (...args: unknown[]) => {
      // deno-lint-ignore no-explicit-any
      const result = (original as any)(...args);
      swept.push(sweepElsewhere(dir.parent, dir.uid));
      return result;
    };
  }
  try {
    const profile = (() => {
      try {
        return profiles.create(null);
      } finally {
        // deno-lint-ignore no-explicit-any
        for (const [name, original] of originals) (Deno as any)[name] = original;
      }
    })();
    assert.ok(swept.length >= 2, `${swept.length} sweeps`);
    assert.deepEqual(swept.filter((n) => n > 0), [], "a sweep removed something");
    assert.equal(await exists(profile.path), true);
    assert.equal(await exists(`${profile.path}.lock`), true);
    assert.equal(sweepElsewhere(dir.parent, dir.uid), 0, "its lock is held");
    await profile.release();
  } finally {
    await dir.remove();
  }
});

Deno.test("ProfileDirs.removeStale removes a folder without a lock and a free .lock.new once older than a minute, not before", async () => {
  const dir = await parentDir();
  try {
    const profiles = new ProfileDirs(dir.parent, dir.uid);
    const live = profiles.create(null);
    // What a player that died while making a profile left: a folder alone (an older player
    // made it before its lock), a lock file never renamed, its folder not yet made.
    const bare = `${dir.parent}/profile-bare`;
    await Deno.mkdir(bare);
    await Deno.writeTextFile(`${bare}/file`, "x");
    const unnamed = `${dir.parent}/profile-unnamed.lock.new`;
    await Deno.writeTextFile(unnamed, "");
    const now = Date.now();
    assert.equal(await profiles.removeStale(now), 0, "young: perhaps being made now");
    assert.equal(await exists(bare), true);
    assert.equal(await exists(unnamed), true);
    const later = now + ORPHAN_AGE_MS + 1_000;
    assert.equal(await profiles.removeStale(later), 2);
    assert.equal(await exists(bare), false);
    assert.equal(await exists(unnamed), false);
    assert.equal(await exists(live.path), true, "a profile in use stays, however old");
    await live.release();
  } finally {
    await dir.remove();
  }
});

Deno.test("ProfileDirs.removeStale kills a process still running on a stale profile", async () => {
  const dir = await parentDir();
  // A stale profile (its lock free) and a process naming it as its --user-data-dir ($0 of sh).
  const profile = new ProfileDirs(dir.parent, dir.uid).create(null);
  const path = profile.path;
  const flag = `--user-data-dir=${path}`;
  const left = new Deno.Command("sh", {
    args: ["-c", "while :; do sleep 1; done", flag],
    stdout: "null",
    stderr: "null",
  }).spawn();
  try {
    // Seen by its command line (Deno reads another process's only with every permission).
    const seen = async () =>
      (await new Deno.Command("pgrep", { args: ["-f", "--", flag], stdout: "null" }).output())
        .success;
    await until("the stand-in runs", seen);
    // The player that made it is gone: its lock is free for the next player.
    await Deno.remove(`${path}.lock`);
    const lock = await Deno.open(`${path}.lock`, { write: true, create: true });
    lock.close();
    const removed = await new ProfileDirs(dir.parent, dir.uid).removeStale();
    assert.equal(removed, 1);
    await until("the process on the profile gone", async () => !(await seen()));
    assert.equal((await left.status).signal, "SIGKILL", "killed");
    assert.equal(await exists(path), false);
  } finally {
    try {
      left.kill("SIGKILL");
    } catch {
      // killed by the sweep
    }
    await left.status;
    await profile.release(); // this test's own lock on the first .lock
    await dir.remove();
  }
});
